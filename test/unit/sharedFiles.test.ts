// The machine's shared files (src/storage/sharedFiles.ts) against real files and real concurrent processes: every
// change is made from what is saved, under the file's lock, so none is lost, and a reader never meets half a file.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { SharedFiles } from '../../src/storage/sharedFiles';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('SharedFiles', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-shared-files-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('four processes adding 25 each to one counter: 100, no change lost', async () => {
    const writer = path.join(__dirname, 'helpers', 'sharedFilesWriter.js');
    await Promise.all([1, 2, 3, 4].map(() => promisify(execFile)(process.execPath, [writer, dir, '25'])));
    const files = new SharedFiles(dir, quiet);
    assert.equal((JSON.parse((await files.read('counter.json'))!) as { count: number }).count, 100);
    // Written atomically: no temp file left beside it.
    assert.deepEqual(fs.readdirSync(dir).filter((name) => name !== 'locks'), ['counter.json']);
  });

  it('hands the update what is saved now, not what this window read before', async () => {
    const a = new SharedFiles(dir, quiet);
    const b = new SharedFiles(dir, quiet);
    await a.change('list.json', () => JSON.stringify(['a']));
    await b.change('list.json', (saved) => JSON.stringify([...(JSON.parse(saved!) as string[]), 'b']));
    const seen: (string | undefined)[] = [];
    await a.change('list.json', (saved) => (seen.push(saved), JSON.stringify([...(JSON.parse(saved!) as string[]), 'a2'])));
    assert.deepEqual(seen, ['["a","b"]']);
    assert.deepEqual(JSON.parse((await b.read('list.json'))!), ['a', 'b', 'a2']);
  });

  it('reads a file that is not there as undefined, and one that cannot be read as undefined with a warning', async () => {
    const warnings: string[] = [];
    const files = new SharedFiles(dir, { ...quiet, warn: (m) => warnings.push(m) });
    assert.equal(await files.read('none.json'), undefined);
    assert.deepEqual(warnings, []);
    fs.mkdirSync(path.join(dir, 'folder.json')); // EISDIR
    assert.equal(await files.read('folder.json'), undefined);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /cannot read folder\.json/);
  });
});
