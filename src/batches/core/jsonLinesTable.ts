// JSON Lines: one object per line; a line past the row cap is counted, not kept. A line is checked before it is
// parsed (jsonCheck.ts): a file of millions of invalid lines costs no exception each, and past the listed
// problems no message either.

import * as l10n from '@vscode/l10n';
import { isJsonText } from './jsonCheck';
import type { TableBuilder, TableConsumer } from './tableBuilder';

const OPEN_BRACE = 0x7b;
const NOT_SPACE = /\S/;

export class JsonLinesTable implements TableConsumer {
  private pieces: string[] = [];
  private hasText = false;
  private line = 1;

  constructor(private readonly table: TableBuilder) {}

  push(text: string): void {
    let from = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', from)) {
      if (this.pieces.length === 0 && !this.hasText) {
        // The whole line is in this text: read where it is, nothing copied.
        this.endLine(text.slice(from, newline));
      } else {
        this.add(text.slice(from, newline));
        this.endLine(this.takeLine());
      }
      from = newline + 1;
    }
    this.add(text.slice(from));
  }

  end(): void {
    this.endLine(this.takeLine());
  }

  /** Past the row cap a line's text is not kept: only whether it has any. */
  private add(piece: string): void {
    if (this.table.full) {
      this.hasText ||= NOT_SPACE.test(piece);
    } else if (piece) {
      this.pieces.push(piece);
    }
  }

  private takeLine(): string {
    const raw = this.pieces.length === 1 ? this.pieces[0] : this.pieces.join('');
    this.pieces = [];
    return raw;
  }

  private endLine(raw: string): void {
    const line = this.line++;
    const first = raw.search(NOT_SPACE);
    const hasText = this.hasText || first >= 0;
    this.hasText = false;
    if (!hasText) {
      return;
    }
    if (this.table.full) {
      this.table.leaveOut(line);
      return;
    }
    // Only an object is a row: anything else is a problem without parsing, said as JSON.parse would have it.
    if (raw.charCodeAt(first) !== OPEN_BRACE) {
      this.table.problem(line, () => (isJsonText(raw) ? l10n.t('Not an object of input names to values.') : l10n.t('Not valid JSON.')));
      return;
    }
    if (!isJsonText(raw)) {
      this.table.problem(line, () => l10n.t('Not valid JSON.'));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      this.table.problem(line, () => l10n.t('Not valid JSON.'));
      return;
    }
    this.table.addObject(line, value);
  }
}
