// Turns a task's output spec into the text (and JSON) a deployed crew would report.

import type { TaskOutputSpec } from './types';

export interface RenderedOutput {
  /** What the service reports as the task's raw output / the run's `result` string. */
  text: string;
  /** Set only for `{ json }` outputs: live `result_json`. Fenced JSON leaves it unset, as output_json would be. */
  json?: unknown;
}

const PLACEHOLDER = /\{([^{}\n]+)\}/g;

/** Replaces `{name}` by `values[name]`; unknown names stay, so JSON-looking text survives. */
export function interpolate(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole));
}

function interpolateJson(value: unknown, values: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return interpolate(value, values);
  }
  if (Array.isArray(value)) {
    return value.map((item) => interpolateJson(item, values));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateJson(item, values)]));
  }
  return value;
}

function repeatToLength(unit: string, length: number): string {
  if (unit.length === 0 || length <= 0) {
    return '';
  }
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

export function renderOutput(spec: TaskOutputSpec, values: Record<string, string>): RenderedOutput {
  if (typeof spec === 'string') {
    return { text: interpolate(spec, values) };
  }
  if ('json' in spec) {
    const json = interpolateJson(spec.json, values);
    return { text: JSON.stringify(json, null, 2), json };
  }
  if ('fencedJson' in spec) {
    return { text: '```json\n' + JSON.stringify(interpolateJson(spec.fencedJson, values), null, 2) + '\n```' };
  }
  return { text: repeatToLength(interpolate(spec.repeat, values), spec.bytes) };
}

/**
 * Inputs as placeholder values: kickoff inputs over defaults, everything as a string; an object's fields by their
 * path too (`{crewai_trigger_payload.result.id}`), as a crew started by a trigger reads its payload.
 */
export function placeholderValues(inputs: Record<string, unknown>, defaults: Record<string, string> = {}): Record<string, string> {
  const values: Record<string, string> = { ...defaults };
  for (const [name, value] of Object.entries(inputs)) {
    values[name] = typeof value === 'string' ? value : JSON.stringify(value);
    if (typeof value === 'object' && value !== null) {
      addFieldPaths(values, name, value);
    }
  }
  return values;
}

/** At most 200 fields, 6 levels down: a demo's prompt, not a query language. */
function addFieldPaths(values: Record<string, string>, name: string, value: object): void {
  const stack: [path: string, value: unknown, depth: number][] = [[name, value, 0]];
  let left = 200;
  while (stack.length > 0 && left > 0) {
    const [path, item, depth] = stack.pop()!;
    if (path !== name) {
      values[path] ??= typeof item === 'string' ? item : JSON.stringify(item);
      left -= 1;
    }
    if (typeof item === 'object' && item !== null && depth < 6) {
      for (const key in item) {
        stack.push([`${path}.${key}`, (item as Record<string, unknown>)[key], depth + 1]);
        if (stack.length > left) {
          break;
        }
      }
    }
  }
}
