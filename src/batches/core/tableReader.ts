// Reading a table of inputs: JSON Lines, CSV with a header row, or a JSON array of objects (one file per
// format; tableBuilder.ts holds what they share, and the caps). JSON rows keep their values' types (a crew may
// take objects, lists, numbers). Pure: no `vscode` here.

import * as l10n from '@vscode/l10n';
import { CsvTable } from './csvTable';
import { JsonArrayTable } from './jsonArrayTable';
import { JsonLinesTable } from './jsonLinesTable';
import { MAX_SOURCE_BYTES, type ParsedTable, type SourceFormat, TableBuilder, type TableConsumer } from './tableBuilder';

const megabytes = (bytes: number) => `${Math.round(bytes / 100_000) / 10} MB`;

/** Throws, with the limit and the size in the message, when a source is too large to read. */
export function refuseLargeSource(bytes: number, grewWhileRead = false): void {
  if (bytes <= MAX_SOURCE_BYTES) {
    return;
  }
  const limit = megabytes(MAX_SOURCE_BYTES);
  throw new Error(
    grewWhileRead
      ? l10n.t('The file is more than {0}; a batch source can be at most {0}.', limit)
      : l10n.t('The file is {0}; a batch source can be at most {1}.', (bytes / 1_000_000).toFixed(1) + ' MB', limit),
  );
}

export function formatOfFileName(name: string): SourceFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) {
    return 'jsonl';
  }
  if (lower.endsWith('.csv')) {
    return 'csv';
  }
  return lower.endsWith('.json') ? 'json' : undefined;
}

/** The format a text is in, when its file name does not say: `[` JSON array, `{` JSON Lines, else CSV. */
export function sniffFormat(text: string): SourceFormat {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('[')) {
    return 'json';
  }
  return start.startsWith('{') ? 'jsonl' : 'csv';
}

/** A whole text at once, in one call (tests, small texts): refused by its size in bytes, then read as one chunk. */
export function parseTable(text: string, format?: SourceFormat): ParsedTable {
  refuseLargeSource(Buffer.byteLength(text, 'utf8'));
  const reader = new TableReader(format);
  reader.push(text);
  return reader.end();
}

/** Characters read between two pauses, where the reader gives the thread back. */
export const SLICE_CHARS = 64 * 1024;

/** What the reader awaits between slices. */
export type Pause = () => Promise<void>;

/** Lets everything else waiting on the thread run (in the extension host: every extension, the editor's requests). */
export const giveThreadBack: Pause = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A whole text held in memory (an open document, unsaved edits included), read slice by slice with a pause
 * between: the extension host is never held for more than one slice, whatever the text.
 */
export async function readTableText(text: string, format?: SourceFormat, pause: Pause = giveThreadBack): Promise<ParsedTable> {
  refuseLargeSource(Buffer.byteLength(text, 'utf8'));
  const reader = new TableReader(format);
  await reader.pushSliced(text, pause);
  return reader.end();
}

/**
 * Reads a source chunk by chunk, so that no more of it is held than the rows it keeps: past the caps,
 * rows and problems are counted, not built. The format is sniffed from the first text when not given.
 */
export class TableReader {
  private readonly table = new TableBuilder();
  private consumer?: TableConsumer;
  private head = '';

  constructor(private format?: SourceFormat) {}

  /** The source was refused (a header too wide, not an array): the rest of it need not be read. */
  get done(): boolean {
    return this.table.refusal !== undefined;
  }

  push(text: string): void {
    if (this.done) {
      return;
    }
    if (!this.consumer) {
      this.head += text;
      // Only the new text is looked at (a BOM is a space to \S): a source of blank slices stays linear.
      if (!this.format && !/\S/.test(text)) {
        return;
      }
      this.start(this.head.replace(/^\uFEFF/, ''));
      return;
    }
    this.consumer.push(text);
  }

  /**
   * `text` in slices of SLICE_CHARS, awaiting `pause` after each: the readers' work is linear in what they are
   * given, so a slice holds the thread for a bounded time.
   */
  async pushSliced(text: string, pause: Pause): Promise<void> {
    for (let at = 0; at < text.length && !this.done; at += SLICE_CHARS) {
      this.push(text.slice(at, at + SLICE_CHARS));
      await pause();
    }
  }

  end(): ParsedTable {
    const consumer = this.consumer ?? this.start(this.head.replace(/^\uFEFF/, ''));
    if (!this.done) {
      consumer.end();
    }
    return this.table.result(this.format!);
  }

  private start(body: string): TableConsumer {
    this.format ??= sniffFormat(body);
    const consumer = this.format === 'csv' ? new CsvTable(this.table) : this.format === 'jsonl' ? new JsonLinesTable(this.table) : new JsonArrayTable(this.table);
    this.consumer = consumer;
    this.head = '';
    consumer.push(body);
    return consumer;
  }
}
