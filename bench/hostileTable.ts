// Issue #47: what a hostile batch source under the size cap costs the extension host's thread, through the
// product's readers (CREW_RUNS_BENCH_ONLY=hostile). A 19.9 MB CSV of one ""-filled field (every `""` a quoted piece:
// the reader before was quadratic, ≈ 40 min) against a plain 19.9 MB CSV of batch-like rows, each read from its file
// (Kick Off Batch on a file) and as an open document's text; and 19.9 MB of invalid JSON Lines (75 s before). The
// thread's CPU time (Linux; wall time elsewhere), and the longest stretch between two of the reader's pauses.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { localFile, readBatchSource } from '../src/batches/core/source';
import { giveThreadBack, readTableText } from '../src/batches/core/tableReader';
import type { ParsedTable } from '../src/batches/core/tableBuilder';
import { invalidJsonLines, quotedQuotesCsv } from '../test/fixtures/hostileTables';
import { mainThreadCpuMs } from './hostileStatus';
import { tempDir } from './lib/fixtures';
import { median, round } from './lib/stats';

const SIZE = 19_900_000;

interface Reading {
  ms: number;
  /** The longest time on the thread between two pauses of the reader (or before the first, after the last). */
  longestSliceMs: number;
  table: ParsedTable;
}

export interface HostileTableResult {
  /** Whether `ms` are the main thread's CPU ms (Linux) rather than wall ms. */
  cpu: boolean;
  rounds: number;
  worstBytes: number;
  plainBytes: number;
  jsonLinesBytes: number;
  /** Medians over the rounds, ms. */
  worstFileMs: number;
  plainFileMs: number;
  worstDocumentMs: number;
  plainDocumentMs: number;
  jsonLinesFileMs: number;
  jsonLinesDocumentMs: number;
  /** The longest slice seen in any reading, ms. */
  longestSliceMs: number;
  worstKeptChars: number;
  jsonLinesProblems: number;
}

const now = () => mainThreadCpuMs() ?? performance.now();

async function timed(read: (pause: () => Promise<void>) => Promise<ParsedTable>): Promise<Reading> {
  let longest = 0;
  let last = now();
  const started = last;
  const table = await read(async () => {
    longest = Math.max(longest, now() - last);
    await giveThreadBack();
    last = now();
  });
  const end = now();
  longest = Math.max(longest, end - last);
  return { ms: end - started, longestSliceMs: longest, table };
}

/** About `bytes` of CSV rows like a batch's (three columns, one quoted with a comma): what a large real source looks like. */
function plainCsv(bytes: number): string {
  const lines = ['topic,audience,notes\n'];
  let length = lines[0].length;
  for (let row = 0; ; row++) {
    const line = `topic ${row},"readers, ${row % 7}",plain notes about row ${row}\n`;
    if (length + line.length > bytes) {
      return lines.join('');
    }
    lines.push(line);
    length += line.length;
  }
}

export async function hostileTableBench(rounds = 5): Promise<HostileTableResult> {
  const dir = tempDir('hostile-table');
  try {
    const texts = { worst: quotedQuotesCsv(SIZE), plain: plainCsv(SIZE), jsonLines: invalidJsonLines(SIZE) };
    const files = Object.fromEntries(
      Object.entries(texts).map(([name, text]) => {
        const file = path.join(dir, `${name}.${name === 'jsonLines' ? 'jsonl' : 'csv'}`);
        fs.writeFileSync(file, text);
        return [name, file];
      }),
    ) as Record<keyof typeof texts, string>;
    const readings: Record<string, Reading[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const name of ['worst', 'plain', 'jsonLines'] as const) {
        const format = name === 'jsonLines' ? 'jsonl' : 'csv';
        (readings[`${name}File`] ??= []).push(await timed((pause) => readBatchSource(localFile(files[name]), format, pause)));
        (readings[`${name}Document`] ??= []).push(await timed((pause) => readTableText(texts[name], format, pause)));
      }
    }
    const ms = (key: string) => round(median(readings[key].map((r) => r.ms)), 1);
    const worst = readings.worstFile[0].table;
    return {
      cpu: mainThreadCpuMs() !== undefined,
      rounds,
      worstBytes: Buffer.byteLength(texts.worst),
      plainBytes: Buffer.byteLength(texts.plain),
      jsonLinesBytes: Buffer.byteLength(texts.jsonLines),
      worstFileMs: ms('worstFile'),
      plainFileMs: ms('plainFile'),
      worstDocumentMs: ms('worstDocument'),
      plainDocumentMs: ms('plainDocument'),
      jsonLinesFileMs: ms('jsonLinesFile'),
      jsonLinesDocumentMs: ms('jsonLinesDocument'),
      longestSliceMs: round(Math.max(...Object.values(readings).flatMap((list) => list.map((r) => r.longestSliceMs))), 1),
      worstKeptChars: String(worst.rows[0]?.['text'] ?? '').length,
      jsonLinesProblems: readings.jsonLinesFile[0].table.problems.length - 1 + readings.jsonLinesFile[0].table.problemsLeftOut,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench table's row (same shape as main.ts's rows). */
export function hostileTableRows(r: HostileTableResult) {
  const mb = (bytes: number) => round(bytes / 1_000_000, 1);
  const unit = r.cpu ? 'CPU' : 'wall';
  return [
    {
      item: '7',
      figure: `hostile batch source: a ${mb(r.worstBytes)} MB CSV of one ""-filled field, read from its file (the thread's ${unit} ms, median of ${r.rounds})`,
      value: r.worstFileMs,
      unit: 'ms',
      target: `≤ 2× a plain ${mb(r.plainBytes)} MB CSV; no slice > 50 ms`,
      met: r.worstFileMs <= 2 * r.plainFileMs && r.longestSliceMs <= 50,
      reference: `a plain ${mb(r.plainBytes)} MB CSV (batch-like rows, 10,000 kept), same path`,
      referenceValue: r.plainFileMs,
      ratio: r.plainFileMs > 0 ? round(r.worstFileMs / r.plainFileMs, 2) : undefined,
      note:
        `as an open document's text: ${r.worstDocumentMs} ms (plain ${r.plainDocumentMs} ms); longest slice between pauses, any reading: ${r.longestSliceMs} ms; ` +
        `the field kept: ${r.worstKeptChars} characters; ${mb(r.jsonLinesBytes)} MB of invalid JSON Lines (${r.jsonLinesProblems} bad lines): file ${r.jsonLinesFileMs} ms, open document ${r.jsonLinesDocumentMs} ms ` +
        `(before #47: ≈ 40 min for the CSV, 75 s for the JSON Lines)`,
    },
  ];
}
