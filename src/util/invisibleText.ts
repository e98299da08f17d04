// What a confirmation shows must be all that is sent. Characters that draw nothing (tag characters, zero-width
// spaces and joiners, the word joiner, the byte order mark, soft hyphens, variation selectors, bidi controls) can
// carry a hidden message a model was steered into writing: "Q3" on screen, a hundred characters more in the request.
// Here each becomes a visible ⟦U+XXXX⟧ (runs of one character ⟦U+XXXX ×n⟧). Plain Node (@vscode/l10n).
import * as l10n from '@vscode/l10n';
import { oneLine } from './inertText';

// U+E0000–E007F (tags) and U+E0100–E01EF (variation selectors) are the surrogate pairs \uDB40\uDC00–\uDDEF.
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- joiners and selectors on their own are what it looks for
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFF8]|\uDB40[\uDC00-\uDDEF]/;

/** True when the text holds a character that draws nothing. */
export function hasInvisibles(text: string): boolean {
  return INVISIBLE.test(text);
}

/** The text with every character that draws nothing written out as ⟦U+XXXX⟧ (a run of the same one as ⟦U+XXXX ×n⟧). */
export function revealInvisibles(text: string): string {
  if (!hasInvisibles(text)) {
    return text;
  }
  let out = '';
  let run: { code: number; count: number } | undefined;
  const flush = () => {
    if (run) {
      const name = `U+${run.code.toString(16).toUpperCase().padStart(4, '0')}`;
      out += run.count > 1 ? `⟦${name} ×${run.count}⟧` : `⟦${name}⟧`;
      run = undefined;
    }
  };
  for (const char of text) {
    if (INVISIBLE.test(char)) {
      const code = char.codePointAt(0)!;
      if (run?.code === code) {
        run.count++;
      } else {
        flush();
        run = { code, count: 1 };
      }
    } else {
      flush();
      out += char;
    }
  }
  flush();
  return out;
}

/**
 * A value as a confirmation shows it: on one line, its invisible characters written out, cut to `max`; when what
 * is shown is shorter than what is sent, with the length sent ("(1,204 characters)").
 */
export function shownValue(value: string, max: number): string {
  const visible = revealInvisibles(value);
  const shown = oneLine(visible, max);
  return visible.length > max || hasInvisibles(value) ? `${shown} ${l10n.t('({0} characters)', String(value.length))}` : shown;
}
