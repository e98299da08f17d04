// A 2xx reply other than a status, from its bytes to a value, on the status reader's thread (statusReader.ts):
// decoded, the token taken out, read within the caller's limits, and cut to REPLY_VALUE_BUDGET so that what crosses
// to the host's thread (a structured clone, about as costly there as JSON.parse of the same size) stays small
// whatever the body. The host gets back the value and where entries were left out (jsonOfRead). Pure.
import { boundedCopy, markOmitted, omittedEntries, READ_LIMITS, readJsonBounded, type ReadLimits } from './boundedJson';
import { redact } from './redact';
import { ERROR_BODY_BYTES, type JsonBodyRead } from './transportTypes';

/** Characters (about as JSON prints it) of a value sent to the host: 8 MB costs its thread some 25 ms to receive. */
export const REPLY_VALUE_BUDGET = 8 * 1024 * 1024;

/** The body read (worker side), and the start of its redacted text for the words of a reply that is no JSON. */
export function readJsonBody(bytes: Uint8Array, token: string, limits: ReadLimits = READ_LIMITS): { read: JsonBodyRead; head: string } {
  // Invalid UTF-8 becomes U+FFFD rather than an exception, as in the transport.
  const text = redact(new TextDecoder('utf-8', { fatal: false }).decode(bytes), token);
  const head = text.slice(0, ERROR_BODY_BYTES);
  const trimmed = text.trim();
  const parsed = trimmed ? readJsonBounded(trimmed, limits) : { ok: false as const };
  if (!parsed.ok) {
    return { read: { value: undefined, omitted: [] }, head };
  }
  // Over the budget, a breadth-first copy within it (its notes say what was left out); else the value as read.
  const value = sizeWithin(parsed.value, REPLY_VALUE_BUDGET) ? parsed.value : boundedCopy(parsed.value, REPLY_VALUE_BUDGET);
  return { read: { value, omitted: omittedPaths(value) }, head };
}

/** The value on the host's side, with the reader's marks of what it left out put back. */
export function jsonOfRead(read: JsonBodyRead): unknown {
  for (const [path, count] of read.omitted) {
    let at: unknown = read.value;
    for (const step of path) {
      at = (at as Record<string | number, unknown>)[step];
    }
    if (typeof at === 'object' && at !== null) {
      markOmitted(at, count);
    }
  }
  return read.value;
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
