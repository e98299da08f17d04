// Text and `/pattern/flags` checks, run so that no pattern can freeze the host. Two guards, both always on:
// 1. Before a pattern is ever run, a static look refuses a repeated group that can end in a repeat (`(a+)+`,
//    `(\w+\s?)*`…), the shape of exponential backtracking; the suite file shows the problem at the pattern.
// 2. Every match runs in a `node:vm` script with a timeout (CHECK_LIMITS.patternTimeoutMs), on at most
//    CHECK_LIMITS.matchInputChars of output: V8 interrupts a backtracking regular expression there, and a pattern that
//    ran out of time once is refused from then on (the runner remembers it), so a suite of 10,000 cases costs the host
//    one timeout per bad pattern, not one per case. (Patterns the static look lets through, like `(a|aa)+$`, meet this.)
import * as vm from 'node:vm';
import * as l10n from '@vscode/l10n';
import { CHECK_LIMITS, SUITE_LIMITS } from './limits';
import type { TextMatcher } from './types';

const PATTERN_SYNTAX = /^\/([\s\S]+)\/([dgimsuvy]*)$/;
/** Flags a check may use: `g` and `y` make `test` stateful, `d` is of no use to a yes/no. */
const ALLOWED_FLAGS = /^[imsuv]*$/;

/** Reads a check's text: `/source/flags` is a pattern, anything else literal text. */
export function parseTextMatcher(value: string): TextMatcher {
  const match = PATTERN_SYNTAX.exec(value);
  return match ? { kind: 'pattern', source: match[1], flags: match[2] } : { kind: 'text', text: value };
}

/** How the matcher reads in a message: the text quoted, a pattern as written. */
export function matcherLabel(matcher: TextMatcher): string {
  const text = matcher.kind === 'text' ? JSON.stringify(matcher.text) : `/${matcher.source}/${matcher.flags}`;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** Why a pattern is refused before it is run (bad syntax, `g`/`y` flags, too long, nestedQuantifier); undefined when it may run. */
export function patternProblem(source: string, flags: string): string | undefined {
  if (source.length > SUITE_LIMITS.patternChars) {
    return l10n.t('The pattern is longer than {0} characters.', SUITE_LIMITS.patternChars);
  }
  if (!ALLOWED_FLAGS.test(flags) || new Set(flags).size !== flags.length) {
    return l10n.t('The pattern\'s flags "{0}" are not allowed: use only i, m, s, u and v.', flags);
  }
  try {
    new RegExp(source, flags);
  } catch (error) {
    return l10n.t('This is not a valid pattern: {0}', error instanceof Error ? error.message : String(error));
  }
  const nested = nestedQuantifier(source);
  return nested === undefined
    ? undefined
    : l10n.t('The pattern repeats a group that can end in a repeat (at character {0}): it could backtrack for ever. End each repetition in something fixed: (\\w+,)* rather than (\\w+)*.', nested + 1);
}

/**
 * The index of an unbounded quantifier applied to a group whose content can end in an unbounded repeat (`(a+)+`,
 * `(?:\w+\s?)*`, `((ab)+)*`, `(a|b+)*`): where one repetition of the group ends and the next begins is then ambiguous,
 * the shape that backtracks exponentially. `(\d+,)*` is not refused: its `,` fixes where each repetition ends. One
 * pass, no recursion; undefined when there is none.
 */
export function nestedQuantifier(source: string): number | undefined {
  /** Per open group: whether an alternative already closed ended in a repeat, and the state of the one being read. */
  interface Level {
    anyEnds: boolean;
    ends: boolean;
    /** `ends` before the last atom, and what the last atom is, for the quantifier that may follow it. */
    before: boolean;
    atom?: { group: boolean; ends: boolean };
  }
  const levels: Level[] = [{ anyEnds: false, ends: false, before: false }];
  const top = (): Level => levels[levels.length - 1];
  const addAtom = (group: boolean, ends: boolean): void => {
    const level = top();
    level.before = level.ends;
    level.ends = ends;
    level.atom = { group, ends };
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      addAtom(false, false);
    } else if (c === '[') {
      i = classEnd(source, i);
      addAtom(false, false);
    } else if (c === '(') {
      levels.push({ anyEnds: false, ends: false, before: false });
      if (source[i + 1] === '?') {
        // (?: (?= (?! (?<= (?<! (?<name>: skip to the group's body.
        const named = /^\?<[A-Za-z_$][\w$]*>/.exec(source.slice(i + 1, i + 1 + 64));
        i += named ? named[0].length : source[i + 2] === '<' ? 3 : 2;
      }
    } else if (c === ')' && levels.length > 1) {
      const closed = levels.pop()!;
      addAtom(true, closed.anyEnds || closed.ends);
    } else if (c === '|') {
      const level = top();
      level.anyEnds ||= level.ends;
      level.ends = false;
      level.atom = undefined;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(source.slice(i, i + 24)))) {
      let min = c === '+' ? 1 : 0;
      let unbounded = c === '*' || c === '+';
      if (c === '{') {
        const brace = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24))!;
        min = Number(brace[1]);
        unbounded = brace[2] !== undefined && (brace[3] === '' || Number(brace[3]) > 32);
        i += brace[0].length - 1;
      }
      if (source[i + 1] === '?') {
        i++;
      }
      const level = top();
      const atom = level.atom;
      if (atom) {
        if (unbounded && atom.group && atom.ends) {
          return i;
        }
        // A repeat ends the alternative in a repeat; an atom that may be absent leaves the ending before it in force.
        level.ends = unbounded || atom.ends || (min === 0 && level.before);
        level.atom = undefined;
      }
    } else {
      addAtom(false, false);
    }
  }
  return undefined;
}

