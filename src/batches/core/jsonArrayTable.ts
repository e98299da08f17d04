// A JSON array of objects, read element by element as it streams in.

import * as l10n from '@vscode/l10n';
import { isJsonText } from './jsonCheck';
import type { TableBuilder, TableConsumer } from './tableBuilder';

const NOT_JSON = Symbol('not JSON');

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

/**
 * A JSON array read element by element: the scanner finds each top-level element's end (strings and
 * nesting followed), and only elements before the row cap are kept and parsed. Problems name the element.
 */
export class JsonArrayTable implements TableConsumer {
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
    const text = this.pieces.join('');
    // Checked first: an exception per invalid element would cost seconds for an array of them.
    let value: unknown;
    try {
      value = isJsonText(text) ? JSON.parse(text) : NOT_JSON;
    } catch {
      value = NOT_JSON;
    }
    if (value === NOT_JSON) {
      this.table.problem(this.element, () => l10n.t('Not valid JSON.'));
      return;
    }
    this.table.addObject(this.element, value);
  }
}
