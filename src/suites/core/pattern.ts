// Text and `/pattern/flags` checks, run so that no pattern can freeze the host. Two guards, both always on:
// 1. Before a pattern is ever run, a static look refuses nested unbounded quantifiers (`(a+)+`, `(\w*)*`…), the
//    shape of exponential backtracking; the suite file shows the problem at the pattern.
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

/** Why a pattern is refused before it is run (bad syntax, `g`/`y` flags, too long, nested quantifiers); undefined when it may run. */
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
    : l10n.t('The pattern repeats a group that itself repeats (at character {0}): it could backtrack for ever. Rewrite it without nested quantifiers.', nested + 1);
}

/**
 * The index of an unbounded quantifier applied to a group that holds an unbounded quantifier (`(a+)+`, `(?:x*y)*`,
 * `((a)+){2,}`), the shape that backtracks exponentially; undefined when there is none. One pass, no recursion.
 */
export function nestedQuantifier(source: string): number | undefined {
  /** Per open group: whether it holds an unbounded quantifier. */
  const groups: boolean[] = [];
  /** What the next quantifier applies to: a group (and whether it held an unbounded quantifier), or a single atom. */
  let last: { group: boolean; holdsRepeat: boolean } | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      last = { group: false, holdsRepeat: false };
    } else if (c === '[') {
      i = classEnd(source, i);
      last = { group: false, holdsRepeat: false };
    } else if (c === '(') {
      groups.push(false);
      last = undefined;
      if (source[i + 1] === '?') {
        // (?: (?= (?! (?<= (?<! (?<name>: skip to the group's body.
        const named = /^\?<[A-Za-z_$][\w$]*>/.exec(source.slice(i + 1, i + 1 + 64));
        i += named ? named[0].length : source[i + 2] === '<' ? 3 : 2;
      }
    } else if (c === ')') {
      const holdsRepeat = groups.pop() ?? false;
      if (holdsRepeat && groups.length > 0) {
        groups[groups.length - 1] = true;
      }
      last = { group: true, holdsRepeat };
    } else if (c === '|') {
      last = undefined;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(source.slice(i, i + 24)))) {
      let unbounded = c === '*' || c === '+';
      if (c === '{') {
        const brace = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24))!;
        unbounded = brace[2] !== undefined && (brace[3] === '' || Number(brace[3]) > 32);
        i += brace[0].length - 1;
      }
      if (source[i + 1] === '?') {
        i++;
      }
      if (unbounded) {
        if (last?.group && last.holdsRepeat) {
          return i;
        }
        if (groups.length > 0) {
          groups[groups.length - 1] = true;
        }
      }
      last = undefined;
    } else {
      last = { group: false, holdsRepeat: false };
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
