// Reading a table of inputs: JSON Lines, CSV with a header row (RFC 4180 quoting: quoted fields with
// commas, doubled quotes and line breaks), or a JSON array of objects. JSON rows keep their values' types
// (a crew may take objects, lists, numbers); CSV cells are text unless the column's header says a type
// (`name:json`, `name:number`, `name:boolean`). Pure: no `vscode` here.

import * as l10n from '@vscode/l10n';
import { type Inputs, type InputValue, parseInputValue } from '../api/inputValues';

export type SourceFormat = 'jsonl' | 'csv' | 'json';

export interface ParsedTable {
  format: SourceFormat;
  /** Column names in first-seen order. */
  columns: string[];
  rows: Inputs[];
  /**
   * Lines (1-based; a JSON array's elements by number) that could not be read, with why; those rows are
   * left out. The row cap's notice comes first; at most MAX_PROBLEMS lines are listed, then "… and N more".
   */
  problems: { line: number; message: string }[];
  /** Rows past MAX_ROWS: counted, not read. */
  rowsLeftOut: number;
  /** Problems past MAX_PROBLEMS: counted, not listed. */
  problemsLeftOut: number;
}

// Every quantity a source controls is capped here, where it enters: a batch is a table someone can review.
/** Larger files are refused by their size, before they are read. */
export const MAX_SOURCE_BYTES = 20_000_000;
export const MAX_ROWS = 10_000;
export const MAX_COLUMNS = 200;
export const MAX_PROBLEMS = 100;
/** Nesting of a JSON row, the row's own object included. */
export const MAX_DEPTH = 32;

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

/** A whole text at once: refused by its size in bytes, then read as a stream of one chunk. */
export function parseTable(text: string, format?: SourceFormat): ParsedTable {
  refuseLargeSource(Buffer.byteLength(text, 'utf8'));
  const reader = new TableReader(format);
  reader.push(text);
  return reader.end();
}

interface Consumer {
  push(text: string): void;
  end(): void;
}

/**
 * Reads a source chunk by chunk, so that no more of it is held than the rows it keeps: past the caps,
 * rows and problems are counted, not built. The format is sniffed from the first text when not given.
 */
export class TableReader {
  private readonly table = new TableBuilder();
  private consumer?: Consumer;
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
      const body = this.head.replace(/^\uFEFF/, '');
      if (!this.format && !body.trim()) {
        return;
      }
      this.start(body);
      return;
    }
    this.consumer.push(text);
  }

  end(): ParsedTable {
    const consumer = this.consumer ?? this.start(this.head.replace(/^\uFEFF/, ''));
    if (!this.done) {
      consumer.end();
    }
    return this.table.result(this.format!);
  }

  private start(body: string): Consumer {
    this.format ??= sniffFormat(body);
    const consumer = this.format === 'csv' ? new CsvTable(this.table) : this.format === 'jsonl' ? new JsonLinesTable(this.table) : new JsonArrayTable(this.table);
    this.consumer = consumer;
    this.head = '';
    consumer.push(body);
    return consumer;
  }
}

/** What every format adds to: rows up to the cap, problems up to theirs, and the counts past them. */
class TableBuilder {
  readonly columns: string[] = [];
  private readonly seen = new Set<string>();
  readonly rows: Inputs[] = [];
  private readonly problems: ParsedTable['problems'] = [];
  private problemsLeftOut = 0;
  private firstUnlisted = 0;
  private rowsLeftOut = 0;
  private firstLeftOut = 0;
  refusal?: { line: number; message: string };

  get full(): boolean {
    return this.rows.length >= MAX_ROWS;
  }

  problem(line: number, message: string): void {
    if (this.problems.length < MAX_PROBLEMS) {
      this.problems.push({ line, message });
    } else if (this.problemsLeftOut++ === 0) {
      this.firstUnlisted = line;
    }
  }

  leaveOut(line: number): void {
    if (this.rowsLeftOut++ === 0) {
      this.firstLeftOut = line;
    }
  }

  setColumns(names: string[]): void {
    names.forEach((name) => this.addColumn(name));
  }

