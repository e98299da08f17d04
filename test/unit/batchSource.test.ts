import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_ROWS, MAX_SOURCE_BYTES } from '../../src/batches/core/tableBuilder';
import { parseTable } from '../../src/batches/core/tableReader';
import { canBeTable, localFile, localFileCanBeTable, readBatchSource } from '../../src/batches/core/source';

describe('Batch source files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-batch-source-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a 47 MB file by its size before reading a byte of it', async () => {
    let opened = false;
    const source = {
      size: async () => 47_300_000,
      read: () => {
        opened = true;
        return [Buffer.from('a\n1\n')];
      },
    };
    await assert.rejects(readBatchSource(source, 'csv'), { message: 'The file is 47.3 MB; a batch source can be at most 20 MB.' });
    assert.equal(opened, false);
    const file = path.join(dir, 'big.csv');
    fs.writeFileSync(file, 'topic\n');
    fs.truncateSync(file, 47_000_000);
    await assert.rejects(readBatchSource(localFile(file)), /47\.0 MB/);
  });

  it('stops at the limit when a file grows after its size was read', async () => {
    const chunk = Buffer.alloc(6_000_000, 'a');
    const source = {
      size: async () => 10,
      read: function* () {
        for (let i = 0; i < 5; i++) {
          yield chunk;
        }
      },
    };
    await assert.rejects(readBatchSource(source, 'csv'), { message: `The file is more than 20 MB; a batch source can be at most 20 MB.` });
  });

  it('streams a file of a million rows to the same table as its text, with multi-byte characters split across chunks', async () => {
    const text = `\uFEFFtopic,note\r\n${Array.from({ length: 2 * MAX_ROWS }, (_, i) => `t${i},€${i}\r\n`).join('')}${'"same, row",€€\r\n'.repeat(1_000_000 - 2 * MAX_ROWS)}`;
    const file = path.join(dir, 'rows.csv');
    fs.writeFileSync(file, text);
    assert.ok(fs.statSync(file).size > 15_000_000 && fs.statSync(file).size < MAX_SOURCE_BYTES);
    const table = await readBatchSource(localFile(file));
    assert.equal(table.format, 'csv');
    assert.equal(table.rows.length, MAX_ROWS);
    assert.equal(table.rowsLeftOut, 1_000_000 - MAX_ROWS);
    assert.deepEqual(table, parseTable(text));
    // Three-byte characters cut between chunks read back whole.
    const odd = { size: async () => 9, read: () => [Buffer.from([0x61, 0x0a, 0xe2]), Buffer.from([0x82]), Buffer.from([0xac, 0x0a])] };
    assert.deepEqual((await readBatchSource(odd, 'csv')).rows, [{ a: '€' }]);
  });
  it('offers as a batch source only files that can be tables: CSV, JSON Lines, and .json files that hold an array', async () => {
    assert.equal(canBeTable('topics.csv', ''), true);
    assert.equal(canBeTable('rows.jsonl', ''), true);
    assert.equal(canBeTable('rows.NDJSON', ''), true);
    assert.equal(canBeTable('rows.json', '\uFEFF\n  [ {"topic": "x"} ]'), true);
    assert.equal(canBeTable('settings.json', '{\n  "editor.tabSize": 2\n}'), false);
    assert.equal(canBeTable('settings.json', '// comments first\n{}'), false);
    assert.equal(canBeTable('notes.txt', '[1]'), false);
    const write = (name: string, text: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return file;
    };
    assert.equal(await localFileCanBeTable(write('settings.json', '{ "crewRuns.crews": [] }')), false);
    assert.equal(await localFileCanBeTable(write('rows.json', `\n\n[${'{"topic":"a"},'.repeat(100_000)}{"topic":"b"}]`)), true);
    assert.equal(await localFileCanBeTable(write('table.csv', 'topic\na\n')), true);
    assert.equal(await localFileCanBeTable(path.join(dir, 'missing.json')), false, 'a file that cannot be read is not offered');
  });
});
