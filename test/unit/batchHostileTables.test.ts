// Issue #47: a batch source under the size cap built to cost the reader the most. The reader must do work linear
// in the text, never an exception per line, and give the thread back between bounded slices, in the open
// document's path and the file's. Proved by counting (helpers/workCounter.ts), never by a clock: the speed is
// the bench's (CREW_RUNS_BENCH_ONLY=hostile).
import * as assert from 'node:assert/strict';
import { MAX_INPUT_VALUE_LENGTH } from '../../src/api/inputValues';
import { mapColumns } from '../../src/batches/core/mapping';
import { readBatchSource, type SourceBytes } from '../../src/batches/core/source';
import { MAX_PROBLEMS } from '../../src/batches/core/tableBuilder';
import { giveThreadBack, parseTable, readTableText, SLICE_CHARS } from '../../src/batches/core/tableReader';
import type { ParsedTable, SourceFormat } from '../../src/batches/core/tableBuilder';
import { invalidJsonLines, quotedQuotesCsv } from '../fixtures/hostileTables';
import { isJsonText } from '../../src/batches/core/jsonCheck';
import { countWork, type Work } from './helpers/workCounter';

/** A text as a file's bytes, in the 1 MB chunks the file stream reads. */
function bytesOf(text: string): SourceBytes {
  const buffer = Buffer.from(text, 'utf8');
  return {
    size: async () => buffer.byteLength,
    read: function* () {
      for (let i = 0; i < buffer.byteLength; i += 1 << 20) {
        yield buffer.subarray(i, i + (1 << 20));
      }
    },
  };
}

/** The work done between two pauses of the reader: one entry per slice. */
function pacer(work: Work): { pause: () => Promise<void>; slices: number[]; end(): void } {
  const slices: number[] = [];
  let last = 0;
  const cut = () => {
    slices.push(work.visits - last);
    last = work.visits;
  };
  return {
    slices,
    pause: async () => {
      cut();
      await giveThreadBack();
    },
    end: cut,
  };
}

type Path = 'open document' | 'file';

/** Reads `text` by one path, counting its work: the table, and the work of each slice between pauses. */
async function readCounted(text: string, format: SourceFormat, path: Path, perChar: number): Promise<{ table: ParsedTable; work: Work; slices: number[] }> {
  const { result, work } = await countWork(
    async (work) => {
      const pace = pacer(work);
      const table = path === 'open document' ? await readTableText(text, format, pace.pause) : await readBatchSource(bytesOf(text), format, pace.pause);
      pace.end();
      return { table, slices: pace.slices };
    },
    { visits: perChar * text.length },
  );
  return { ...result, work };
}

/** Every slice's work is bounded by the slice: no pause is ever more than `perChar` visits per character away. */
function assertSliced(text: string, slices: number[], perChar: number, label: string): void {
  assert.ok(slices.length >= Math.floor(text.length / SLICE_CHARS), `${label}: ${slices.length} slices for ${text.length} characters`);
  const most = Math.max(...slices);
  assert.ok(most <= perChar * SLICE_CHARS, `${label}: a slice of ${most} character visits (at most ${perChar} × ${SLICE_CHARS})`);
}

