import * as assert from 'node:assert/strict';
import { mapColumns } from '../../src/batches/mapping';
import { csvField, formatOfFileName, parseTable, sniffFormat } from '../../src/batches/parse';

describe('Batch sources', () => {
  it('reads CSV with a header, quoted fields with commas, doubled quotes and line breaks, CRLF and a BOM', () => {
    const text = '\uFEFFtopic,audience\r\n"AI, in practice","says ""hi"""\r\nplain,"two\nlines"\r\n\r\nlast,x';
    const table = parseTable(text, 'csv');
    assert.deepEqual(table.columns, ['topic', 'audience']);
    assert.deepEqual(table.rows, [
      { topic: 'AI, in practice', audience: 'says "hi"' },
      { topic: 'plain', audience: 'two\nlines' },
      { topic: 'last', audience: 'x' },
    ]);
    assert.deepEqual(table.problems, []);
  });

  it('lists CSV records with the wrong number of fields by their line, and refuses a header with a name twice', () => {
    const table = parseTable('a,b\n1,2\n"x\ny",2,3\n4,5', 'csv');
    assert.deepEqual(table.rows, [{ a: '1', b: '2' }, { a: '4', b: '5' }]);
    assert.deepEqual(table.problems, [{ line: 3, message: 'Has 3 fields; the header has 2.' }]);
    assert.equal(parseTable('a,a\n1,2', 'csv').rows.length, 0);
    assert.match(parseTable('a,a\n1,2', 'csv').problems[0].message, /names "a" twice/);
  });

  it('reads JSON Lines (values become text, bad lines listed) and JSON arrays of objects', () => {
    const lines = parseTable('{"topic":"a","n":3}\n\nnot json\n[1]\n{"topic":"b","extra":{"k":true}}', 'jsonl');
    assert.deepEqual(lines.rows, [{ topic: 'a', n: '3' }, { topic: 'b', extra: '{"k":true}' }]);
    assert.deepEqual(lines.columns, ['topic', 'n', 'extra']);
    assert.deepEqual(lines.problems.map((p) => p.line), [3, 4]);
    const array = parseTable('[{"topic":"a"},{"topic":null},"x"]', 'json');
    assert.deepEqual(array.rows, [{ topic: 'a' }, { topic: '' }]);
    assert.deepEqual(array.problems, [{ line: 3, message: 'Not an object of input names to values.' }]);
    assert.equal(parseTable('{"a":1}', 'json').rows.length, 0, 'an object is not an array');
  });

  it('knows the format from the file name, else from the text', () => {
    assert.equal(formatOfFileName('cases.JSONL'), 'jsonl');
    assert.equal(formatOfFileName('cases.csv'), 'csv');
    assert.equal(formatOfFileName('cases.json'), 'json');
    assert.equal(formatOfFileName('cases.txt'), undefined);
    assert.equal(sniffFormat(' [{}]'), 'json');
    assert.equal(sniffFormat('{"a":1}\n'), 'jsonl');
    assert.equal(sniffFormat('a,b\n'), 'csv');
  });

  it('writes CSV fields that read back the same', () => {
    const values = ['plain', 'a, b', 'say "x"', 'two\nlines', ' padded ', ''];
    const text = `${values.map((_, i) => `c${i}`).join(',')}\n${values.map(csvField).join(',')}\n`;
    assert.deepEqual(Object.values(parseTable(text, 'csv').rows[0]), values);
  });

  it('maps columns to inputs (exact, then ignoring case) and lists rows missing a required input', () => {
    const mapped = mapColumns(['Topic', 'audience', 'notes'], [
      { Topic: 'a', audience: 'x', notes: 'n' },
      { Topic: ' ', audience: 'y', notes: '' },
      { Topic: 'c', audience: '', notes: '' },
    ], [{ name: 'topic' }, { name: 'audience' }, { name: 'id' }]);
    assert.deepEqual(mapped.inputs[0], { topic: 'a', audience: 'x' }, 'an empty optional id is left out; other columns are not sent');
    assert.deepEqual(mapped.ignoredColumns, ['notes']);
    assert.deepEqual(mapped.unmappedInputs, ['id']);
    assert.deepEqual(mapped.problems, [{ row: 1, missing: ['topic'] }, { row: 2, missing: ['audience'] }]);
  });

  it('takes required flags from the crew\'s input spec, not from the names', () => {
    const mapped = mapColumns(['topic', 'tone', 'id'], [
      { topic: 'a', tone: '', id: '' },
      { topic: '', tone: 'dry', id: 'x' },
    ], [{ name: 'topic', required: true }, { name: 'tone', required: false, default: 'plain' }, { name: 'id', required: true }]);
    assert.deepEqual(mapped.inputs[0], { topic: 'a', id: '' }, 'an empty optional input is left out; a required id is sent');
    assert.deepEqual(mapped.problems, [{ row: 0, missing: ['id'] }, { row: 1, missing: ['topic'] }]);
  });

  it('sends every column when the crew does not list its inputs', () => {
    const mapped = mapColumns(['a'], [{ a: '1' }], undefined);
    assert.deepEqual(mapped.inputs, [{ a: '1' }]);
    assert.deepEqual(mapped.problems, []);
  });
});
