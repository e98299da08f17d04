// Desktop route: the same suite in a downloaded VS Code (needs internet to update.code.visualstudio.com).
// `npm run test:electron`, and main.ts delegates here on platforms other than Linux x64. The UI bridge
// is not available here (no Playwright page): tests that need it skip themselves.
import * as path from 'path';
import { runTests } from '@vscode/test-electron';

export async function runElectronTests(): Promise<number> {
  const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
  try {
    await runTests({
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: path.join(repoRoot, 'out', 'test', 'integration', 'suite', 'index'),
      launchArgs: [
        path.join(repoRoot, 'test', 'integration', 'fixtures', 'workspace'),
        '--disable-extensions',
        '--disable-workspace-trust',
      ],
      extensionTestsEnv: {
        CREW_RUNS_TEST_HOOKS: '1',
        CREW_RUNS_TEST_GREP: process.env.CREW_RUNS_TEST_GREP ?? '',
      },
    });
    return 0;
  } catch (error) {
    console.error(`[integration] ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (require.main === module) {
  void runElectronTests().then((code) => {
    process.exitCode = code;
  });
}