  /** A parsed JSON value as a row, or a problem. */
  addObject(line: number, value: unknown): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problem(line, l10n.t('Not an object of input names to values.'));
      return;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > MAX_COLUMNS || this.columns.length + entries.filter(([key]) => !this.seen.has(key)).length > MAX_COLUMNS) {
      this.problem(line, l10n.t('More than {0} columns; this row is left out.', MAX_COLUMNS));
      return;
    }
    if (deeperThan(value, MAX_DEPTH)) {
      this.problem(line, l10n.t('Nested more than {0} levels deep.', MAX_DEPTH));
      return;
    }
    entries.forEach(([key]) => this.addColumn(key));
    this.rows.push(Object.fromEntries(entries.map(([key, v]) => [key, cellValue(v)])));
  }

  refuse(line: number, message: string): void {
    this.refusal = { line, message };
  }

  result(format: SourceFormat): ParsedTable {
    if (this.refusal) {
      return { format, columns: [], rows: [], problems: [this.refusal], rowsLeftOut: 0, problemsLeftOut: 0 };
    }
    const problems = [...this.problems];
    if (this.rowsLeftOut) {
      problems.unshift({ line: this.firstLeftOut, message: l10n.t('A batch takes at most {0} rows: {1} more rows in the file are left out.', MAX_ROWS, this.rowsLeftOut) });
    }
    if (this.problemsLeftOut) {
      problems.push({ line: this.firstUnlisted, message: l10n.t('… and {0} more lines not read.', this.problemsLeftOut) });
    }
    return { format, columns: this.columns, rows: this.rows, problems, rowsLeftOut: this.rowsLeftOut, problemsLeftOut: this.problemsLeftOut };
  }

  private addColumn(name: string): void {
    if (!this.seen.has(name)) {
      this.seen.add(name);
      this.columns.push(name);
    }
  }
}

/** A JSON row's value as sent: its own type; null (an empty cell) as empty text. */
function cellValue(value: unknown): InputValue {
  return value === null || value === undefined ? '' : (value as InputValue);
}

/** What a CSV header's `:type` suffix makes of a column's cells. */
type CellType = 'text' | 'json' | 'number' | 'boolean';
const CELL_TYPES: readonly CellType[] = ['json', 'number', 'boolean'];

/** `name:json` → the name and its type; a header without a known suffix is text (a `:` in a name stays). */
function typedColumn(header: string): { name: string; type: CellType } {
  const match = /^(.*\S)\s*:\s*(json|number|boolean)$/i.exec(header);
  const type = match?.[2].toLowerCase() as CellType | undefined;
  return match && type && CELL_TYPES.includes(type) ? { name: match[1], type } : { name: header, type: 'text' };
}

/** A CSV cell as its column's type says; an empty cell stays empty text (an input left out or missing). */
function typedCell(name: string, type: CellType, cell: string): { ok: true; value: InputValue } | { ok: false; message: string } {
  if (type === 'text' || cell.trim() === '') {
    return { ok: true, value: cell };
  }
  if (type === 'number') {
    const number = Number(cell.trim());
    return Number.isFinite(number) ? { ok: true, value: number } : { ok: false, message: l10n.t('"{0}" is not a number: {1}', name, cell.slice(0, 40)) };
  }
  if (type === 'boolean') {
    const word = cell.trim().toLowerCase();
    if (['true', 'yes', '1'].includes(word)) {
      return { ok: true, value: true };
    }
    if (['false', 'no', '0'].includes(word)) {
      return { ok: true, value: false };
    }
    return { ok: false, message: l10n.t('"{0}" is not true or false: {1}', name, cell.slice(0, 40)) };
  }
  const parsed = parseInputValue(name, cell);
  return parsed.ok ? parsed : { ok: false, message: parsed.message };
}

