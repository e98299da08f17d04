// Suite files read on a worker thread (src/suites/core/parseThread.ts): the same result as on this thread, one file
// at a time, a file over its time limit or a crashed worker said as a problem (never a hang), and the bundle the
// extension loads (dist/suites.js) works as the worker's script, without vscode.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SuiteParser } from '../../src/suites/core/parseThread';
import { parseSuite } from '../../src/suites/core/suiteFile';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const demo = fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'suites', 'demo.crew-suite.yaml'), 'utf8');
const broken = 'name: x\ncases:\n  - name: a\n    checks: { smells: nice }\n';

describe('suite reader on a worker thread', function () {
  this.timeout(30_000);

  it('gives what parseSuite gives, for every file queued, with one worker', async () => {
    const parser = new SuiteParser();
    try {
      const results = await Promise.all([parser.parse(demo, 'demo'), parser.parse(broken, 'broken'), parser.parse(demo, 'again')]);
      assert.deepEqual(results[0], parseSuite(demo, 'demo'));
      assert.deepEqual(results[1], parseSuite(broken, 'broken'));
      assert.equal(results[2].suite.cases.length, 4);
      assert.equal(parser.started, 1);
    } finally {
      await parser.dispose();
    }
  });

  it('a file over its time limit is given up and said; the next file gets a new worker', async () => {
    const parser = new SuiteParser({ timeoutMs: 1 });
    try {
      const first = await parser.parse(demo, 'slow');
      assert.deepEqual(first.suite.cases, []);
      assert.match(first.problems[0].message, /Reading the suite file took longer than 0 s: it was given up\./);
      await parser.parse(demo, 'slow too');
      assert.equal(parser.started, 2);
    } finally {
      await parser.dispose();
    }
  });

  it('a worker that cannot start is a problem of each file, not a hang', async () => {
    const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'suite-parser-')), 'broken.js');
    fs.writeFileSync(script, "throw new Error('boom');\n");
    const parser = new SuiteParser({ script });
    try {
      const result = await parser.parse(demo, 'x');
      assert.match(result.problems[0].message, /The suite reader stopped \(boom\)/);
    } finally {
      await parser.dispose();
    }
  });

  it('dist/suites.js serves as the worker (no vscode there), its words translated with the bundle it is handed', async () => {
    const script = path.join(repoRoot, 'dist', 'suites.js');
    assert.ok(fs.existsSync(script), `${script} is missing: build it with node esbuild.js`);
    const message = 'Unknown check type "{0}": the checks are {1}.';
    const parser = new SuiteParser({ script, l10nContents: { [message]: 'Type de vérification inconnu « {0} »' } });
    try {
      const result = await parser.parse(broken, 'broken');
      assert.deepEqual(result.problems.map((p) => p.message), ['Type de vérification inconnu « smells »']);
    } finally {
      await parser.dispose();
    }
  });
});
