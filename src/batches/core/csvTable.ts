// CSV with a header row (RFC 4180 quoting: quoted fields with commas, doubled quotes and line breaks). Cells
// are text unless the column's header says a type (`name:json`, `name:number`, `name:boolean`).

import * as l10n from '@vscode/l10n';
import { type InputValue, MAX_INPUT_VALUE_LENGTH, parseInputValue } from '../../api/inputValues';
import { isJsonText } from './jsonCheck';
import { MAX_COLUMNS, type TableBuilder, type TableConsumer } from './tableBuilder';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const isCsvBreak = (c: number) => c === COMMA || c === LF || c === CR;

/** What a CSV header's `:type` suffix makes of a column's cells. */
type CellType = 'text' | 'json' | 'number' | 'boolean';
const CELL_TYPES: readonly CellType[] = ['json', 'number', 'boolean'];

/** `name:json` → the name and its type; a header without a known suffix is text (a `:` in a name stays). */
function typedColumn(header: string): { name: string; type: CellType } {
  const match = /^(.*\S)\s*:\s*(json|number|boolean)$/i.exec(header);
  const type = match?.[2].toLowerCase() as CellType | undefined;
  return match && type && CELL_TYPES.includes(type) ? { name: match[1], type } : { name: header, type: 'text' };
}

type Cell = { ok: true; value: InputValue } | { ok: false; message: () => string };

/**
 * A CSV cell as its column's type says; an empty cell stays empty text (an input left out or missing). What is
 * wrong is said only when asked (the first problems are listed, the rest counted): a JSON cell is checked without
 * JSON.parse, which costs an exception per bad cell.
 */
function typedCell(name: string, type: CellType, cell: string): Cell {
  if (type === 'text' || cell.trim() === '') {
    return { ok: true, value: cell };
  }
  if (type === 'number') {
    const number = Number(cell.trim());
    return Number.isFinite(number) ? { ok: true, value: number } : { ok: false, message: () => l10n.t('"{0}" is not a number: {1}', name, cell.slice(0, 40)) };
  }
  if (type === 'boolean') {
    const word = cell.trim().toLowerCase();
    if (['true', 'yes', '1'].includes(word)) {
      return { ok: true, value: true };
    }
    if (['false', 'no', '0'].includes(word)) {
      return { ok: true, value: false };
    }
    return { ok: false, message: () => l10n.t('"{0}" is not true or false: {1}', name, cell.slice(0, 40)) };
  }
  const message = () => {
    const parsed = parseInputValue(name, cell);
    return parsed.ok ? '' : parsed.message;
  };
  if (cell.length <= MAX_INPUT_VALUE_LENGTH && !isJsonText(cell)) {
    return { ok: false, message };
  }
  const parsed = parseInputValue(name, cell);
  return parsed.ok ? parsed : { ok: false, message: () => parsed.message };
}

/**
 * The most of a field kept: one character past the longest value, so that a longer one is still refused as too
 * long wherever it would be sent, and costs no more memory than that.
 */
const MAX_FIELD_CHARS = MAX_INPUT_VALUE_LENGTH + 1;

/**
 * RFC 4180 records as they stream in, each with the line it starts on. Past `keep` fields a record's
 * text is not kept, only counted: a header too wide, a record too long or a row past the cap costs
 * no memory. A field is kept up to MAX_FIELD_CHARS.
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
        i = this.quotedRun(text, i);
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

  /**
   * A quoted field's text from `i`, in one pass: every quote up to the closing one is doubled, so the run is cut
   * once and its pairs made single at once (a search to the chunk's end for every `""`, to count line breaks,
   * made a field of them quadratic: 19 MB ≈ 40 min). Where the field goes on past this text, its end.
   */
  private quotedRun(text: string, i: number): number {
    const n = text.length;
    let k = i;
    for (; k < n; k++) {
      const c = text.charCodeAt(k);
      if (c === LF) {
        this.line++;
      } else if (c === QUOTE) {
        if (k + 1 < n && text.charCodeAt(k + 1) === QUOTE) {
          k++;
        } else {
          break;
        }
      }
    }
    this.appendQuoted(text.slice(i, k));
    if (k === n) {
      return n;
    }
    if (k + 1 === n) {
      this.quoteAtEnd = true;
      return n;
    }
    this.quoted = false;
    return k + 1;
  }

  end(): void {
    if (this.chars > 0 || this.fieldStarted || this.count > 0) {
      this.endField();
      this.endRecord();
    }
  }

  /** Quoted text whose quotes all come in pairs. */
  private appendQuoted(raw: string): void {
    // split and join, not replaceAll: V8 builds a replacement's result as a chain of pieces, a join's flat.
    this.append(raw, (kept) => (kept.includes('"') ? kept.split('""').join('"') : kept));
  }

  private append(piece: string, unescape?: (raw: string) => string): void {
    this.chars += piece.length;
    const room = MAX_FIELD_CHARS - this.field.length;
    if (this.count < this.keep && room > 0 && piece) {
      // Unescaping at most twice the room: a pair is two characters of the raw text.
      const text = unescape ? unescape(piece.slice(0, 2 * room)) : piece;
      this.field += text.length > room ? text.slice(0, room) : text;
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

export class CsvTable implements TableConsumer {
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
      const fields = this.header.length;
      this.table.problem(line, () => l10n.t('Has {0} fields; the header has {1}.', count, fields));
      return;
    }
    // Entries, not assignments: a column named `__proto__` is a column, never the row's prototype.
    const cells: [string, InputValue][] = [];
    for (const [i, name] of this.header.entries()) {
      if (name === '') {
        continue;
      }
      const cell = typedCell(name, this.types[i], fields[i]);
      if (!cell.ok) {
        this.table.problem(line, cell.message);
        return;
      }
      cells.push([name, cell.value]);
    }
    const row = Object.fromEntries(cells);
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
