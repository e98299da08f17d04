// Reading a batch source file: refused by its size before a byte is read, then decoded and parsed as it
// streams, so that the extension host never holds more of it than the rows it keeps. Pure: no `vscode`.
import * as fs from 'node:fs';
import { type ParsedTable, refuseLargeSource, type SourceFormat, TableReader } from './parse';

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

export async function readBatchSource(source: SourceBytes, format?: SourceFormat): Promise<ParsedTable> {
  refuseLargeSource(await source.size());
  // UTF-8 as an editor reads it: a BOM dropped, a character cut between chunks joined again.
  const decoder = new TextDecoder();
  const reader = new TableReader(format);
  let bytes = 0;
  for await (const chunk of source.read()) {
    bytes += chunk.byteLength;
    // The file may have grown since its size was read.
    refuseLargeSource(bytes, true);
    reader.push(decoder.decode(chunk, { stream: true }));
    if (reader.done) {
      break;
    }
  }
  reader.push(decoder.decode());
  return reader.end();
}
