// Which inputs Kick Off asks for, in which order, and what it sends: pure rules, tested in plain Node.
import * as l10n from '@vscode/l10n';
import { inputsLeftOut, MAX_INPUTS } from '../../api/inputsBody';
import type { InputSpec } from '../../api/types';
import { hasValue, inputLine, type InputValue, type Inputs, sameValue } from '../../api/inputValues';
import { isRequiredInput } from './inputPresets';

/** The values so far: any JSON value per input (text typed in a text step is a string). */
export type Draft = Inputs;

/**
 * A flow's `id` as GET /inputs lists it (a name, nothing said about it): optional, with a special,
 * deprecated meaning (it restores a saved state). Kick Off leaves it out unless the user adds it.
 */
export function isFlowId(spec: InputSpec): boolean {
  return spec.name === 'id' && spec.required === undefined && spec.description === undefined;
}

/** Which editor an input's step offers, from the type the crew declared (JSON Schema's words, or Python's). */
export type InputKind = 'text' | 'json' | 'number' | 'boolean';

export function inputKind(spec: InputSpec): InputKind {
  const type = spec.type?.trim().toLowerCase() ?? '';
  if (['object', 'dict', 'array', 'list'].includes(type) || /^(dict|list)\[/.test(type)) {
    return 'json';
  }
  if (['integer', 'int', 'number', 'float'].includes(type)) {
    return 'number';
  }
  return ['boolean', 'bool'].includes(type) ? 'boolean' : 'text';
}

/** The inputs asked one by one: required ones first (in the crew's order), then optional ones; a flow's `id` not at all. */
export function inputsToAsk(specs: readonly InputSpec[]): InputSpec[] {
  const asked = specs.filter((spec) => !isFlowId(spec));
  return [...asked.filter(isRequiredInput), ...asked.filter((spec) => !isRequiredInput(spec))];
}

/** The inputs as sent: every listed input, except an empty optional one (a flow's `id`). */
export function inputsToSend(specs: readonly InputSpec[], draft: Draft): Draft {
  return Object.fromEntries(specs.filter((spec) => isRequiredInput(spec) || hasValue(draft[spec.name])).map((spec) => [spec.name, draft[spec.name] ?? '']));
}

/** Required inputs without a value. */
export function missingInputs(specs: readonly InputSpec[], draft: Draft): string[] {
  return specs.filter((spec) => isRequiredInput(spec) && !hasValue(draft[spec.name])).map((spec) => spec.name);
}

/**
 * The one step counter of the flow (the title's; prompts do not count again): the inputs asked one by one
 * (plus any the user added or the crew asked for since), then the review. `name`'s position, 1-based.
 */
export function stepOf(steps: readonly InputSpec[], name: string): { step: number; total: number } {
  const index = steps.findIndex((spec) => spec.name === name);
  return { step: index + 1 || steps.length + 1, total: steps.length + 1 };
}

/** Whether Escape left anything worth offering back: a value typed that the starting point did not have. */
export function isWorthKeeping(draft: Draft, start: Draft): boolean {
  return Object.entries(draft).some(([name, value]) => hasValue(value) && !sameValue(value, start[name] ?? ''));
}

/**
 * `specs` and the names not among them, as required inputs (a 422's missing or refused inputs): another way a
 * crew's inputs enter, so at most MAX_INPUTS in all.
 */
export function withInputs(specs: readonly InputSpec[], names: readonly string[]): InputSpec[] {
  const listed = new Set(specs.map((spec) => spec.name));
  const added = [...new Set(names)].filter((name) => !listed.has(name)).slice(0, Math.max(0, MAX_INPUTS - specs.length));
  return [...specs, ...added.map((name) => ({ name, required: true }))];
}

/** What to say when the crew listed more inputs than are read (GET /inputs); undefined when it did not. */
export function inputsCapNotice(crewName: string, specs: readonly InputSpec[]): string | undefined {
  const more = inputsLeftOut(specs);
  return more > 0 ? l10n.t('{0} lists {1} inputs; only the first {2} are asked for and sent.', crewName, specs.length + more, MAX_INPUTS) : undefined;
}

/** The declared type's word, as the crew wrote it (JSON Schema's or Python's). */
function declared(spec: InputSpec): string {
  return spec.type?.trim().toLowerCase() ?? '';
}

/** A value given for an input that is a whole number, a number or true/false: the example its message shows. */
function exampleOf(spec: InputSpec, fits: (value: number) => boolean, fallback: string): string {
  const given = spec.default === undefined ? NaN : Number(spec.default);
  return spec.default !== undefined && spec.default.trim() !== '' && Number.isFinite(given) && fits(given) ? spec.default.trim() : fallback;
}

/**
 * What is wrong with a value for an input of a declared type or with allowed values, in words for that type
 * ("max_score takes a whole number, for example 10."); undefined when it fits (or nothing was declared).
 * An empty value is the caller's to judge (required or not).
 */
export function typeProblem(spec: InputSpec, value: InputValue): string | undefined {
  if (!hasValue(value)) {
    return undefined;
  }
  const type = declared(spec);
  if (['integer', 'int'].includes(type) && !(typeof value === 'number' && Number.isInteger(value))) {
    return l10n.t('{0} takes a whole number, for example {1}.', spec.name, exampleOf(spec, Number.isInteger, '10'));
  }
  if (['number', 'float'].includes(type) && typeof value !== 'number') {
    return l10n.t('{0} takes a number, for example {1}.', spec.name, exampleOf(spec, () => true, '0.5'));
  }
  if (['boolean', 'bool'].includes(type) && typeof value !== 'boolean') {
    return l10n.t('{0} takes true or false.', spec.name);
  }
  if (spec.enum?.length && !spec.enum.includes(typeof value === 'string' ? value : inputLine(value))) {
    const shown = spec.enum.slice(0, 10).join(', ') + (spec.enum.length > 10 ? ', …' : '');
    return l10n.t('{0} takes one of: {1}.', spec.name, shown);
  }
  return undefined;
}

/**
 * Text typed for an input that takes a number or true/false, read as that (the words `ten` are not a number);
 * undefined for text of an input of another type.
 */
export function typedFromText(spec: InputSpec, text: string): InputValue | undefined {
  const type = declared(spec);
  const trimmed = text.trim();
  if (['integer', 'int', 'number', 'float'].includes(type)) {
    return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
  }
  if (['boolean', 'bool'].includes(type)) {
    return trimmed === 'true' ? true : trimmed === 'false' ? false : trimmed;
  }
  return undefined;
}

