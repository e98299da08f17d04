// Pure, never-throwing parsers for the bodies of POST /kickoff, POST /resume and error replies (GET /inputs: ./inputsBody).
// Both body families exist (documented and live, see the shared API notes): parse tolerantly, and say
// "don't know" (undefined) rather than guess.

import type { ResumeResult } from './types';
import { isPlainObject } from '../util/objects';

/** Longest error text we hand to the UI; gateway pages and stack traces can be huge. */
export const MAX_ERROR_MESSAGE_LENGTH = 300;

export type JsonObject = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export const isJsonObject: (value: unknown) => value is JsonObject = isPlainObject;

/** A non-blank string as given, else undefined. */
export function nonBlankString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** An identifier-like value: a non-blank string (trimmed) or a finite number, as a string. */
export function idString(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return String(value);
  }
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** JSON.stringify that cannot throw (cycles, BigInt) and never returns undefined for a defined value. */
export function safeStringify(value: unknown, indent?: number): string | undefined {
  try {
    return JSON.stringify(value, undefined, indent) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Deepest nesting of JSON kept as a structure. JSON.parse reads any depth, but JSON.stringify and
 * structured cloning overflow the stack a few thousand levels down, and a run's snapshot is stored
 * as JSON: a hostile body nested deeper would make the run unstorable.
 */
export const MAX_JSON_DEPTH = 256;

/** Whether objects/arrays nest deeper than `max` levels. Iterative: safe on any depth. */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) {
      continue;
    }
    if (depth >= max) {
      return true;
    }
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) {
        stack.push([child, depth + 1]);
      }
    }
  }
  return false;
}

/** The value with every structure deeper than `max` levels replaced by a short note; the value itself when within. */
export function clipJsonDepth(value: unknown, max = MAX_JSON_DEPTH): unknown {
  if (!exceedsJsonDepth(value, max)) {
    return value;
  }
  const clip = (current: unknown, depth: number): unknown => {
    if (typeof current !== 'object' || current === null) {
      return current;
    }
    if (depth >= max) {
      return `[nested deeper than ${max} levels; not shown]`;
    }
    if (Array.isArray(current)) {
      return current.map((item) => clip(item, depth + 1));
    }
    return Object.fromEntries(Object.entries(current).map(([key, item]) => [key, clip(item, depth + 1)]));
  };
  return clip(value, 0);
}

