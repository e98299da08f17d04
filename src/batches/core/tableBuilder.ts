// What every format of batch source adds to (tableReader.ts picks the format): rows up to the cap, problems
// up to theirs, and the counts past them. Every quantity a source controls is capped here, where it enters: a
// batch is a table someone can review. Pure: no `vscode` here.

import * as l10n from '@vscode/l10n';
import type { Inputs, InputValue } from '../../api/inputValues';

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

/** Larger files are refused by their size, before they are read. */
export const MAX_SOURCE_BYTES = 20_000_000;
export const MAX_ROWS = 10_000;
export const MAX_COLUMNS = 200;
export const MAX_PROBLEMS = 100;
/** Nesting of a JSON row, the row's own object included. */
export const MAX_DEPTH = 32;

/** A format's reader: text as it streams in, then the end. */
export interface TableConsumer {
  push(text: string): void;
  end(): void;
}

/** What every format adds to: rows up to the cap, problems up to theirs, and the counts past them. */
export class TableBuilder {
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

  /** A message made only when it is listed: past MAX_PROBLEMS a problem costs a count. */
  problem(line: number, message: string | (() => string)): void {
    if (this.problems.length < MAX_PROBLEMS) {
      this.problems.push({ line, message: typeof message === 'string' ? message : message() });
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
      this.problem(line, () => l10n.t('Not an object of input names to values.'));
      return;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > MAX_COLUMNS || this.columns.length + entries.filter(([key]) => !this.seen.has(key)).length > MAX_COLUMNS) {
      this.problem(line, () => l10n.t('More than {0} columns; this row is left out.', MAX_COLUMNS));
      return;
    }
    if (deeperThan(value, MAX_DEPTH)) {
      this.problem(line, () => l10n.t('Nested more than {0} levels deep.', MAX_DEPTH));
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
