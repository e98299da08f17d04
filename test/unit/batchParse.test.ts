import * as assert from 'node:assert/strict';
import { mapColumns } from '../../src/batches/core/mapping';
import { csvField } from '../../src/batches/core/export';
import { MAX_COLUMNS, MAX_DEPTH, MAX_PROBLEMS, MAX_ROWS, MAX_SOURCE_BYTES } from '../../src/batches/core/tableBuilder';
import { formatOfFileName, parseTable, sniffFormat, TableReader } from '../../src/batches/core/tableReader';

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

  it('reads JSON Lines (values keep their types, bad lines listed) and JSON arrays of objects', () => {
    const lines = parseTable('{"topic":"a","n":3}\n\nnot json\n[1]\n{"topic":"b","extra":{"k":true}}', 'jsonl');
    assert.deepEqual(lines.rows, [{ topic: 'a', n: 3 }, { topic: 'b', extra: { k: true } }]);
    assert.deepEqual(lines.columns, ['topic', 'n', 'extra']);
    assert.deepEqual(lines.problems.map((p) => p.line), [3, 4]);
    const array = parseTable('[{"topic":"a"},{"topic":null},"x"]', 'json');
    assert.deepEqual(array.rows, [{ topic: 'a' }, { topic: '' }]);
    assert.deepEqual(array.problems, [{ line: 3, message: 'Not an object of input names to values.' }]);
    assert.equal(parseTable('{"a":1}', 'json').rows.length, 0, 'an object is not an array');
  });

  it('stops at the row cap: a million CSV rows give the first 10,000 and say how many more the file has', () => {
    const count = 1_000_000;
    // Distinct rows up to past the cap, then one row many times (cheap to build).
    const text = `topic,n\n${Array.from({ length: 2 * MAX_ROWS }, (_, i) => `t${i},${i}\n`).join('')}${'same topic,a row\n'.repeat(count - 2 * MAX_ROWS)}`;
    assert.ok(text.length > 10_000_000 && text.length < MAX_SOURCE_BYTES);
    const table = parseTable(text, 'csv');
    assert.equal(table.rows.length, MAX_ROWS);
    assert.deepEqual(table.rows[MAX_ROWS - 1], { topic: `t${MAX_ROWS - 1}`, n: String(MAX_ROWS - 1) });
    assert.equal(table.rowsLeftOut, count - MAX_ROWS);
    assert.deepEqual(table.problems, [{ line: MAX_ROWS + 2, message: `A batch takes at most ${MAX_ROWS} rows: ${count - MAX_ROWS} more rows in the file are left out.` }]);
  });

  it('stops at the row cap in JSON Lines and JSON arrays too, without parsing the rest', () => {
    const count = 400_000;
    const objects = [...Array.from({ length: 2 * MAX_ROWS }, (_, i) => `{"topic":"t${i}"}`), ...Array<string>(count - 2 * MAX_ROWS).fill('{"topic":"same"}')];
    // Past the cap nothing is parsed: a bad line there is a row left out, not a problem.
    const lines = parseTable(`${objects.join('\n')}\nnot json\n`, 'jsonl');
    assert.equal(lines.rows.length, MAX_ROWS);
    assert.equal(lines.rowsLeftOut, count + 1 - MAX_ROWS);
    assert.deepEqual(lines.problems.map((p) => p.line), [MAX_ROWS + 1]);
    const array = parseTable(`[${objects.join(',\n')}]`, 'json');
    assert.equal(array.rows.length, MAX_ROWS);
    assert.deepEqual(array.rows[0], { topic: 't0' });
    assert.equal(array.rowsLeftOut, count - MAX_ROWS);
    assert.match(array.problems[0].message, new RegExp(`${count - MAX_ROWS} more rows`));
  });

  it('lists the first 100 problems and counts the rest ("… and N more")', () => {
    const bad = 5_000;
    const table = parseTable(`${'not json\n'.repeat(bad)}{"a":1}\n`, 'jsonl');
    assert.deepEqual(table.rows, [{ a: 1 }]);
    assert.equal(table.problems.length, MAX_PROBLEMS + 1);
    assert.deepEqual(table.problems[MAX_PROBLEMS - 1], { line: MAX_PROBLEMS, message: 'Not valid JSON.' });
    assert.deepEqual(table.problems[MAX_PROBLEMS], { line: MAX_PROBLEMS + 1, message: `… and ${bad - MAX_PROBLEMS} more lines not read.` });
    assert.equal(table.problemsLeftOut, bad - MAX_PROBLEMS);
    const csv = parseTable(`a,b\n${'1,2,3\n'.repeat(bad)}`, 'csv');
    assert.equal(csv.problems.length, MAX_PROBLEMS + 1);
    assert.equal(csv.problemsLeftOut, bad - MAX_PROBLEMS);
  });

  it('refuses a 47 MB text by its size, naming the limit and the size', () => {
    const text = `{"topic":"${'x'.repeat(47_000_000)}"}\n`;
    assert.throws(() => parseTable(text, 'jsonl'), { message: 'The file is 47.0 MB; a batch source can be at most 20 MB.' });
    // Bytes, not characters: 7 million three-byte characters are 21 MB.
    assert.throws(() => parseTable(`a\n${'€'.repeat(7_000_000)}`, 'csv'), /is 21\.0 MB/);
  });

  it('refuses a header of 80,000 columns at once, and finds a duplicate name in a wide header', () => {
    const wide = `${Array.from({ length: 80_000 }, (_, i) => `column_${i}`).join(',')}\n${'1,'.repeat(79_999)}1\n`;
    const table = parseTable(wide, 'csv');
    assert.deepEqual(table.rows, []);
    assert.deepEqual(table.problems, [{ line: 1, message: `The header has 80000 columns; a batch takes at most ${MAX_COLUMNS}.` }]);
    const names = Array.from({ length: MAX_COLUMNS - 1 }, (_, i) => `c${i}`);
    assert.match(parseTable(`${[...names, 'c7'].join(',')}\n`, 'csv').problems[0].message, /names "c7" twice/);
    assert.equal(parseTable(`${names.join(',')}\n${names.map(() => 'v').join(',')}\n`, 'csv').rows.length, 1, 'a header at the cap is fine');
  });

  it('caps the columns and the nesting of JSON rows', () => {
    const wideRow = JSON.stringify(Object.fromEntries(Array.from({ length: MAX_COLUMNS + 1 }, (_, i) => [`k${i}`, i])));
    const deep = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const table = parseTable(`{"a":1}\n${wideRow}\n${deep}\n{"a":[[1]]}\n`, 'jsonl');
    assert.deepEqual(table.rows, [{ a: 1 }, { a: [[1]] }]);
    assert.deepEqual(table.problems, [
      { line: 2, message: `More than ${MAX_COLUMNS} columns; this row is left out.` },
      { line: 3, message: `Nested more than ${MAX_DEPTH} levels deep.` },
    ]);
    // Columns are capped across rows as well as within one.
    const spread = Array.from({ length: MAX_COLUMNS + 1 }, (_, i) => JSON.stringify({ [`k${i}`]: i })).join('\n');
    const spreadTable = parseTable(spread, 'jsonl');
    assert.equal(spreadTable.columns.length, MAX_COLUMNS);
    assert.deepEqual(spreadTable.problems, [{ line: MAX_COLUMNS + 1, message: `More than ${MAX_COLUMNS} columns; this row is left out.` }]);
  });

  it('reads the same table whatever the chunks it arrives in', () => {
    const sources: [string, 'csv' | 'jsonl' | 'json'][] = [
      ['\uFEFFtopic,"aud""ience"\r\n"AI, in practice","says ""hi"""\r\nplain,"two\r\nlines"\r\n\r\nbad\rlast,x', 'csv'],
      ['{"topic":"a","n":3}\r\n\nnot json\n[1]\n{"topic":"b","extra":{"k":"]\\""}}', 'jsonl'],
      ['[{"topic":"a, \\"b\\""} , {"topic":["]"]},\n"x", {"t": {"u": 1}}]', 'json'],
    ];
    for (const [text, format] of sources) {
      const whole = parseTable(text, format);
      for (let size = 1; size <= 7; size++) {
        const reader = new TableReader();
        for (let i = 0; i < text.length; i += size) {
          reader.push(text.slice(i, i + size));
        }
        assert.deepEqual(reader.end(), whole, `${format} in chunks of ${size}`);
      }
    }
  });

  it('reports what is wrong with the shape of a JSON array', () => {
    assert.deepEqual(parseTable('{"a":1}', 'json').problems, [{ line: 1, message: 'A JSON batch is an array of objects.' }]);
    assert.deepEqual(parseTable('[{"a":1}, {"a":', 'json').problems, [{ line: 2, message: 'Not valid JSON.' }]);
    assert.deepEqual(parseTable('[{"a":1}] x', 'json').problems, [{ line: 2, message: 'Not valid JSON.' }]);
    assert.deepEqual(parseTable('[{"a":1}, {"a":2}]', 'json').rows, [{ a: 1 }, { a: 2 }]);
    assert.deepEqual(parseTable('[]', 'json').rows, []);
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
