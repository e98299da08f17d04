// Input values as JSON: a crew takes any JSON value per input (`crew.kickoff(inputs=...)`), so what the user
// gives is what reaches POST /kickoff. Pure, no `vscode`: the wizard, presets, runs, batches and chat share it.
// Nothing here recurses: a value nested 10,000 levels deep is measured, refused and said, never a stack overflow.
import * as l10n from '@vscode/l10n';
import { isPlainObject } from '../util/objects';

export type InputValue = string | number | boolean | null | InputValue[] | { [key: string]: InputValue };

/** What a kickoff sends: input name → any JSON value. */
export type Inputs = Record<string, InputValue>;

/** The largest value, as JSON text: a value this large is a paste gone wrong, not an input. */
export const MAX_INPUT_VALUE_LENGTH = 1_000_000;
/** The deepest nesting of one value: deeper is a mistake (or an attack), and would be slow to show. */
export const MAX_INPUT_DEPTH = 64;

/** Why a value cannot be sent, in words that name the input; undefined when it can. */
export type ValueProblem = { kind: 'tooLong' | 'tooDeep' | 'notJson'; message: string };

/**
 * Whether `value` is a JSON value within the limits: finite numbers, no undefined, functions or cycles.
 * Walks with an explicit stack, and stops at the first problem.
 */
export function valueProblem(name: string, value: unknown): ValueProblem | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let length = 0;
  const tooLong = (): ValueProblem => ({
    kind: 'tooLong',
    message: l10n.t('The value of "{0}" is too long (over {1} characters).', name, MAX_INPUT_VALUE_LENGTH.toLocaleString('en-US')),
  });
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (depth > MAX_INPUT_DEPTH) {
      return { kind: 'tooDeep', message: l10n.t('The value of "{0}" is nested too deeply (over {1} levels).', name, String(MAX_INPUT_DEPTH)) };
    }
    if (typeof v === 'string') {
      length += v.length;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) {
        return { kind: 'notJson', message: l10n.t('The value of "{0}" is not a JSON value (a number that is not finite).', name) };
      }
      length += 8;
    } else if (typeof v === 'boolean' || v === null) {
      length += 5;
    } else if (Array.isArray(v)) {
      length += 2 + v.length;
      for (const item of v) {
        stack.push({ value: item, depth: depth + 1 });
      }
    } else if (isPlainObject(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v))) {
      length += 2;
      for (const [key, item] of Object.entries(v)) {
        length += key.length + 4;
        stack.push({ value: item, depth: depth + 1 });
      }
    } else {
      return { kind: 'notJson', message: l10n.t('The value of "{0}" is not a JSON value.', name) };
    }
    if (length > MAX_INPUT_VALUE_LENGTH) {
      return tooLong();
    }
  }
  return undefined;
}

/** The first input whose value cannot be sent, and why; undefined when every one can. */
export function inputsProblem(inputs: Record<string, unknown>): ValueProblem | undefined {
  for (const [name, value] of Object.entries(inputs)) {
    const problem = valueProblem(name, value);
    if (problem) {
      return problem;
    }
  }
  return undefined;
}

/** An object of JSON values within the limits (stored presets, run files, arguments from other extensions). */
export function isInputs(value: unknown): value is Inputs {
  return isPlainObject(value) && inputsProblem(value) === undefined;
}

/** A value for reading: text as it is, anything else as indented JSON (never `[object Object]`). */
export function inputText(value: InputValue | undefined): string {
  if (value === undefined) {
    return '';
  }
  return typeof value === 'string' ? value : JSON.stringify(value, undefined, 2);
}

/** A value on one line (summaries, labels, review items): text as it is, anything else as compact JSON. */
export function inputLine(value: InputValue | undefined): string {
  if (value === undefined) {
    return '';
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Whether a value counts as given: not an empty or blank text, not null. */
export function hasValue(value: InputValue | undefined): boolean {
  return value !== undefined && value !== null && (typeof value !== 'string' || value.trim() !== '');
}

/** Whether two values are the same JSON. */
export function sameValue(a: InputValue | undefined, b: InputValue | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

export type ParsedValue = { ok: true; value: InputValue } | { ok: false; message: string; line?: number; column?: number };

/**
 * JSON text typed for one input: the value, or what is wrong, at which line and column (1-based). Checks the
 * size before parsing, and the nesting after (JSON.parse itself does not recurse).
 */
export function parseInputValue(name: string, text: string): ParsedValue {
  if (text.length > MAX_INPUT_VALUE_LENGTH) {
    return { ok: false, message: l10n.t('The value of "{0}" is too long (over {1} characters).', name, MAX_INPUT_VALUE_LENGTH.toLocaleString('en-US')) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const where = errorPosition(text, error);
    return where
      ? { ok: false, message: l10n.t('The value of "{0}" is not valid JSON (line {1}, column {2}).', name, String(where.line), String(where.column)), ...where }
      : { ok: false, message: l10n.t('The value of "{0}" is not valid JSON.', name) };
  }
  const problem = valueProblem(name, value);
  return problem ? { ok: false, message: problem.message } : { ok: true, value: value as InputValue };
}

/** Where JSON.parse stopped, when V8 says so ("at position N"; some of its messages do not). */
function errorPosition(text: string, error: unknown): { line: number; column: number } | undefined {
  const message = error instanceof Error ? error.message : '';
  const position = /at position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : /end of JSON input/i.test(message) ? text.length : undefined;
  if (offset === undefined) {
    return undefined;
  }
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
