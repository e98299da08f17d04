// The event log of a status reply (status-events.md), read into bounded RunEvents. The service does not publish
// an entry's fields, so every field is optional and what is not understood is kept, clipped, in `extra`. Runs on
// the status reader's thread with the rest of the body (normalize.ts); never throws for any body. Pure.

import { isJsonObject, type JsonObject } from './bodies';
import { boundedCopy, omittedEntries } from './boundedJson';
import type { EventUsage, KnownEvents, RunEvent, StatusEventLog } from './types';
import { stripControls } from '../util/inertText';
import { withoutUndefined } from '../util/objects';

/** What one reply may put into a run's event log, at most. */
export const EVENT_LIMITS = {
  /** Entries read from one reply: the newest of its window. */
  perReply: 5_000,
  /** Names, types, ids, models, tools. */
  labelChars: 256,
  errorChars: 4 * 1024,
  toolArgsChars: 1024,
  /** Fields kept in `extra`, and the characters of each. */
  extraFields: 8,
  extraChars: 256,
  byTypeEntries: 200,
} as const;

/** The fields read into RunEvent's own members (the rest go to `extra`). */
const KNOWN = new Set([
  'type', 'event_type', 'timestamp', 'emission_sequence', 'event_id', 'id', 'parent_event_id', 'started_event_id',
  'task_id', 'task_name', 'agent_id', 'agent_role', 'model', 'call_id', 'finish_reason', 'tool_name', 'tool_args',
  'from_cache', 'method_name', 'flow_name', 'error', 'usage', 'started_at', 'finished_at',
  // Links the trace does not draw: kept out of `extra` so that it holds what a reader may care about.
  'previous_event_id', 'triggered_by_event_id', 'source_type', 'source_fingerprint', 'fingerprint_metadata', 'data',
]);

/** The event fields of a status body, or undefined when it has none of them at all. `known`: events to leave out. */
export function readEventLog(fields: JsonObject, known?: KnownEvents): StatusEventLog | undefined {
  const list = fields['events'];
  const hasAny = ['events', 'events_count', 'events_by_type', 'last_event'].some((key) => key in fields);
  if (!hasAny) {
    return undefined;
  }
  const listed = Array.isArray(list) ? list.length + omittedEntries(list) : 0;
  const entries = Array.isArray(list) ? list.slice(-EVENT_LIMITS.perReply) : [];
  const events: RunEvent[] = [];
  const knownKeys = known && known.length > 0 ? new Set(known) : undefined;
  let skipped = 0;
  for (const entry of entries) {
    const event = readEvent(entry);
    if (event && knownKeys?.has(eventKeyHash(event.key))) {
      skipped++;
    } else if (event) {
      events.push(event);
    }
  }
  const notRead = listed - events.length - skipped;
  // The newest summary, when the list lags it or is left out (the platform guide's replies carry it alone).
  const last = readEvent(fields['last_event']);
  if (last && !events.some((e) => e.key === last.key) && !knownKeys?.has(eventKeyHash(last.key))) {
    events.push(last);
  }
  const log: StatusEventLog = {
    present: Array.isArray(list) || last !== undefined,
    events,
    notRead: notRead > 0 ? notRead : undefined,
    known: skipped > 0 ? skipped : undefined,
    count: count(fields['events_count']),
    byType: readByType(fields['events_by_type']),
    usage: readUsage(fields['usage_metrics']),
    triggeredBy: readTrigger(fields['triggered_by']),
    origin: label(fields['execution_origin']),
    source: label(fields['source']),
  };
  return withoutUndefined(log);
}

/**
 * A 53-bit hash of an event's key (two 32-bit rounds, the high 21 bits of one over the other): exact as a
 * double, so a Float64Array carries a run's known events to the reader's thread. Two of 20,000 keys sharing one is
 * about a 1 in 10⁷ chance, and the host still deduplicates by the key itself.
 */
export function eventKeyHash(key: string): number {
  const [a, b] = twoHashes(key);
  return (a >>> 11) * 0x100000000 + b;
}

/** Two unsigned 32-bit hashes of `text`: FNV-1a, and a multiply-xor with another seed. */
function twoHashes(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, b >>> 0];
}

