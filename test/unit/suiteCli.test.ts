// The suite runner for CI (`node dist/suite-cli.js`, src/suites/terminal/): the real bundle against the simulator —
// exit codes, JUnit written, the token never printed — and the runner's own decisions with a stand-in client.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewApiError } from '../../src/api/errors';
import type { StatusSnapshot } from '../../src/api/types';
import { startSimulator, type Simulator } from '../../src/simulator/server';
import { parseSuite } from '../../src/suites/core/suiteFile';
import { parseSuiteCliArgs, SuiteUsageError } from '../../src/suites/terminal/cliArgs';
import { runSuiteFromTerminal } from '../../src/suites/terminal/runSuite';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(repoRoot, 'dist', 'suite-cli.js');
const demoSuite = path.join(repoRoot, 'test', 'fixtures', 'suites', 'demo.crew-suite.yaml');

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('suite runner for CI (dist/suite-cli.js) against the simulator', function () {
  this.timeout(60_000);
  let sim: Simulator;
  let dir: string;
  let url: string;
  let token: string;
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'CREW_RUNS_TOKEN'));
    return { ...clean, ...extra };
  };

  before(async () => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: build it with node esbuild.js`);
    sim = await startSimulator({ timeScale: 0.01 });
    const echo = sim.crews.find((crew) => crew.id === 'echo-crew')!;
    url = echo.url;
    token = echo.orgToken;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suite-cli-'));
  });

  after(async () => {
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the demo suite: exit code 1 for its failing case, JUnit written, the token never printed', async () => {
    const junit = path.join(dir, 'results.xml');
    const { code, stdout, stderr } = await runCli([demoSuite, '--crew-url', url, '--junit', junit], env({ CREW_RUNS_TOKEN: token }));
    assert.equal(code, 1, stdout + stderr);
    assert.match(stdout, /✔ writes about its topic/);
    assert.match(stdout, /✔ answers in JSON/);
    assert.match(stdout, /✔ fails when asked to/);
    assert.match(stdout, /✘ sounds cheerful \(fails on purpose\)[\s\S]*contains: Expected the output to contain "cheerful"; it does not\./);
    assert.match(stdout, /Suite "Echo Crew": 3 passed, 1 failed/);
    assert.ok(!stdout.includes(token) && !stderr.includes(token), 'the token is never printed');
    const xml = fs.readFileSync(junit, 'utf8');
    assert.match(xml, /<testsuite name="Echo Crew" tests="4" failures="1" errors="0" skipped="0"/);
    assert.match(xml, /<testcase name="sounds cheerful \(fails on purpose\)"[^>]*>\s*<failure message="Expected the output to contain &quot;cheerful&quot;; it does not\." type="contains">/);
    assert.match(xml, /\[skipped\] judge: Skipped: no language model\./);
    assert.equal(sim.listRuns().length, 4, 'one run per case, each sent once');
  });

  it('exit code 0 when every case passes; the suite\'s own crew URL is used without --crew-url; a Markdown summary', async () => {
    const file = path.join(dir, 'passing.crew-suite.yaml');
    fs.writeFileSync(file, `crew: ${url}\ncases:\n  - name: ok\n    inputs: { topic: tea, tone: calm }\n    checks: { contains: tea }\n`);
    const markdown = path.join(dir, 'summary.md');
    const { code, stdout, stderr } = await runCli([file, '--markdown', markdown], env({ CREW_RUNS_TOKEN: token }));
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /Suite "passing": 1 passed, 0 failed/);
    assert.match(fs.readFileSync(markdown, 'utf8'), /^## Suite passing\n\n\*\*1 passed, 0 failed · /);
  });

  it('exit code 2, and why, without a token, for a crew named only by name, and for wrong arguments; nothing sent', async () => {
    const before = sim.listRuns().length;
    const noToken = await runCli([demoSuite, '--crew-url', url], env());
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /Set the environment variable CREW_RUNS_TOKEN/);
    const byName = await runCli([demoSuite], env({ CREW_RUNS_TOKEN: token }));
    assert.equal(byName.code, 2);
    assert.match(byName.stderr, /The suite names the crew "Echo Crew".*--crew-url URL/);
    const wrong = await runCli(['--concurrency', 'lots', demoSuite], env({ CREW_RUNS_TOKEN: token }));
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--concurrency needs a whole number from 1 to 16, got lots/);
    assert.equal(sim.listRuns().length, before);
  });

  it('a refused token is each case\'s error (exit 1), and the refused token is not printed', async () => {
    const wrongToken = 'wrong-token-0123456789abcdef';
    const { code, stdout, stderr } = await runCli([demoSuite, '--crew-url', url], env({ CREW_RUNS_TOKEN: wrongToken }));
    assert.equal(code, 1, stdout + stderr);
    assert.match(stdout, /! writes about its topic\n\s+The kickoff failed: /);
    assert.ok(!stdout.includes(wrongToken) && !stderr.includes(wrongToken));
  });
});

describe('suite runner decisions (stand-in client, no clock)', () => {
  const suite = parseSuite('cases:\n  - name: a\n    inputs: { topic: x }\n    checks: { contains: x }\n', 's').suite;
  const snapshot = (state: StatusSnapshot['state'], text?: string): StatusSnapshot =>
    ({ state, tasks: [], raw: {}, ...(text ? { finalOutput: { kind: 'markdown', text } } : {}) }) as StatusSnapshot;

  /** A clock that moves only when the runner sleeps. */
  function fakeTime() {
    let t = 0;
    return { now: () => t, sleep: async (ms: number) => void (t += ms) };
  }

  it('reads past network errors and not-yet-known runs until the run ends; a kickoff is sent once', async () => {
    let kickoffs = 0;
    const answers: (StatusSnapshot | Error)[] = [new CrewApiError('network', 'reset'), snapshot('notFound'), snapshot('running'), snapshot('succeeded', 'x marks')];
    const record = await runSuiteFromTerminal({
      suite,
      suiteFile: 's',
      crewUrl: 'http://127.0.0.1:1/c',
      concurrency: 2,
      timeoutSeconds: 600,
      report: () => undefined,
      ...fakeTime(),
      client: {
        kickoff: async () => `k${++kickoffs}`,
        getStatus: async () => {
          const next = answers.shift()!;
          if (next instanceof Error) {
            throw next;
          }
          return next;
        },
      },
    });
    assert.equal(kickoffs, 1);
    assert.equal(record.items[0].outcome, 'passed');
    assert.equal(record.items[0].runId, 'k1');
  });

  it('a failed kickoff is the item\'s error, never sent again; a run waiting for feedback is an error; the deadline ends a run as still running', async () => {
    const base = { suite, suiteFile: 's', crewUrl: 'http://127.0.0.1:1/c', concurrency: 1, report: () => undefined };
    let kickoffs = 0;
    const refused = await runSuiteFromTerminal({
      ...base,
      ...fakeTime(),
      timeoutSeconds: 60,
      client: {
        kickoff: async () => {
          kickoffs++;
          throw new CrewApiError('timeout', 'The crew did not answer in time');
        },
        getStatus: async () => assert.fail('no status without a kickoff'),
      },
    });
    assert.equal(kickoffs, 1);
    assert.deepEqual([refused.items[0].outcome, refused.items[0].error], ['error', 'The kickoff failed: The crew did not answer in time']);

    const waiting = await runSuiteFromTerminal({ ...base, ...fakeTime(), timeoutSeconds: 60, client: { kickoff: async () => 'k', getStatus: async () => snapshot('awaitingFeedback') } });
    assert.match(waiting.items[0].error!, /waits for human feedback/);

    let reads = 0;
    const slow = await runSuiteFromTerminal({
      ...base,
      ...fakeTime(),
      timeoutSeconds: 60,
      client: { kickoff: async () => 'k', getStatus: async () => (reads++, snapshot('running')) },
    });
    assert.equal(slow.items[0].outcome, 'failed');
    assert.match(slow.items[0].checks[0].message, /still running at the deadline/);
    assert.ok(reads > 3 && reads < 20, `backed off: ${reads} reads in 60 s`);
  });

  it('reads its arguments', () => {
    assert.deepEqual(parseSuiteCliArgs(['s.yaml', '--crew-url', 'http://x', '--junit', 'o.xml', '--timeout=30']), {
      suiteFile: 's.yaml',
      crewUrl: 'http://x',
      junitFile: 'o.xml',
      timeoutSeconds: 30,
    });
    assert.equal(parseSuiteCliArgs(['--help']), 'help');
    assert.throws(() => parseSuiteCliArgs([]), SuiteUsageError);
    assert.throws(() => parseSuiteCliArgs(['a', 'b']), /only one suite file/);
    assert.throws(() => parseSuiteCliArgs(['a', '--bogus']), SuiteUsageError);
  });
});