export function parseJsonLenient(text: string): { ok: true; value: unknown } | { ok: false } {
  // A BOM or surrounding whitespace is common from gateways and files; neither changes the meaning.
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') {
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(trimmed) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The transport may hand over a body as text: read JSON out of it when it is JSON, else keep the text. */
export function decodeBody(body: unknown): unknown {
  if (typeof body !== 'string') {
    return body;
  }
  const parsed = parseJsonLenient(body);
  return parsed.ok ? parsed.value : body;
}

function inputName(entry: unknown): string | undefined {
  if (typeof entry === 'number' && Number.isFinite(entry)) {
    return String(entry);
  }
  return nonBlankString(entry);
}

function dedupe(names: readonly string[]): string[] {
  return [...new Set(names)];
}

/** Where a kickoff reply may carry the run's id: the hosted service, then what self-hosted servers use. */
export const KICKOFF_ID_KEYS = ['kickoff_id', 'kickoffId', 'id', 'task_id', 'execution_id', 'run_id'] as const;

/** The run id from POST /kickoff (the first of KICKOFF_ID_KEYS present), or undefined. */
export function parseKickoffBody(body: unknown): string | undefined {
  return idUnder(body, KICKOFF_ID_KEYS);
}

function idUnder(body: unknown, keys: readonly string[]): string | undefined {
  const decoded = decodeBody(body);
  if (!isJsonObject(decoded)) {
    return undefined;
  }
  return keys.map((key) => idString(decoded[key])).find((id) => id !== undefined);
}

/**
 * What a successful POST /resume said. Live deployments answer `{"kickoff_id": new id}` (follow the run under
 * it; wins over anything else in the body); the docs answer `{"status": "resumed"|"retrying"|"completed",
 * "message"}`. Error bodies (`error`/`detail`) and shapes with neither are undefined: the caller decides
 * from the HTTP status what an unreadable 2xx means.
 */
/** The error a 2xx POST /resume body carries (`{"error"}`, `{"detail"}`), or undefined when it is no error body. */
export function resumeErrorText(body: unknown): string | undefined {
  const decoded = decodeBody(body);
  if (!isJsonObject(decoded) || idUnder(decoded, ['kickoff_id', 'kickoffId']) !== undefined || !('error' in decoded || 'detail' in decoded)) {
    return undefined;
  }
  return extractErrorMessage(decoded);
}

export function parseResumeBody(body: unknown): ResumeResult | undefined {
  const decoded = decodeBody(body);
  if (!isJsonObject(decoded)) {
    return undefined;
  }
  // Only the kickoff id keys: a resume reply's `task_id` or `execution_id` names the old run or its task.
  const kickoffId = idUnder(decoded, ['kickoff_id', 'kickoffId']);
  if (kickoffId !== undefined) {
    return { kind: 'continuedAs', kickoffId };
  }
  if ('error' in decoded || 'detail' in decoded) {
    return undefined;
  }
  const status = nonBlankString(decoded['status'])?.trim();
  const message = nonBlankString(decoded['message'])?.trim();
  if (status === undefined && message === undefined) {
    return undefined;
  }
  const result: ResumeResult = { kind: 'resumed' };
  if (status !== undefined) {
    result.status = status;
  }
  if (message !== undefined) {
    result.message = message;
  }
  return result;
}

const MISSING_INPUTS_PATTERN = /missing(?:\s+required)?\s+inputs?\s*:\s*([\s\S]+)$/i;

/**
 * Names of missing inputs from a 422, in either family:
 * - docs `{"details": {"missing_inputs": [...]}}` (also accepted at the top level);
 * - live `{"detail": "Missing inputs: audience, topic"}`;
 * - FastAPI `{"detail": [{"loc": ["body", "inputs", name], "msg": "Field required"}]}`.
 * The live message joins names with ", ", so a name that itself contains a comma is ambiguous. When the
 * caller passes the crew's known input names, the list is split into known names where that is possible
 * (longest match first); otherwise it is split on commas. Surrounding quotes or brackets (a Python
 * list/set repr) are removed.
 */
export function extractMissingInputs(body: unknown, knownInputs: readonly string[] = []): string[] {
  const decoded = decodeBody(body);
  if (typeof decoded === 'string') {
    return missingFromMessage(decoded, knownInputs);
  }
  if (!isJsonObject(decoded)) {
    return [];
  }
  const details = decoded['details'];
  const docsList = isJsonObject(details) ? details['missing_inputs'] : decoded['missing_inputs'];
  if (Array.isArray(docsList)) {
    return dedupe(docsList.map(inputName).filter((name): name is string => name !== undefined));
  }
  const detail = decoded['detail'];
  if (typeof detail === 'string') {
    return missingFromMessage(detail, knownInputs);
  }
  if (Array.isArray(detail)) {
    return dedupe(detail.map(missingFromFastApiEntry).filter((name): name is string => name !== undefined));
  }
  const message = nonBlankString(decoded['message']);
  return message === undefined ? [] : missingFromMessage(message, knownInputs);
}

function missingFromMessage(message: string, knownInputs: readonly string[]): string[] {
  const match = MISSING_INPUTS_PATTERN.exec(message.trim());
  if (!match) {
    return [];
  }
  const listText = match[1].trim().replace(/^[[{(]\s*/, '').replace(/\s*[\]})]\.?$/, '').replace(/\.$/, '');
  const known = splitIntoKnownNames(listText, knownInputs);
  const names = known ?? listText.split(',').map((part) => stripQuotes(part.trim()));
  return dedupe(names.filter((name) => name.trim() !== ''));
}

function stripQuotes(text: string): string {
  return /^(['"]).*\1$/s.test(text) && text.length >= 2 ? text.slice(1, -1) : text;
}

/** Splits "a, b, c" into known names joined by ", " (each optionally quoted), or undefined if impossible. */
function splitIntoKnownNames(listText: string, knownInputs: readonly string[]): string[] | undefined {
  const candidates = [...new Set(knownInputs)].filter((name) => name !== '').sort((a, b) => b.length - a.length);
  if (candidates.length === 0) {
    return undefined;
  }
  const split = (rest: string): string[] | undefined => {
    for (const name of candidates) {
      for (const form of [name, `'${name}'`, `"${name}"`]) {
        if (rest === form) {
          return [name];
        }
        if (rest.startsWith(form)) {
          const after = /^\s*,\s*/.exec(rest.slice(form.length));
          if (after) {
            const tail = split(rest.slice(form.length + after[0].length));
            if (tail) {
              return [name, ...tail];
            }
          }
        }
      }
    }
    return undefined;
  };
  return split(listText);
}

/** `{"loc": ["body", "inputs", "topic"], "msg": "Field required"}` → "topic"; other entries → undefined. */
function missingFromFastApiEntry(entry: unknown): string | undefined {
  if (!isJsonObject(entry) || !Array.isArray(entry['loc'])) {
    return undefined;
  }
  const isMissing = entry['type'] === 'missing' || /field required/i.test(String(entry['msg'] ?? ''));
  const loc = entry['loc'];
  const inputsAt = loc.indexOf('inputs');
  if (!isMissing || inputsAt < 0 || inputsAt !== loc.length - 2) {
    return undefined;
  }
  return inputName(loc[inputsAt + 1]);
}

/**
 * A readable, single-line, length-capped message from any error body, or undefined when there is none:
 * docs `{error, message, details}`, FastAPI `{detail: string}` / `{detail: [{loc, msg}]}`, plain text and
 * HTML gateway pages. Unknown JSON shapes are shown as compact JSON rather than swallowed.
 */
export function extractErrorMessage(body: unknown): string | undefined {
  const decoded = decodeBody(body);
  if (typeof decoded === 'string') {
    return clipText(looksLikeHtml(decoded) ? htmlToText(decoded) : decoded);
  }
  if (Array.isArray(decoded)) {
    return fastApiDetailText(decoded) ?? clipText(safeStringify(decoded) ?? '');
  }
  if (!isJsonObject(decoded)) {
    return undefined;
  }
  const detail = decoded['detail'];
  if (typeof detail === 'string' && detail.trim() !== '') {
    return clipText(detail);
  }
  if (Array.isArray(detail)) {
    const text = fastApiDetailText(detail);
    if (text !== undefined) {
      return clipText(text);
    }
  }
  const docsText = docsErrorText(decoded);
  if (docsText !== undefined) {
    return clipText(docsText);
  }
  if (Object.keys(decoded).length === 0) {
    return undefined;
  }
  return clipText(safeStringify(decoded) ?? '');
}

function docsErrorText(body: JsonObject): string | undefined {
  const errorField = body['error'];
  const error = nonBlankString(errorField) ?? (isJsonObject(errorField) ? nonBlankString(errorField['message']) : undefined);
  const message = nonBlankString(body['message']);
  let text: string | undefined;
  if (error !== undefined && message !== undefined) {
    // "Not Found: The requested resource was not found" reads fine; "X: X" does not.
    const sameWords = message.toLowerCase().includes(error.toLowerCase());
    text = sameWords ? message : `${error}: ${message}`;
  } else {
    text = message ?? error;
  }
  const missing = extractMissingInputs(body);
  if (text !== undefined && missing.length > 0 && isJsonObject(body['details'])) {
    text = `${text} (${missing.join(', ')})`;
  }
  return text;
}

/** FastAPI validation list → "body.executionId: Field required; body.taskId: Field required". */
function fastApiDetailText(entries: readonly unknown[]): string | undefined {
  const parts = entries
    .map((entry) => {
      if (typeof entry === 'string') {
        return nonBlankString(entry);
      }
      if (!isJsonObject(entry)) {
        return undefined;
      }
      const message = nonBlankString(entry['msg']) ?? nonBlankString(entry['message']);
      const loc = Array.isArray(entry['loc'])
        ? entry['loc'].filter((part) => typeof part === 'string' || typeof part === 'number').join('.')
        : '';
      if (message === undefined) {
        return loc === '' ? undefined : `${loc}: invalid`;
      }
      return loc === '' ? message : `${loc}: ${message}`;
    })
    .filter((part): part is string => part !== undefined);
  return parts.length === 0 ? undefined : parts.join('; ');
}

function looksLikeHtml(text: string): boolean {
  return /<\s*(html|head|body|title|h1|p|div|center|!doctype)\b/i.test(text);
}

/** Visible text of a gateway error page: the <body> (the <title> usually repeats its heading), else all. */
function htmlToText(html: string): string {
  const bodyText = stripTags(/<body\b[^>]*>([\s\S]*?)(?:<\/body\s*>|$)/i.exec(html)?.[1] ?? '');
  return bodyText.trim() !== '' ? bodyText : stripTags(html);
}

function stripTags(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<\/?[a-z!][^>]*>/gi, ' ')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
    .replace(/&amp;/gi, '&');
}

/** One line, trimmed, at most MAX_ERROR_MESSAGE_LENGTH characters (an ellipsis marks a cut); blank → undefined. */
export function clipText(text: string): string | undefined {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if (oneLine === '') {
    return undefined;
  }
  return oneLine.length <= MAX_ERROR_MESSAGE_LENGTH ? oneLine : `${oneLine.slice(0, MAX_ERROR_MESSAGE_LENGTH - 1)}…`;
}

/**
 * True when a 422 from POST /resume names the camelCase fields (`executionId`, `taskId`): live deployments
 * reject the documented snake_case body this way, and the client should retry once in camelCase.
 * The snake_case names (`execution_id`) do not count: that would be the documented schema complaining.
 */
export function namesCamelCaseResumeFields(body: unknown): boolean {
  const decoded = decodeBody(body);
  const text = typeof decoded === 'string' ? decoded : safeStringify(decoded) ?? '';
  return /\b(executionId|taskId)\b/.test(text);
}
