import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadWithCodeCache } from '../../src/util/codeCache';

interface Loaded {
  answer: number;
  sibling: string;
  joined: string;
  self: string;
}

describe('code cache: a CommonJS file loaded through V8’s code cache', () => {
  let dir: string;
  let file: string;
  let cacheDir: string;
  const write = (answer: number) =>
    fs.writeFileSync(
      file,
      [
        `exports.answer = ${answer};`,
        "exports.sibling = require('./sibling.js').name;",
        "exports.joined = require('node:path').join('a', 'b');",
        'exports.self = __filename;',
        // Enough code that V8 has something worth caching.
        ...Array.from({ length: 200 }, (_, i) => `exports.f${i} = function (x) { return x * ${i} + ${answer}; };`),
      ].join('\n'),
    );
  /**
   * A load in a process of its own, as each extension host is (V8 also keeps compiled scripts in memory:
   * a second load in this process would not show what a new host gets).
   */
  const loadElsewhere = (persist: boolean): { fromCache: boolean; answer: number; persisted?: boolean } =>
    JSON.parse(
      execFileSync(process.execPath, [
        '-e',
        `const { loadWithCodeCache } = require(${JSON.stringify(require.resolve('../../src/util/codeCache'))});
         const loaded = loadWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)});
         (${persist} ? loaded.persist() : Promise.resolve(undefined)).then((persisted) =>
           console.log(JSON.stringify({ fromCache: loaded.fromCache, answer: loaded.exports.answer, persisted })));`,
      ]).toString(),
    ) as { fromCache: boolean; answer: number; persisted?: boolean };
  const cacheFiles = () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-code-cache-'));
    file = path.join(dir, 'core.js');
    cacheDir = path.join(dir, 'cache');
    fs.writeFileSync(path.join(dir, 'sibling.js'), "exports.name = 'sibling';");
    write(41);
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads as require would: its exports, its own relative requires, Node’s modules, its __filename', () => {
    const loaded = loadWithCodeCache<Loaded>(file, cacheDir);
    assert.deepEqual(Object.keys(loaded.exports), ['answer', 'sibling', 'joined', 'self', ...Array.from({ length: 200 }, (_, i) => `f${i}`)]);
    assert.equal(loaded.exports.answer, 41);
    assert.equal(loaded.exports.sibling, 'sibling');
    assert.equal(loaded.exports.joined, path.join('a', 'b'));
    assert.equal(loaded.exports.self, file);
    assert.equal(loaded.fromCache, false, 'nothing saved yet');
  });

  it('the next host takes what the first saved', () => {
    assert.deepEqual(loadElsewhere(true), { fromCache: false, answer: 41, persisted: true });
    assert.equal(cacheFiles().length, 1);
    assert.deepEqual(loadElsewhere(true), { fromCache: true, answer: 41, persisted: true }, 'taken; nothing to save');
    assert.equal(cacheFiles().length, 1);
  });

  it('a changed file is compiled afresh, never run from the old cache, and its cache replaces the old one', () => {
    loadElsewhere(true);
    const before = cacheFiles();
    write(42); // Same length: V8's own check of the source would not tell them apart.
    assert.deepEqual(loadElsewhere(true), { fromCache: false, answer: 42, persisted: true });
    const after = cacheFiles();
    assert.equal(after.length, 1, 'the old cache is gone');
    assert.notDeepEqual(after, before);
    assert.deepEqual(loadElsewhere(false), { fromCache: true, answer: 42 });
  });

  it('a damaged cache means a normal compile, with the same exports, and is saved again', () => {
    loadElsewhere(true);
    const [saved] = cacheFiles();
    fs.writeFileSync(path.join(cacheDir, saved), Buffer.from('not a code cache at all'));
    assert.deepEqual(loadElsewhere(true), { fromCache: false, answer: 41, persisted: true });
    assert.deepEqual(loadElsewhere(false), { fromCache: true, answer: 41 });
  });

  it('a file that is not all ASCII is read as UTF-8, from the cache too', () => {
    fs.writeFileSync(file, ["exports.text = 'Run · output… ↔ ✓';", 'exports.pattern = / · /.test(exports.text);'].join('\n'));
    const read = () =>
      JSON.parse(
        execFileSync(process.execPath, [
          '-e',
          `const { loadWithCodeCache } = require(${JSON.stringify(require.resolve('../../src/util/codeCache'))});
           const loaded = loadWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)});
           loaded.persist().then(() => console.log(JSON.stringify({ fromCache: loaded.fromCache, text: loaded.exports.text, pattern: loaded.exports.pattern })));`,
        ]).toString(),
      ) as { fromCache: boolean; text: string; pattern: boolean };
    assert.deepEqual(read(), { fromCache: false, text: 'Run · output… ↔ ✓', pattern: true });
    assert.deepEqual(read(), { fromCache: true, text: 'Run · output… ↔ ✓', pattern: true });
  });

  it('a cache that cannot be saved leaves the module working and says so', async () => {
    fs.writeFileSync(cacheDir, 'a file where the folder should be');
    const loaded = loadWithCodeCache<Loaded>(file, cacheDir);
    assert.equal(loaded.exports.answer, 41);
    assert.equal(await loaded.persist(), false);
  });
});
