// `npm test`: the whole test suite, in the order that wastes the least time on a fresh machine. The
// VS Code servers and Chromium the integration sessions need install first, in the background (they wait
// on the network and the disk); meanwhile the .vsix is built and checked, the development build made and
// the unit tests run. Then the integration sessions, side by side (lanes.ts), with lint beside them: its
// output is held and printed whole when it ends. The run fails if any step failed; a step that fails
// before the sessions start stops the run, like `a && b`.
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

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, output?: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', output ? 'pipe' : 'inherit', output ? 'pipe' : 'inherit'] });
    child.stdout?.setEncoding('utf8').on('data', (text: string) => output?.push(text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => output?.push(text));
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: ${signal ?? `exit ${code}`}`))));
  });
}

/**
 * A step that runs beside the integration sessions (lint): its commands one after another, their output
 * held and printed in one piece between its marker and its end marker when the step ends, so that no
 * session's lines come between them.
 */
async function heldStep(name: string, commands: [string, string[]][]): Promise<void> {
  const output: string[] = [];
  const from = Date.now();
  let failure: unknown;
  for (const [command, args] of commands) {
    try {
      await run(command, args, process.env, output);
    } catch (error) {
      failure = error;
      break;
    }
  }
  const header = `\n${STEP_MARKER} ${name} (${((from - started) / 1000).toFixed(0)} s in, beside the integration sessions, took ${((Date.now() - from) / 1000).toFixed(0)} s)\n`;
  const body = output.join('');
  process.stdout.write(`${header}${body}${body.endsWith('\n') || body === '' ? '' : '\n'}${STEP_MARKER} ${name} ended\n`);
  if (failure) {
    throw failure;
  }
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
  step('package');
  await run('node', ['esbuild.js', '--production']);
  await run(bin('vsce'), ['package', '--no-dependencies', '--out', 'crew-runs.vsix']);
  await run('node', ['out/scripts/checkPackage.js']);
  // The development build again (the package step left the production one in dist/): the sessions load it.
  await run('node', ['esbuild.js']);

  // The unit tests before the sessions, not beside them: a few hold a pure module's speed to a bound that
  // three sessions' load can break (ci-9: a 1 MB stream read in 6.8 s against 5 s). Lint has none.
  step('unit');
  for (const page of ['src/runView/page', 'src/batches/page', 'src/flowChat/page']) {
    await run(bin('tsc'), ['-p', page]);
  }
  await run(bin('mocha'), []);

  const checks = heldStep('lint', [
    [bin('eslint'), ['.']],
    [bin('depcruise'), ['src', '--config', '.dependency-cruiser.cjs']],
    // The bench is not run here, but it must still build against today's code.
    [bin('tsc'), ['-p', 'bench', '--noEmit']],
  ]);
  const integration = (async () => {
    await installed;
    step('integration');
    await run('node', ['out/test/integration/runner/main.js'], { ...process.env, CREW_RUNS_TEST_WITH_VSIX: path.join(repoRoot, 'crew-runs.vsix') });
  })();
  const failed = (await Promise.allSettled([checks, integration])).flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
  if (failed.length > 0) {
    throw new Error(failed.map((error) => (error instanceof Error ? error.message : String(error))).join('; '));
  }
  console.log(`${STEP_MARKER}s passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((error: unknown) => {
  console.error(`${STEP_MARKER}s stopped: ${error instanceof Error ? error.message : String(error)} (${((Date.now() - started) / 1000).toFixed(0)} s in)`);
  process.exitCode = 1;
});