describe('Hostile batch sources (#47)', () => {
  it('reads a 19.9 MB CSV of one ""-filled field (was 27 s for 2 MB, ≈ 40 min for 19 MB) in linear work, 64K characters between pauses, open or from its file', async () => {
    const text = quotedQuotesCsv(19_900_000);
    for (const path of ['open document', 'file'] as const) {
      const { table, work, slices } = await readCounted(text, 'csv', path, 4);
      assert.ok(work.visits >= text.length, `${path}: every character is counted (${work.visits})`);
      assert.equal(table.rows.length, 1, path);
      // Kept up to one character past the longest value: still too long to send, and no more memory than that.
      assert.equal(table.rows[0].text, '"'.repeat(MAX_INPUT_VALUE_LENGTH + 1), path);
      assert.deepEqual(table.problems, [], path);
      assert.deepEqual(mapColumns(table.columns, table.rows, [{ name: 'text' }]).problems, [{ row: 0, missing: [], tooLong: 'text' }], path);
      assertSliced(text, slices, 4, path);
    }
  });

  it('reads 19.9 MB of invalid JSON Lines (was 75 s) without an exception per line: 100 problems listed, the rest counted, in slices', async () => {
    const text = invalidJsonLines(19_900_000);
    const lines = text.split('\n').length - 1;
    for (const path of ['open document', 'file'] as const) {
      const { table, work, slices } = await readCounted(text, 'jsonl', path, 6);
      assert.equal(work.throws, 0, `${path}: JSON.parse threw ${work.throws} times`);
      assert.equal(work.parses, 0, `${path}: no line is a row, none is parsed`);
      assert.deepEqual(table.rows, []);
      assert.equal(table.problems.length, MAX_PROBLEMS + 1);
      assert.deepEqual(table.problems.slice(0, 6).map((p) => p.message), ['Not valid JSON.', 'Not valid JSON.', 'Not valid JSON.', 'Not valid JSON.', 'Not valid JSON.', 'Not an object of input names to values.']);
      assert.equal(table.problemsLeftOut, lines - MAX_PROBLEMS);
      assertSliced(text, slices, 6, path);
    }
  });

  it('reads a JSON array of invalid elements and a CSV of badly typed cells without an exception per row', async () => {
    const elements = Array.from({ length: 200_000 }, (_, i) => ['x', '{,}', '{"a":}', 'tru'][i % 4]).join(',');
    const array = await countWork(() => readTableText(`[${elements}]`, 'json'), { throws: 0 });
    assert.equal(array.result.problemsLeftOut > 0, true);
    assert.equal(array.work.throws, 0);
    const csv = `n:number,j:json\n${'x,{\n'.repeat(200_000)}`;
    const typed = await countWork(() => readTableText(csv, 'csv'), { throws: MAX_PROBLEMS });
    assert.equal(typed.result.problemsLeftOut, 200_000 - MAX_PROBLEMS);
    assert.ok(typed.work.throws <= MAX_PROBLEMS, `JSON.parse threw ${typed.work.throws} times`);
  });

  it('reads a CSV header "__proto__:json" as a column of its own, never as the row\'s prototype', () => {
    const table = parseTable('__proto__:json,other\n"{""topic"": ""from the prototype""}",x\n', 'csv');
    const row = table.rows[0];
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.equal(Object.hasOwn(row, '__proto__'), true);
    assert.equal(JSON.stringify(row), '{"__proto__":{"topic":"from the prototype"},"other":"x"}', 'the batch stores the column');
    assert.equal(mapColumns(table.columns, table.rows, undefined).inputs[0].topic, undefined, 'no input comes from a prototype');
    const text = parseTable('__proto__\nhello\n', 'csv');
    assert.equal(Object.getOwnPropertyDescriptor(text.rows[0], '__proto__')?.value, 'hello', 'a text cell is kept, not dropped');
  });
});

describe('isJsonText', () => {
  it('tells JSON from not JSON exactly as JSON.parse does (40,000 texts made of JSON\'s pieces)', () => {
    const pieces = ['{', '}', '[', ']', ',', ':', ' ', '\n', '\t', '\r', '\f', '\u00a0', '"', '"a"', '"\\"', '"\\u00e9"', '"\\u00g9"', '"\\x"', '"\t"', '\\', '0', '01', '-', '-0', '1.', '1.5', '.5', '1e5', '1E+', '2e-3', 'true', 'tru', 'false', 'null', 'nul', 'x', '"\ud800"', '/', '//c', '1,', '{"k":1}', '[1,2]'];
    let seed = 47;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let valid = 0;
    for (let n = 0; n < 40_000; n++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 8) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      valid += parses ? 1 : 0;
      assert.equal(isJsonText(text), parses, JSON.stringify(text));
    }
    assert.ok(valid > 1_000, `${valid} of the texts were JSON`);
    assert.equal(isJsonText(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`), true);
    assert.equal(isJsonText('  {"a": [1, {"b": null}]}\r'), true);
    assert.equal(isJsonText('x{"a":1}y', 1, 8), true);
  });
});