/** Without recursion: JSON.parse builds values far deeper than JSON.stringify (or a recursive walk) can go. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [v, depth] = next;
    if (typeof v === 'object' && v !== null) {
      if (depth > limit) {
        return true;
      }
      for (const child of Object.values(v)) {
        stack.push([child, depth + 1]);
      }
    }
  }
  return false;
}

class JsonLinesTable implements Consumer {
  private pieces: string[] = [];
  private hasText = false;
  private line = 1;

  constructor(private readonly table: TableBuilder) {}

  push(text: string): void {
    let from = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', from)) {
      this.add(text.slice(from, newline));
      this.endLine();
      from = newline + 1;
    }
    this.add(text.slice(from));
  }

  end(): void {
    this.endLine();
  }

  /** Past the row cap a line's text is not kept: only whether it has any. */
  private add(piece: string): void {
    if (this.table.full) {
      this.hasText ||= /\S/.test(piece);
    } else if (piece) {
      this.pieces.push(piece);
    }
  }

  private endLine(): void {
    const line = this.line++;
    const raw = this.pieces.join('');
    const hasText = this.hasText || raw.trim() !== '';
    this.pieces = [];
    this.hasText = false;
    if (!hasText) {
      return;
    }
    if (this.table.full) {
      this.table.leaveOut(line);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      this.table.problem(line, l10n.t('Not valid JSON.'));
      return;
    }
    this.table.addObject(line, value);
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === LF || c === CR;
const isCsvBreak = (c: number) => c === COMMA || c === LF || c === CR;

/**
 * A JSON array read element by element: the scanner finds each top-level element's end (strings and
 * nesting followed), and only elements before the row cap are kept and parsed. Problems name the element.
 */
class JsonArrayTable implements Consumer {
  private stage: 'start' | 'first' | 'next' | 'element' | 'closed' | 'trailing' = 'start';
  private element = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private keep = false;
  private pieces: string[] = [];

  constructor(private readonly table: TableBuilder) {}

  push(text: string): void {
    let runStart = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      switch (this.stage) {
        case 'start':
          if (!isSpace(c)) {
            if (c !== OPEN_BRACKET) {
              this.table.refuse(1, l10n.t('A JSON batch is an array of objects.'));
              return;
            }
            this.stage = 'first';
          }
          break;
        case 'first':
        case 'next':
          if (isSpace(c)) {
            break;
          }
          if (c === CLOSE_BRACKET && this.stage === 'first') {
            this.stage = 'closed';
            break;
          }
          this.startElement();
          runStart = i;
          i--; // The element's first character is read in its own stage.
          break;
        case 'element':
          if (this.inString) {
            if (this.escaped) {
              this.escaped = false;
            } else if (c === BACKSLASH) {
              this.escaped = true;
            } else if (c === QUOTE) {
              this.inString = false;
            }
          } else if (c === QUOTE) {
            this.inString = true;
          } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
            this.depth++;
          } else if ((c === CLOSE_BRACKET || c === CLOSE_BRACE) && this.depth > 0) {
            this.depth--;
          } else if ((c === COMMA || c === CLOSE_BRACKET) && this.depth === 0) {
            this.keepPiece(text.slice(runStart, i));
            this.endElement();
            this.stage = c === COMMA ? 'next' : 'closed';
          }
          break;
        case 'closed':
          if (!isSpace(c)) {
            this.table.problem(this.element + 1, l10n.t('Not valid JSON.'));
            this.stage = 'trailing';
          }
          break;
        case 'trailing':
          return;
      }
    }
    if (this.stage === 'element') {
      this.keepPiece(text.slice(runStart));
    }
  }

  end(): void {
    if (this.stage === 'closed' || this.stage === 'trailing') {
      return;
    }
    // Not closed: the element cut off by the end (or the one that should have followed) is not valid.
    this.table.problem(this.stage === 'element' ? this.element : this.element + 1, l10n.t('Not valid JSON.'));
  }

  private startElement(): void {
    this.stage = 'element';
    this.element++;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.keep = !this.table.full;
    this.pieces = [];
  }

  private keepPiece(piece: string): void {
    if (this.keep && piece) {
      this.pieces.push(piece);
    }
  }

  private endElement(): void {
    if (!this.keep) {
      this.table.leaveOut(this.element);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(this.pieces.join(''));
    } catch {
      this.table.problem(this.element, l10n.t('Not valid JSON.'));
      return;
    }
    this.table.addObject(this.element, value);
  }
}

/**
 * RFC 4180 records as they stream in, each with the line it starts on. Past `keep` fields a record's
 * text is not kept, only counted: a header too wide, a record too long or a row past the cap costs
 * no memory.
 */
class CsvScanner {
  keep = Number.POSITIVE_INFINITY;
  private fields: string[] = [];
  private field = '';
  private count = 0;
  /** Characters of field text in the record: none is a blank line, not a row. */
  private chars = 0;
  private quoted = false;
  /** A '"' in a quoted field ended the last chunk: the next character says whether it was doubled. */
  private quoteAtEnd = false;
  private fieldStarted = false;
  /** A '\r' ended the last chunk and a record: a '\n' first in the next chunk is part of that line break. */
  private crAtEnd = false;
  private line = 1;
  private recordLine = 1;

  constructor(private readonly onRecord: (line: number, fields: string[], count: number) => void) {}

