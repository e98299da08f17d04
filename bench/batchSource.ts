// Item "Batches", the source file: a 100 MB CSV is refused by its size before it is read, and a CSV
// just under the limit (half a million rows) is streamed, keeping the first 10,000 rows. Plain Node, run
// with --expose-gc by main.ts: the reader is the same one Kick Off Batch uses in the extension host.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_ROWS, MAX_SOURCE_BYTES } from '../src/batches/core/tableBuilder';
import { localFile, readBatchSource } from '../src/batches/core/source';
import { tempDir } from './lib/fixtures';

export interface BatchSourceBenchResult {
  refusedBytes: number;
  refusedMessage: string;
  refusedMs: number;
  refusedHeapGrowthMb: number;
  streamedBytes: number;
  streamedRows: number;
  rowsKept: number;
  streamedMs: number;
  /** Highest heap seen between chunks above the heap before (garbage included: an upper bound). */
  streamedPeakHeapGrowthMb: number;
  /** What the whole file as one string costs: what reading it as a document held before any parsing. */
  wholeTextHeapMb: number;
}

const mb = (bytes: number) => Math.round((bytes / 1_000_000) * 10) / 10;

function gc(): void {
  global.gc?.();
}

/** A CSV of `bytes` at most, with rows like a batch's (three columns, one quoted with a comma). */
function writeCsv(file: string, bytes: number): void {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let rows = 0;
  try {
    written += fs.writeSync(fd, 'topic,audience,notes\n');
    for (;;) {
      const lines: string[] = [];
      for (let i = 0; i < 10_000; i++, rows++) {
        lines.push(`topic ${rows},"readers, ${rows % 7}",plain notes\n`);
      }
      const block = lines.join('');
      if (written + block.length > bytes) {
        return;
      }
      written += fs.writeSync(fd, block);
    }
  } finally {
    fs.closeSync(fd);
  }
}

async function peakHeapDuring<T>(work: () => Promise<T>): Promise<{ result: T; peakGrowth: number; ms: number }> {
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 1);
  const started = performance.now();
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { result, peakGrowth: peak - before, ms: performance.now() - started };
  } finally {
    clearInterval(sampler);
  }
}

export async function batchSourceScenario(): Promise<BatchSourceBenchResult> {
  const dir = tempDir('batch-source');
  try {
    const big = path.join(dir, 'big.csv');
    writeCsv(big, 100_000_000);
    const refusedBytes = fs.statSync(big).size;
    const refused = await peakHeapDuring(() => readBatchSource(localFile(big)).then(() => 'read', (e: Error) => e.message));

    const near = path.join(dir, 'near.csv');
    writeCsv(near, MAX_SOURCE_BYTES - 100_000);
    const streamed = await peakHeapDuring(() => readBatchSource(localFile(near)));

    gc();
    const beforeText = process.memoryUsage().heapUsed;
    const text = fs.readFileSync(near, 'utf8');
    const wholeText = process.memoryUsage().heapUsed - beforeText;
    const streamedBytes = fs.statSync(near).size;
    if (text.length !== streamedBytes) {
      throw new Error(`read ${text.length} of ${streamedBytes} characters`);
    }
    return {
      refusedBytes,
      refusedMessage: refused.result,
      refusedMs: Math.round(refused.ms * 10) / 10,
      refusedHeapGrowthMb: mb(refused.peakGrowth),
      streamedBytes,
      streamedRows: streamed.result.rows.length + streamed.result.rowsLeftOut,
      rowsKept: streamed.result.rows.length,
      streamedMs: Math.round(streamed.ms),
      streamedPeakHeapGrowthMb: mb(streamed.peakGrowth),
      wholeTextHeapMb: mb(wholeText),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** main.ts runs this file in its own process, with --expose-gc: the last line of output is the result. */
if (require.main === module) {
  void batchSourceScenario().then((r) => console.log(JSON.stringify(r)));
}

/** The bench table's rows for this item (same shape as main.ts's rows). */
export function batchSourceBenchRows(r: BatchSourceBenchResult) {
  const item = '6 Batches';
  return [
    {
      item,
      figure: `a ${mb(r.refusedBytes)} MB CSV import: refused by its size before it is read (heap growth)`,
      value: r.refusedHeapGrowthMb,
      unit: 'MB',
      target: '≤ 100 MB, refused',
      met: r.refusedHeapGrowthMb <= 100 && r.refusedMessage !== 'read',
      note: `${r.refusedMs} ms: "${r.refusedMessage}"`,
    },
    {
      item,
      figure: `a ${mb(r.streamedBytes)} MB CSV import (${r.streamedRows} rows) streamed, ${r.rowsKept} rows kept: peak heap growth`,
      value: r.streamedPeakHeapGrowthMb,
      unit: 'MB',
      target: `≤ 100 MB, ${MAX_ROWS} rows kept`,
      met: r.streamedPeakHeapGrowthMb <= 100 && r.rowsKept === MAX_ROWS,
      reference: 'the file as one string',
      referenceValue: r.wholeTextHeapMb,
      ratio: r.wholeTextHeapMb > 0 ? Math.round((r.streamedPeakHeapGrowthMb / r.wholeTextHeapMb) * 100) / 100 : undefined,
      note: `${r.streamedMs} ms; peak sampled every ms between chunks, garbage included (an upper bound)`,
    },
  ];
}
