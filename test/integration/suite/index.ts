// Entry the extension host loads (extensionTestsPath): runs every *.test.js beside this file with
// mocha and rejects on failures, which the runner turns into a non-zero exit.
import * as fs from 'fs';
import * as path from 'path';
import { format } from 'util';
import MochaImport from 'mocha';
import { ui } from '../helpers/ui';
import { RESULT_MARKER, SUITE_START_MARKER, type SuiteResult } from '../helpers/uiBridgeProtocol';

// mocha is an ES module package: require() yields the class itself (Node 24) or a namespace
// whose default is the class (Node 20/22), so the default import may be one level too high.
const Mocha: typeof MochaImport = (MochaImport as typeof MochaImport & { default?: typeof MochaImport }).default ?? MochaImport;

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

export function run(): Promise<void> {
  console.log(SUITE_START_MARKER);
  // The host forwards console.log's arguments unformatted; without this the spec reporter's
  // lines arrive as "%s (%dms)" templates. Colour codes go too: mocha's ✔/✖ symbols carry them
  // whenever CI=true, even with `color: false`.
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(format(...args).replace(/\x1b\[[0-9;]*m/g, ''));

  const grep = process.env.CREW_RUNS_TEST_GREP || undefined;
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 60_000, grep });
  for (const file of testFiles(__dirname).filter(hasSource)) {
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
    }
  });

  if (grep) {
    console.log(`only tests matching ${JSON.stringify(grep)} (CREW_RUNS_TEST_GREP)`);
  }

  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const stats = runner.stats;
        const result: SuiteResult = {
          passed: stats?.passes ?? 0,
          failed: stats?.failures ?? failures,
          pending: stats?.pending ?? 0,
        };
        console.log(`${RESULT_MARKER}${JSON.stringify(result)}`);
        if (failures > 0) {
          reject(new Error(`${failures} integration test(s) failed`));
        } else {
          resolve();
        }
      });
    } catch (error) {
      // A test file that throws while loading lands here.
      console.error(error);
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
