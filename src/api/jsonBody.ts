// A 2xx reply other than a status, from its bytes to a value, on the status reader's thread (statusReader.ts):
// decoded, the token taken out, read within the caller's limits. What crosses to the host's thread is JSON text of
// that value, at most REPLY_VALUE_BUDGET characters, which the host parses (jsonOfRead): a structured clone of the
// value cost the host 2-3× a JSON.parse of it. A reply within the limits and the budget (nearly all) is read with
// JSON.parse, some 3× quicker than the bounded reader, and sent as its own text; any other is read by the bounded
// reader and sent as JSON of what it kept, with where it left entries out. Pure.
import { boundedCopy, markOmitted, omittedEntries, READ_LIMITS, readJsonBounded, withinLimits, type ReadLimits } from './boundedJson';
import { redact } from './redact';
import { ERROR_BODY_BYTES, type JsonBodyRead } from './transportTypes';

/** Characters of JSON sent to the host: 8 MB costs its thread some 25 ms to parse. */
export const REPLY_VALUE_BUDGET = 8 * 1024 * 1024;

/** The most characters JSON prints for one of a string's (`\u0001`): a copy within budget / 6 prints within budget. */
const MAX_PRINTED_PER_CHAR = 6;

/**
 * Objects and arrays a body may open for JSON.parse to read it first: what it builds is bounded by them and the
 * budget (8 MB of `[[[[…` would cost the reader's thread seconds), and a body within the limits has far fewer.
 */
const MAX_PARSED_CONTAINERS = 250_000;

/** The body read (worker side), and the start of its redacted text for the words of a reply that is no JSON. */
export function readJsonBody(bytes: Uint8Array, token: string, limits: ReadLimits = READ_LIMITS): { read: JsonBodyRead; head: string } {
  const text = redactedText(bytes, token);
  const head = text.slice(0, ERROR_BODY_BYTES);
  const trimmed = text.trim();
  const whole = parsedWhole(trimmed);
  if (whole && withinLimits(whole.value, limits)) {
    return { read: { json: trimmed, omitted: [] }, head };
  }
  const parsed = trimmed ? readJsonBounded(trimmed, limits) : { ok: false as const };
  if (!parsed.ok) {
    return { read: { omitted: [] }, head };
  }
  // Over the budget, a breadth-first copy within it (its notes say what was left out); else the value as read.
  let value = sizeWithin(parsed.value, REPLY_VALUE_BUDGET) ? parsed.value : boundedCopy(parsed.value, REPLY_VALUE_BUDGET);
  let json = JSON.stringify(value);
  if (json.length > REPLY_VALUE_BUDGET) {
    // Escapes: characters that print as several.
    value = boundedCopy(parsed.value, REPLY_VALUE_BUDGET / MAX_PRINTED_PER_CHAR);
    json = JSON.stringify(value);
  }
  return { read: { json, omitted: omittedPaths(value) }, head };
}

/** The value on the host's side (JSON.parse of the reader's text), with its marks of what it left out put back. */
export function jsonOfRead(read: JsonBodyRead): unknown {
  if (read.json === undefined) {
    return undefined;
  }
  const value: unknown = JSON.parse(read.json);
  for (const [path, count] of read.omitted) {
    let at: unknown = value;
    for (const step of path) {
      at = (at as Record<string | number, unknown>)[step];
    }
    if (typeof at === 'object' && at !== null) {
      markOmitted(at, count);
    }
  }
  return value;
}

/** A body's text: decoded (invalid UTF-8 becomes U+FFFD rather than an exception, as in the transport), the token out. */
export function redactedText(bytes: Uint8Array, token: string): string {
  return redact(new TextDecoder('utf-8', { fatal: false }).decode(bytes), token);
}

/**
 * `text` (trimmed) read by JSON.parse (strict JSON: the bounded reader is lenient), when it is within the budget and
 * opens few enough containers; undefined when it is not, or is no JSON.
 */
export function parsedWhole(text: string): { value: unknown } | undefined {
  if (text.length > REPLY_VALUE_BUDGET) {
    return undefined;
  }
  let containers = 0;
  for (const open of ['{', '[']) {
    for (let at = text.indexOf(open); at !== -1; at = text.indexOf(open, at + 1)) {
      if (++containers > MAX_PARSED_CONTAINERS) {
        return undefined;
      }
    }
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** Whether `value` prints within `budget` characters, about: stops counting once over. Iterative. */
function sizeWithin(value: unknown, budget: number): boolean {
  let left = budget;
  const stack: unknown[] = [value];
  while (stack.length > 0 && left >= 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      left -= current.length + 3;
    } else if (typeof current === 'object' && current !== null) {
      const keys = Object.keys(current);
      left -= 2 + keys.length;
      for (const key of keys) {
        if (!Array.isArray(current)) {
          left -= key.length + 3;
        }
        stack.push((current as Record<string, unknown>)[key]);
      }
    } else {
      left -= 8;
    }
  }
  return left >= 0;
}

/** Every container of `value` the reader left entries out of, by its path. */
function omittedPaths(value: unknown): JsonBodyRead['omitted'] {
  const found: JsonBodyRead['omitted'] = [];
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current !== 'object' || current === null) {
      continue;
    }
    const count = omittedEntries(current);
    if (count > 0) {
      found.push([path, count]);
    }
    if (Array.isArray(current)) {
      current.forEach((item, i) => typeof item === 'object' && item !== null && stack.push([item, [...path, i]]));
    } else {
      for (const [key, item] of Object.entries(current)) {
        if (typeof item === 'object' && item !== null) {
          stack.push([item, [...path, key]]);
        }
      }
    }
  }
  return found;
}
