// `npm test`: the whole test suite, in the order that wastes the least time on a fresh machine. The
// VS Code servers and Chromium the integration sessions need are installed while lint and the unit
// tests run (installs wait on the network and the disk, those on the CPU); the .vsix is built and
// checked next; then the integration runner runs every session, the packaged extension's among them,
// side by side (test/integration/runner/lanes.ts). Stops at the first step that fails, like `a && b`.
// `tsc -p .` has run before this (package.json), so out/ is current for every step.
import { spawn } from 'child_process';
import * as path from 'path';
import { CURRENT_SERVER, FLOOR_SERVER, ensureChromium, ensureServerInstalled } from '../test/integration/runner/install';

const repoRoot = path.resolve(__dirname, '..', '..');
const cacheDir = path.resolve(process.env.CREW_RUNS_TEST_CACHE_DIR ?? path.join(repoRoot, '.vscode-test'));
const started = Date.now();

/** Starts a step's line: `.ci/run` reads its closing line per step from what follows these. */
export const STEP_MARKER = '[test] step';

function step(name: string): void {
  console.log(`\n${STEP_MARKER} ${name} (${((Date.now() - started) / 1000).toFixed(0)} s in)`);
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: ${signal ?? `exit ${code}`}`))));
  });
}

const bin = (name: string) => path.join(repoRoot, 'node_modules', '.bin', name);

async function main(): Promise<void> {
  // Only on Linux x64 does the runner use these (elsewhere it delegates to @vscode/test-electron).
  const integrationHere = process.platform === 'linux' && process.arch === 'x64';
  const installed = integrationHere
    ? Promise.all([ensureServerInstalled(cacheDir, CURRENT_SERVER), ensureServerInstalled(cacheDir, FLOOR_SERVER), ensureChromium()])
    : Promise.resolve();
  installed.catch(() => undefined); // Awaited below, after the steps that do not need it.
  // A step that fails ends the run once the installs have settled: a half-done install left running
  // would race the next run's (install.ts redoes one that never finished).
  const settle = () => installed.then(() => undefined, () => undefined);
  try {
    await steps(installed);
  } finally {
    await settle();
  }
}

async function steps(installed: Promise<unknown>): Promise<void> {
  step('lint');
  await run(bin('eslint'), ['.']);
  await run(bin('depcruise'), ['src', '--config', '.dependency-cruiser.cjs']);

  step('unit');
  for (const page of ['src/runView/page', 'src/batches/page', 'src/flowChat/page']) {
    await run(bin('tsc'), ['-p', page]);
  }
  await run(bin('mocha'), []);

  step('package');
  await run('node', ['esbuild.js', '--production']);
  await run(bin('vsce'), ['package', '--no-dependencies', '--out', 'crew-runs.vsix']);
  await run('node', ['out/scripts/checkPackage.js']);

  step('integration');
  // The development build again (the package step left the production one in dist/): the sessions load it.
  await run('node', ['esbuild.js']);
  await installed;
  await run('node', ['out/test/integration/runner/main.js'], { ...process.env, CREW_RUNS_TEST_WITH_VSIX: path.join(repoRoot, 'crew-runs.vsix') });
  console.log(`${STEP_MARKER}s passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((error: unknown) => {
  console.error(`${STEP_MARKER}s stopped: ${error instanceof Error ? error.message : String(error)} (${((Date.now() - started) / 1000).toFixed(0)} s in)`);
  process.exitCode = 1;
});