/** One entry; undefined for what is no object at all. */
export function readEvent(entry: unknown): RunEvent | undefined {
  if (!isJsonObject(entry)) {
    return undefined;
  }
  // Webhook deliveries nest an event's fields in `data` (status-events.md): read there what the entry lacks.
  const data = isJsonObject(entry['data']) ? entry['data'] : undefined;
  const field = (key: string): unknown => entry[key] ?? data?.[key];
  const id = label(entry['event_id']) ?? label(entry['id']);
  const fromCache = field('from_cache');
  const event: RunEvent = {
    key: id !== undefined ? `id:${id}` : `h:${hashOf(entry)}`,
    type: label(field('type')) ?? label(field('event_type')) ?? 'unknown',
    at: time(field('timestamp')),
    seq: count(field('emission_sequence')),
    id,
    parentId: label(field('parent_event_id')),
    startedId: label(field('started_event_id')),
    taskId: label(field('task_id')),
    taskName: label(field('task_name')),
    agentId: label(field('agent_id')),
    agentRole: label(field('agent_role')),
    model: label(field('model')),
    callId: label(field('call_id')),
    finishReason: label(field('finish_reason')),
    toolName: label(field('tool_name')),
    toolArgs: text(field('tool_args'), EVENT_LIMITS.toolArgsChars),
    fromCache: typeof fromCache === 'boolean' ? fromCache : undefined,
    methodName: label(field('method_name')),
    flowName: label(field('flow_name')),
    error: text(field('error'), EVENT_LIMITS.errorChars),
    usage: readUsage(field('usage')),
    startedAt: time(field('started_at')),
    finishedAt: time(field('finished_at')),
    extra: readExtra(entry),
  };
  return withoutUndefined(event);
}

function readExtra(entry: JsonObject): Record<string, string> | undefined {
  const extra: Record<string, string> = {};
  let kept = 0;
  for (const key of Object.keys(entry)) {
    if (kept >= EVENT_LIMITS.extraFields) {
      break;
    }
    if (KNOWN.has(key) || entry[key] === null || entry[key] === undefined) {
      continue;
    }
    const value = text(entry[key], EVENT_LIMITS.extraChars);
    if (value !== undefined) {
      // defineProperty: a key such as `__proto__` stays a plain key.
      Object.defineProperty(extra, clipText(stripControls(key), EVENT_LIMITS.labelChars), { value, enumerable: true, writable: true, configurable: true });
      kept++;
    }
  }
  return kept > 0 ? extra : undefined;
}

function readUsage(value: unknown): (EventUsage & { successfulRequests?: number }) | undefined {
  if (!isJsonObject(value)) {
    return undefined;
  }
  const usage = withoutUndefined({
    promptTokens: count(value['prompt_tokens'] ?? value['input_tokens']),
    completionTokens: count(value['completion_tokens'] ?? value['output_tokens']),
    cachedPromptTokens: count(value['cached_prompt_tokens'] ?? value['cached_tokens']),
    totalTokens: count(value['total_tokens']),
    successfulRequests: count(value['successful_requests']),
  });
  return Object.keys(usage).length > 0 ? usage : undefined;
}

function readByType(value: unknown): Record<string, number> | undefined {
  if (!isJsonObject(value)) {
    return undefined;
  }
  const byType: Record<string, number> = {};
  let kept = 0;
  for (const key of Object.keys(value)) {
    const n = count(value[key]);
    if (n !== undefined && kept < EVENT_LIMITS.byTypeEntries) {
      Object.defineProperty(byType, clipText(stripControls(key), EVENT_LIMITS.labelChars), { value: n, enumerable: true, writable: true, configurable: true });
      kept++;
    }
  }
  return kept > 0 ? byType : undefined;
}

function readTrigger(value: unknown): StatusEventLog['triggeredBy'] {
  return isJsonObject(value) ? withoutUndefined({ type: label(value['type']) ?? 'unknown', id: label(value['id']) }) : undefined;
}

/** A name or id on one line, without controls, clipped. Numbers become their digits. */
function label(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
  const line = raw === undefined ? undefined : stripControls(raw.replace(/[\r\n\t\u2028\u2029]+/g, ' ')).trim();
  return line ? clipText(line, EVENT_LIMITS.labelChars) : undefined;
}

/** Any value as text (structures as compact JSON), clipped; controls but line breaks removed. */
function text(value: unknown, max: number): string | undefined {
  if (value === null || value === undefined) {
    return undefined;
  }
  const raw = typeof value === 'string' ? value : safeJson(typeof value === 'object' ? boundedCopy(value, max) : value);
  return raw === undefined || raw === '' ? undefined : clipText(stripControls(raw), max);
}

function clipText(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}… [${value.length - max} more characters]` : value;
}

function count(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;
}

/** Epoch milliseconds from an ISO text or a number of seconds (or milliseconds, when it is that large). */
function time(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    return value > 1e11 ? value : value * 1000;
  }
  if (typeof value === 'string' && value.length <= 64) {
    // A time without a zone is the service's UTC.
    const iso = /^\d{4}-\d\d-\d\dT[\d:.]+$/.test(value) ? `${value}Z` : value;
    const ms = Date.parse(iso);
    return Number.isFinite(ms) ? ms : undefined;
  }
  return undefined;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Two 32-bit hashes of the entry's JSON: the same summary seen in two polls gets the same key, and two of 10,000
 * different summaries sharing one is about a 1 in 10⁹ chance.
 */
function hashOf(entry: JsonObject): string {
  const [a, b] = twoHashes(safeJson(boundedCopy(entry, 16 * 1024)) ?? '');
  return `${a.toString(36)}${b.toString(36)}`;
}

