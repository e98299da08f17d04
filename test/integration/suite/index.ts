// Entry the extension host loads (extensionTestsPath): runs every *.test.js beside this file with
// mocha and rejects on failures, which the runner turns into a non-zero exit. The browser runner
// may choose the files of a session (CREW_RUNS_TEST_ONLY_FILES / CREW_RUNS_TEST_SKIP_FILES), and
// runs this entry again in every phase of a suite that reloads the window (helpers/reload.ts).
import * as fs from 'fs';
import * as path from 'path';
import { format } from 'util';
import type MochaImport from 'mocha';
import * as vscode from 'vscode';
import { reload, setPhaseStatsProvider } from '../helpers/reload';
import { ui } from '../helpers/ui';
import { FAILURE_MARKER, FILE_TIMES_MARKER, MOCHA_DIR_ENV, ONLY_FILES_ENV, RESULT_MARKER, SKIP_FILES_ENV, SKIP_TESTS_ENV, SUITE_START_MARKER, type SuiteResult } from '../helpers/uiBridgeProtocol';

// The project's mocha, or the one the runner installed beside an older server: mocha 12 require()s
// ES modules, which the Node of VS Code 1.96 (20.18.1, the floor session) cannot.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loaded = require(process.env[MOCHA_DIR_ENV] || 'mocha') as typeof MochaImport & { default?: typeof MochaImport };
// mocha 12 is an ES module package: require() yields the class itself (Node 24) or a namespace
// whose default is the class (Node 20/22), so the default import may be one level too high.
const Mocha: typeof MochaImport = loaded.default ?? loaded;

/** out/ → repo root: compiled tests map back to test/integration/suite/<same path>.ts. */
const sourceDir = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'integration', 'suite');

/** tsc never deletes outputs: a compiled test whose .ts is gone would still run. */
function hasSource(compiled: string): boolean {
  const source = path.join(sourceDir, path.relative(__dirname, compiled)).replace(/\.js$/, '.ts');
  if (fs.existsSync(source)) {
    return true;
  }
  console.log(`skipping stale ${path.relative(process.cwd(), compiled)}: ${source} no longer exists`);
  return false;
}

function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? testFiles(full) : entry.name.endsWith('.test.js') ? [full] : [];
    })
    .sort();
}

/** Compiled test files relative to this folder, as the runner names them. */
function fileList(env: string): string[] | undefined {
  const value = process.env[env];
  return value ? value.split(',').map((name) => name.trim()).filter(Boolean) : undefined;
}

function chosen(compiled: string): boolean {
  const name = path.relative(__dirname, compiled).split(path.sep).join('/');
  const only = fileList(ONLY_FILES_ENV);
  return (!only || only.includes(name)) && !(fileList(SKIP_FILES_ENV) ?? []).includes(name);
}

export function run(): Promise<void> {
  const phase = reload.available() ? reload.phase() : 0;
  // Which VS Code and Node this host really is: the floor session is only worth what it ran on.
  console.log(`${SUITE_START_MARKER} ${JSON.stringify({ phase, pid: process.pid, vscode: vscode.version, node: process.versions.node })}`);
  // The host forwards console.log's arguments unformatted; without this the spec reporter's
  // lines arrive as "%s (%dms)" templates. Colour codes go too: mocha's ✔/✖ symbols carry them
  // whenever CI=true, even with `color: false`.
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(format(...args).replace(/\x1b\[[0-9;]*m/g, ''));

  const grep = process.env.CREW_RUNS_TEST_GREP || undefined;
  // A session may leave some tests of its files out; tests asked for by name run regardless.
  const skip = grep ? undefined : process.env[SKIP_TESTS_ENV] || undefined;
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 60_000, grep: grep ?? skip, invert: skip !== undefined });
  for (const file of testFiles(__dirname).filter(chosen).filter(hasSource)) {
    mocha.addFile(file);
  }
  // A picture of the workbench at the moment a test failed, while the page still shows it.
  mocha.suite.afterEach(async function () {
    const test = this.currentTest;
    if (test?.state === 'failed' && ui.available()) {
      const name = `failed-${test.fullTitle().replace(/[^\w-]+/g, '-').slice(0, 80)}`;
      try {
        const shot = await ui.screenshot(name);
        console.log(`      failure screenshot: ${path.relative(process.cwd(), shot.path)}`);
      } catch (error) {
        console.log(`      (no failure screenshot: ${error instanceof Error ? error.message : String(error)})`);
      }
      // Where the last keys went and who took the keyboard: what a load race leaves behind.
      const recent = await ui.focusLog('recent').catch(() => undefined);
      for (const entry of recent?.entries.slice(-25) ?? []) {
        console.log(`      ${entry.atMs ?? ''} ms ${entry.event}${entry.key ? ` ${entry.key}` : ''} ${entry.element}${entry.inQuickInput ? ' (quick input)' : ''}${entry.movedBy ? `, moved by ${entry.movedBy}` : ''}`);
      }
    }
  });

  if (grep) {
    console.log(`only tests matching ${JSON.stringify(grep)} (CREW_RUNS_TEST_GREP)`);
  }

  return new Promise((resolve, reject) => {
    try {
      // Where the time goes, per file: the runner sums it up per session (the slowest first).
      const fileSeconds: Record<string, number> = {};
      const suiteStarts = new Map<MochaImport.Suite, number>();
      const runner = mocha.run((failures) => {
        console.log(`${FILE_TIMES_MARKER}${JSON.stringify(fileSeconds)}`);
        const stats = runner.stats;
        const result: SuiteResult = {
          passed: stats?.passes ?? 0,
          failed: stats?.failures ?? failures,
          pending: stats?.pending ?? 0,
        };
        console.log(`${RESULT_MARKER}${JSON.stringify({ ...result, phase })}`);
        if (failures > 0) {
          reject(new Error(`${failures} integration test(s) failed`));
        } else {
          resolve();
        }
      });
      // Said at once, in one line the runner repeats at the very end: mocha's own summary comes
      // last only in a phase no reload cuts short, and CI keeps only the tail of the output.
      runner.on('suite', (suite) => suiteStarts.set(suite, Date.now()));
      runner.on('suite end', (suite) => {
        const begun = suiteStarts.get(suite);
        if (begun !== undefined && suite.file && suite.parent?.root) {
          const file = path.relative(__dirname, suite.file).split(path.sep).join('/');
          fileSeconds[file] = Math.round(((fileSeconds[file] ?? 0) + (Date.now() - begun) / 1000) * 10) / 10;
        }
      });
      runner.on('fail', (test, error: Error) => console.log(`${FAILURE_MARKER}${test.fullTitle()}: ${error.message.split('\n')[0].slice(0, 300)}`));
      // A reload cuts this phase short: its counts so far are logged before the host goes.
      setPhaseStatsProvider(() => ({ passed: runner.stats?.passes ?? 0, failed: runner.stats?.failures ?? 0, pending: runner.stats?.pending ?? 0 }));
    } catch (error) {
      // A test file that throws while loading lands here.
      console.error(error);
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
