// Reading a batch source file: refused by its size before a byte is read, then decoded and parsed as it
// streams, so that the extension host never holds more of it than the rows it keeps, nor its thread for more than
// a slice (tableReader.ts). Pure: no `vscode`.
import * as fs from 'node:fs';
import type { ParsedTable, SourceFormat } from './tableBuilder';
import { formatOfFileName, giveThreadBack, type Pause, refuseLargeSource, TableReader } from './tableReader';

// What Run Batch from File uses of the table readers, all loaded with this module on first use (dist/batchTables.js).
export { formatOfFileName, readTableText } from './tableReader';

/** Where a source's bytes come from: its size first, so that a file too large is never opened. */
export interface SourceBytes {
  size(): Promise<number>;
  read(): Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
}

export function localFile(file: string): SourceBytes {
  return {
    size: async () => (await fs.promises.stat(file)).size,
    read: () => fs.createReadStream(file, { highWaterMark: 1 << 20 }),
  };
}

export async function readBatchSource(source: SourceBytes, format?: SourceFormat, pause: Pause = giveThreadBack): Promise<ParsedTable> {
  refuseLargeSource(await source.size());
  // UTF-8 as an editor reads it: a BOM dropped, a character cut between chunks joined again.
  const decoder = new TextDecoder();
  const reader = new TableReader(format);
  let bytes = 0;
  for await (const chunk of source.read()) {
    bytes += chunk.byteLength;
    // The file may have grown since its size was read.
    refuseLargeSource(bytes, true);
    await reader.pushSliced(decoder.decode(chunk, { stream: true }), pause);
    if (reader.done) {
      break;
    }
  }
  reader.push(decoder.decode());
  return reader.end();
}

/**
 * Whether a file can be a table of inputs, by its name and its first characters: CSV and JSON Lines by name, a
 * `.json` file only when it holds an array (a settings.json or package.json is an object, never a table).
 */
export function canBeTable(name: string, head: string): boolean {
  const format = formatOfFileName(name);
  return format === 'json' ? head.replace(/^\uFEFF/, '').trimStart().startsWith('[') : format !== undefined;
}

/** The first bytes of a local file are enough to tell; a file that cannot be read is not offered. */
export async function localFileCanBeTable(file: string): Promise<boolean> {
  if (formatOfFileName(file) !== 'json') {
    return canBeTable(file, '');
  }
  try {
    const handle = await fs.promises.open(file, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEAD_BYTES), 0, HEAD_BYTES, 0);
      return canBeTable(file, buffer.subarray(0, bytesRead).toString('utf8'));
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

/** Enough for a BOM and leading blank lines before the `[`. */
const HEAD_BYTES = 1024;