  push(text: string): void {
    let i = 0;
    if (text && this.crAtEnd) {
      this.crAtEnd = false;
      i = text.charCodeAt(0) === LF ? 1 : 0;
    }
    if (i < text.length && this.quoteAtEnd) {
      this.quoteAtEnd = false;
      if (text.charCodeAt(i) === QUOTE) {
        this.append('"');
        i++;
      } else {
        this.quoted = false;
      }
    }
    const n = text.length;
    while (i < n) {
      if (this.quoted) {
        const quote = text.indexOf('"', i);
        const end = quote < 0 ? n : quote;
        this.append(text.slice(i, end));
        for (let newline = text.indexOf('\n', i); newline >= 0 && newline < end; newline = text.indexOf('\n', newline + 1)) {
          this.line++;
        }
        if (quote < 0 || quote === n - 1) {
          this.quoteAtEnd = quote >= 0;
          return;
        }
        if (text.charCodeAt(quote + 1) === QUOTE) {
          this.append('"');
          i = quote + 2;
        } else {
          this.quoted = false;
          i = quote + 1;
        }
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE && !this.fieldStarted) {
        this.quoted = true;
        this.fieldStarted = true;
        i++;
      } else if (c === COMMA) {
        this.endField();
        i++;
      } else if (c === LF || c === CR) {
        this.endField();
        this.endRecord();
        if (c === CR) {
          if (i + 1 === n) {
            this.crAtEnd = true;
          } else if (text.charCodeAt(i + 1) === LF) {
            i++;
          }
        }
        i++;
      } else {
        let end = i + 1;
        while (end < n && !isCsvBreak(text.charCodeAt(end))) {
          end++;
        }
        this.append(text.slice(i, end));
        this.fieldStarted = true;
        i = end;
      }
    }
  }

  end(): void {
    if (this.chars > 0 || this.fieldStarted || this.count > 0) {
      this.endField();
      this.endRecord();
    }
  }

  private append(piece: string): void {
    this.chars += piece.length;
    if (this.count < this.keep) {
      this.field += piece;
    }
  }

  private endField(): void {
    if (this.count < this.keep) {
      this.fields.push(this.field);
    }
    this.field = '';
    this.count++;
    this.fieldStarted = false;
    this.quoted = false;
  }

  private endRecord(): void {
    if (!(this.count === 1 && this.chars === 0)) {
      this.onRecord(this.recordLine, this.fields, this.count);
    }
    this.fields = [];
    this.count = 0;
    this.chars = 0;
    this.line++;
    this.recordLine = this.line;
  }
}

class CsvTable implements Consumer {
  private header?: string[];
  private types: CellType[] = [];
  private readonly scanner = new CsvScanner((line, fields, count) => this.record(line, fields, count));

  constructor(private readonly table: TableBuilder) {
    this.scanner.keep = MAX_COLUMNS;
  }

  push(text: string): void {
    this.scanner.push(text);
  }

  end(): void {
    this.scanner.end();
    if (!this.header && !this.table.refusal) {
      this.refuse(1, l10n.t('The CSV has no header row.'));
    }
  }

  /** The rest of the chunk at hand is still scanned: its text is no longer kept. */
  private refuse(line: number, message: string): void {
    this.table.refuse(line, message);
    this.scanner.keep = 0;
  }

  private record(line: number, fields: string[], count: number): void {
    if (this.table.refusal) {
      return;
    }
    if (!this.header) {
      this.readHeader(line, fields, count);
      return;
    }
    if (this.table.full) {
      this.table.leaveOut(line);
      return;
    }
    if (count !== this.header.length) {
      this.table.problem(line, l10n.t('Has {0} fields; the header has {1}.', count, this.header.length));
      return;
    }
    const row: Inputs = {};
    for (const [i, name] of this.header.entries()) {
      if (name === '') {
        continue;
      }
      const cell = typedCell(name, this.types[i], fields[i]);
      if (!cell.ok) {
        this.table.problem(line, cell.message);
        return;
      }
      row[name] = cell.value;
    }
    this.table.rows.push(row);
    if (this.table.full) {
      this.scanner.keep = 0;
    }
  }

  private readHeader(line: number, fields: string[], count: number): void {
    if (count > MAX_COLUMNS) {
      this.refuse(line, l10n.t('The header has {0} columns; a batch takes at most {1}.', count, MAX_COLUMNS));
      return;
    }
    const columns = fields.map((name) => typedColumn(name.trim()));
    const names = columns.map((column) => column.name);
    this.types = columns.map((column) => column.type);
    const seen = new Set<string>();
    for (const name of names.filter((n) => n !== '')) {
      if (seen.has(name)) {
        this.refuse(line, l10n.t('The header names "{0}" twice.', name));
        return;
      }
      seen.add(name);
    }
    this.header = names;
    this.table.setColumns(names.filter((name) => name !== ''));
    this.scanner.keep = names.length;
  }
}

/** One CSV field, quoted when it has to be. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
