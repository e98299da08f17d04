// Copy CI Redeploy Step (#51): the deployment API's redeploy call as a GitHub Actions step or a curl line. The text
// is checked as YAML (js-yaml, mocha's own) and run as a shell script against the simulator's platform, and a
// hostile deployment name or URL must neither break out of it nor reach GitHub's `${{ }}` expressions.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ciRedeployStep, inertCiText, isDeploymentId, isSecretName, redeployRoute } from '../../src/platform/ciRedeployStep';
import { DEMO_CI_TOKEN } from '../../src/simulator/platform';
import { startSimulator, type Simulator } from '../../src/simulator/server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load(text: string): unknown };
const run = promisify(execFile);
const HOSTILE_NAME = 'Research"\n  run: touch PWNED_YAML\n${{ secrets.OTHER }} $(touch PWNED_SH) `touch PWNED_TICK` \'; touch PWNED_Q; \'';

function hasCurl(): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => fs.existsSync(path.join(dir, 'curl')));
}

describe('CI redeploy step (#51)', () => {
  it('writes the documented call: numeric id, the token from the CI secret, never a token of its own', () => {
    const text = ciRedeployStep({ format: 'curl', platformUrl: 'https://app.crewai.com/', deploymentId: '103671', deploymentName: 'Research' });
    const lines = text.trimEnd().split('\n');
    const comments = lines.slice(0, -1);
    assert.ok(comments.every((l) => l.startsWith('# ') && l.length <= 102), 'comment lines, cut between words');
    const said = comments.map((l) => l.slice(2)).join(' ');
    assert.match(said, /^Redeploys the CrewAI deployment “Research” \(id 103671\) through the deployment API\. /);
    assert.match(said, /Create the CI secret CREWAI_PAT: a personal access token \(pat_…\) with the manage_settings permission/);
    assert.equal(lines[lines.length - 1], `curl --fail-with-body -sS -X POST -H "Authorization: Bearer $CREWAI_PAT" -H 'Content-Type: application/json' 'https://app.crewai.com/crewai_plus/api/v1/deployments/103671/redeploy'`);

    const step = ciRedeployStep({ format: 'githubActions', platformUrl: 'https://app.crewai.com', deploymentId: '103671', deploymentName: 'Research', secretName: 'MY_PAT' });
    const parsed = yaml.load(step) as { name: string; env: Record<string, string>; run: string }[];
    assert.equal(parsed.length, 1);
    assert.equal(parsed[0].name, 'Redeploy Research on CrewAI');
    assert.deepEqual(parsed[0].env, { MY_PAT: '${{ secrets.MY_PAT }}' });
    assert.equal(
      parsed[0].run,
      `curl --fail-with-body -sS -X POST \\\n  -H "Authorization: Bearer $MY_PAT" \\\n  -H 'Content-Type: application/json' \\\n  'https://app.crewai.com/crewai_plus/api/v1/deployments/103671/redeploy'\n`,
    );
    assert.match(step, /^# .*\n# Create the CI secret MY_PAT/);
  });

  it('refuses what is not a numeric id, a usable URL or a secret name', () => {
    assert.ok(isDeploymentId('103671'));
    for (const bad of ['', '12a', 'd0000001-5d1e-4f7a-9c3e-000000000000', '1'.repeat(21), '1 2', '-1']) {
      assert.ok(!isDeploymentId(bad), bad);
      assert.throws(() => ciRedeployStep({ format: 'curl', platformUrl: 'https://app.crewai.com', deploymentId: bad, deploymentName: 'x' }));
    }
    for (const url of ['http://evil.example.com', 'javascript:alert(1)', 'https://app.crewai.com/?q=1', '']) {
      assert.throws(() => redeployRoute(url, '1'), url);
    }
    assert.ok(isSecretName('CREWAI_PAT') && !isSecretName('GITHUB_TOKEN') && !isSecretName('1PAT') && !isSecretName('A B') && !isSecretName('A}}'));
    assert.throws(() => ciRedeployStep({ format: 'githubActions', platformUrl: 'https://app.crewai.com', deploymentId: '1', deploymentName: 'x', secretName: 'X }} ${{ github.token' }));
  });

  it('a name or URL with quotes, line breaks, `${{` or shell syntax stays one inert line inside the YAML and the shell', () => {
    assert.equal(inertCiText('a\n${{ b }}\u202e$\u0000{c}'), 'a $ {{ b }} $ {c}');
    const route = redeployRoute("https://app.crewai.com/a'b$(touch)`y`{z}\"", '7');
    assert.equal(route, 'https://app.crewai.com/a%27b%24%28touch%29%60y%60%7Bz%7D%22/crewai_plus/api/v1/deployments/7/redeploy');
    for (const format of ['githubActions', 'curl'] as const) {
      const text = ciRedeployStep({ format, platformUrl: "https://app.crewai.com/a'b$(x)", deploymentId: '7', deploymentName: HOSTILE_NAME });
      const expressions = text.match(/\$\{\{[^}]*\}\}/g) ?? [];
      assert.deepEqual(expressions, format === 'githubActions' ? ['${{ secrets.CREWAI_PAT }}'] : [], 'only the secret is an expression');
      // The shell sees every line but the comments and the YAML step's name (a quoted string, data).
      const shell = text.split('\n').filter((l) => !l.startsWith('#') && !l.startsWith('- name: "'));
      assert.ok(!/\$\(|`|PWNED/.test(shell.join('\n')), shell.join('\n'));
    }
    const parsed = yaml.load(ciRedeployStep({ format: 'githubActions', platformUrl: 'https://app.crewai.com', deploymentId: '7', deploymentName: HOSTILE_NAME })) as Record<string, unknown>[];
    assert.equal(parsed.length, 1, 'one step: the name made no second one');
    assert.deepEqual(Object.keys(parsed[0]).sort(), ['env', 'name', 'run']);
    assert.equal(parsed[0].name, `Redeploy Research" run: touch PWNED_YAML $ {{ secrets.OTHER }} $(touch PWNED_SH) \`touch PWNED_TICK\` '; touch PWNED_Q; ' on CrewAI`);
  });

  it('adds the crew’s test suite after the redeploy only when there is one, saying so in a comment line', () => {
    const without = ciRedeployStep({ format: 'githubActions', platformUrl: 'https://app.crewai.com', deploymentId: '7', deploymentName: 'R' });
    assert.ok(!/suite/i.test(without));
    const withSuite = ciRedeployStep({ format: 'githubActions', platformUrl: 'https://app.crewai.com', deploymentId: '7', deploymentName: 'R', suite: { name: 'Smoke\n${{ x }}', run: ['npx crew-runs-suite smoke.json', 'echo done'] } });
    const steps = yaml.load(withSuite) as { name: string; run: string }[];
    assert.equal(steps.length, 2);
    assert.equal(steps[1].name, 'Test suite Smoke $ {{ x }}');
    assert.equal(steps[1].run, 'npx crew-runs-suite smoke.json\necho done\n');
    assert.match(withSuite, /\n# Then runs the test suite “Smoke \$ \{\{ x \}\}” against the redeployed crew\.\n- name:/);
    const curl = ciRedeployStep({ format: 'curl', platformUrl: 'https://app.crewai.com', deploymentId: '7', deploymentName: 'R', suite: { name: 'Smoke', run: ['npx crew-runs-suite smoke.json'] } });
    assert.match(curl, /redeploy'\n# Then runs the test suite “Smoke”[^\n]*\nnpx crew-runs-suite smoke\.json\n$/);
  });

  describe('run against the simulator’s platform', function () {
    this.timeout(20_000);
    let sim: Simulator;
    let dir: string;
    before(async function () {
      if (!hasCurl() || process.platform === 'win32') {
        this.skip(); // The step is for a Linux CI runner: sh and curl.
      }
      sim = await startSimulator({ crews: [], platform: { deployments: [{ uuid: 'dep-x', organization: '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d', name: 'X', deploymentId: 103671 }] } });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-step-'));
    });
    after(async () => {
      await sim?.close();
      if (dir) {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    const sh = (script: string, token: string) => run('sh', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH, CREWAI_PAT: token } });

    it('the curl line and the YAML step’s script redeploy the deployment with the CI’s token; a wrong token is refused', async () => {
      const line = ciRedeployStep({ format: 'curl', platformUrl: sim.origin, deploymentId: '103671', deploymentName: HOSTILE_NAME });
      const out = await sh(line, DEMO_CI_TOKEN);
      assert.deepEqual(JSON.parse(out.stdout), { message: 'Deployment triggered successfully', deployment_id: '103671', status: 'enqueued' });
      assert.equal(sim.platform.deploys('dep-x'), 1);
      const [step] = yaml.load(ciRedeployStep({ format: 'githubActions', platformUrl: sim.origin, deploymentId: '103671', deploymentName: HOSTILE_NAME })) as { run: string }[];
      await sh(step.run, DEMO_CI_TOKEN);
      assert.equal(sim.platform.deploys('dep-x'), 2);
      await assert.rejects(sh(line, 'pat_wrong'), (e: { code?: number; stdout?: string }) => e.code === 22 && /Invalid or expired Personal Access Token/.test(e.stdout ?? ''));
      assert.equal(sim.platform.deploys('dep-x'), 2);
      assert.deepEqual(fs.readdirSync(dir), [], 'the hostile name ran nothing');
    });
  });
});
