// What a JSON value typed into a kickoff step lacks, in words a one-line box can show. jsonc-parser names the
// first error; this module and it load on the first JSON that does not parse (dist/jsonProblem.js).
import * as l10n from '@vscode/l10n';
import { parse as parseJsonc, type ParseError, ParseErrorCode } from 'jsonc-parser';

/** Characters of the text before a JSON error that the message quotes, so the place can be found in one line. */
const QUOTED = 16;

/**
 * What a JSON text lacks, in words and at a place a one-line box can show ("a closing "}" is missing at the
 * end"); undefined when it parses. jsonc-parser's first error, strict JSON (no comments, no trailing commas).
 */
export function jsonProblem(name: string, text: string): string | undefined {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) {
    return undefined;
  }
  const before = oneLineTail(text.slice(0, first.offset));
  // A string left open runs to the end: jsonc-parser names where it began.
  const atEnd = first.offset >= text.trimEnd().length || first.error === ParseErrorCode.UnexpectedEndOfString;
  const where = atEnd ? l10n.t('at the end') : before ? l10n.t('after {0}', `“${before}”`) : l10n.t('at the start');
  return l10n.t('The value of "{0}" is not valid JSON: {1} {2}.', name, missingWords(first.error), where);
}

function oneLineTail(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > QUOTED ? `…${line.slice(-QUOTED)}` : line;
}

function missingWords(code: ParseErrorCode): string {
  switch (code) {
    case ParseErrorCode.CloseBraceExpected:
      return l10n.t('a closing "}" is missing');
    case ParseErrorCode.CloseBracketExpected:
      return l10n.t('a closing "]" is missing');
    case ParseErrorCode.CommaExpected:
      return l10n.t('a comma is missing');
    case ParseErrorCode.ColonExpected:
      return l10n.t('a ":" is missing');
    case ParseErrorCode.ValueExpected:
      return l10n.t('a value is missing');
    case ParseErrorCode.PropertyNameExpected:
      return l10n.t('a field name in double quotes is missing');
    case ParseErrorCode.UnexpectedEndOfString:
      return l10n.t('a closing double quote is missing');
    case ParseErrorCode.EndOfFileExpected:
      return l10n.t('there is more after the value');
    default:
      return l10n.t('text must be in double quotes');
  }
}