/** The index of the `]` closing the class that opens at `start` (escapes inside skipped). */
function classEnd(source: string, start: number): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === '\\') {
      i++;
    } else if (source[i] === ']') {
      return i;
    }
  }
  return source.length;
}

export type MatchResult = { matched: boolean; cut?: boolean } | { error: string };

/** Runs text matchers on outputs with the guards above; one per suite run (it remembers patterns that ran out of time). */
export class PatternRunner {
  private readonly compiled = new Map<string, RegExp | string>();
  private readonly sandbox: { re: RegExp | null; input: string } = { re: null, input: '' };
  private readonly context = vm.createContext(this.sandbox);
  private readonly script = new vm.Script('re.test(input)');
  /** How many times a pattern was run (tests count work with it, not time). */
  runs = 0;

  constructor(readonly timeoutMs: number = CHECK_LIMITS.patternTimeoutMs) {}

  /** Whether `input` contains the matcher's text, or a match of its pattern. */
  test(matcher: TextMatcher, input: string): MatchResult {
    if (matcher.kind === 'text') {
      return { matched: input.includes(matcher.text) };
    }
    const key = `${matcher.flags}/${matcher.source}`;
    let re = this.compiled.get(key);
    if (re === undefined) {
      re = patternProblem(matcher.source, matcher.flags) ?? new RegExp(matcher.source, matcher.flags);
      this.compiled.set(key, re);
    }
    if (typeof re === 'string') {
      return { error: re };
    }
    const cut = input.length > CHECK_LIMITS.matchInputChars;
    this.sandbox.re = re;
    this.sandbox.input = cut ? input.slice(0, CHECK_LIMITS.matchInputChars) : input;
    this.runs++;
    try {
      const matched = this.script.runInContext(this.context, { timeout: this.timeoutMs }) === true;
      return cut ? { matched, cut } : { matched };
    } catch {
      const refused = l10n.t('The pattern took longer than {0} ms and was stopped: it backtracks too much. It is not run again in this suite run.', this.timeoutMs);
      this.compiled.set(key, refused);
      return { error: refused };
    } finally {
      this.sandbox.re = null;
      this.sandbox.input = '';
    }
  }
}
