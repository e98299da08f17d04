// The architecture lint's rules (.dependency-cruiser.cjs) on small trees of their own: the project's config run by the
// real dependency-cruiser, as `npm run lint` runs it, so a rule that stopped biting fails here.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const repoRoot = path.resolve(__dirname, '../../..');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Writes `files` (paths under the temp tree) and runs the project's rules on its src/; the violations found. */
async function violationsOf(files: Record<string, string>): Promise<Violation[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-rules-'));
  try {
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'commonjs', target: 'es2022' }, include: ['src'] }));
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    const depcruise = path.join(repoRoot, 'node_modules', '.bin', 'depcruise');
    const { stdout } = await promisify(execFile)(depcruise, ['src', '--config', path.join(repoRoot, '.dependency-cruiser.cjs'), '--output-type', 'json'], { cwd: dir }).catch(
      // It exits non-zero when it finds violations: its report is still on stdout.
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const platformAccount = 'export interface PlatformAccount { signedIn: boolean }\n';
const sharedServices = "import type { PlatformAccount } from './platform/platformServices';\nexport interface Services { account: PlatformAccount }\n";

describe('architecture rules (npm run lint)', function () {
  this.timeout(60_000);

  it('fail a type-only import that climbs through a shared file: crews/ reaching platform/ by way of services.ts', async () => {
    const violations = await violationsOf({
      'src/platform/platformServices.ts': platformAccount,
      'src/services.ts': sharedServices,
      'src/crews/crewCommands.ts': "import type { Services } from '../services';\nexport const ready = (s: Services) => s.account.signedIn;\n",
    });
    assert.deepEqual(
      violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
      ['crews-never-reach-platform: src/crews/crewCommands.ts → src/platform/platformServices.ts'],
    );
  });

  it('pass the same tree when the lower feature is handed a narrow interface of its own instead', async () => {
    const violations = await violationsOf({
      'src/platform/platformServices.ts': platformAccount,
      'src/services.ts': sharedServices,
      'src/crews/crewServices.ts': 'export interface CrewServices { crewCount: number }\n',
      'src/crews/crewCommands.ts': "import type { CrewServices } from './crewServices';\nexport const some = (s: CrewServices) => s.crewCount > 0;\n",
    });
    assert.deepEqual(violations, []);
  });

  it('fail a direct type-only import from a higher feature (runs/ naming a kickoff type)', async () => {
    const violations = await violationsOf({
      'src/kickoff/kickoffSteps.ts': 'export interface Step { name: string }\n',
      'src/runs/runCommands.ts': "import type { Step } from '../kickoff/kickoffSteps';\nexport const named = (s: Step) => s.name;\n",
    });
    assert.ok(
      violations.some((v) => v.rule.name === 'runs-below-runView' && v.to === 'src/kickoff/kickoffSteps.ts'),
      JSON.stringify(violations),
    );
  });
});
