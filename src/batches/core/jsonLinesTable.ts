// JSON Lines: one object per line; a line past the row cap is counted, not kept.

import * as l10n from '@vscode/l10n';
import type { TableBuilder, TableConsumer } from './tableBuilder';

export class JsonLinesTable implements TableConsumer {
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
