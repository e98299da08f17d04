// A deployment log's entries (platform-api.md: `[{timestamp, level, message}]`, or bare strings, or such a list
// under a usual wrapper key) read into lines: each on one line and inert, its message cut to MAX_LOG_MESSAGE. The
// host reads LogLines from a body (platform/parse.ts); the status reader's thread reads a log's whole text
// (logBody.ts), so that only that text crosses to the host. Pure.
import { omittedEntries, READ_LIMITS, type ReadLimits } from './boundedJson';
import { inertLine, inertScalar } from '../util/inertText';
import { isPlainObject, listIn } from '../util/objects';

/** The lines a log keeps: its last ones (where a failed build says why). */
export const MAX_LOG_LINES = 50_000;
const MAX_MESSAGE = 4000;
const MAX_TIMESTAMP = 64;
const MAX_LEVEL = 16;

/**
 * Characters of a log's lines that cross to the host, its last ones (as REPLY_VALUE_BUDGET for a reply's JSON). A
 * line is at most some 4,100 characters: a log always shows its last lines.
 */
export const MAX_LOG_TEXT_CHARS = 8 * 1024 * 1024;

const LIST_KEYS = ['logs', 'data', 'items', 'lines'];

/** A log body read by the bounded reader: its list keeps its last MAX_LOG_LINES entries, however long. */
export const LOG_READ_LIMITS: ReadLimits = { ...READ_LIMITS, maxEntries: MAX_LOG_LINES, tailKeys: new Set(LIST_KEYS), tailRoot: true };

export interface LogLine {
  timestamp?: string;
  level?: string;
  message: string;
}

/** A log's text as its document shows it: `count` lines joined by `\n`, after `dropped` earlier entries left out. */
export interface LogText {
  text: string;
  count: number;
  dropped: number;
}

/** A log's last lines, after `dropped` earlier entries left out. */
export interface LogLines {
  lines: LogLine[];
  dropped: number;
}

/** The log's list: the body itself, or the first list under a usual wrapper key. */
const logList = (body: unknown): unknown[] => listIn(body, LIST_KEYS);

/**
 * A message on one line, cut to MAX_MESSAGE with an ellipsis (never half a surrogate pair). Cut before it is made
 * inert: a 16 MiB line costs what a short one does, and still shows.
 */
function logMessage(raw: string): string {
  if (raw.length <= MAX_MESSAGE) {
    return inertLine(raw);
  }
  let end = MAX_MESSAGE - 1;
  const code = raw.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) {
    end -= 1;
  }
  return `${inertLine(raw.slice(0, end))}…`;
}

/** The message of an entry that is a line: a string, or an object's `message` or `msg`; undefined for any other. */
function rawMessage(entry: unknown): string | undefined {
  if (typeof entry === 'string') {
    return entry;
  }
  if (!isPlainObject(entry)) {
    return undefined;
  }
  return typeof entry.message === 'string' ? entry.message : typeof entry.msg === 'string' ? entry.msg : undefined;
}

const timestampOf = (entry: Record<string, unknown>) => inertScalar(entry.timestamp ?? entry.time, MAX_TIMESTAMP);
const levelOf = (entry: Record<string, unknown>) => inertScalar(entry.level ?? entry.severity, MAX_LEVEL)?.toUpperCase();

/** One entry as a line; undefined for an entry that is no line (no message). */
export function readLogLine(entry: unknown): LogLine | undefined {
  const message = rawMessage(entry);
  if (message === undefined) {
    return undefined;
  }
  return typeof entry === 'string' ? { message: logMessage(message) } : { timestamp: timestampOf(entry as Record<string, unknown>), level: levelOf(entry as Record<string, unknown>), message: logMessage(message) };
}

/** A line as the log document shows it: timestamp, level (padded to 5), message, two spaces apart. */
export function logLineText(l: LogLine): string {
  return lineText(l.timestamp, l.level === undefined ? '' : levelColumn(l.level), l.message);
}

const levelColumn = (level: string) => `${level.padEnd(5)}  `;

function lineText(timestamp: string | undefined, levelColumn: string, message: string): string {
  // Template strings, not a filtered array per line: 50,000 lines must read at once.
  return timestamp === undefined ? `${levelColumn}${message}` : `${timestamp}  ${levelColumn}${message}`;
}

/**
 * One entry's line as logLineText(readLogLine(entry)) makes it, without the LogLine between: a log's levels are a
 * few words, so each is read once (`levels`: its column by the level as sent).
 */
function entryText(entry: unknown, levels: Map<string, string>): string | undefined {
  const message = rawMessage(entry);
  if (message === undefined) {
    return undefined;
  }
  if (typeof entry === 'string') {
    return logMessage(message);
  }
  const record = entry as Record<string, unknown>;
  const sent = record.level ?? record.severity;
  let column = typeof sent === 'string' ? levels.get(sent) : undefined;
  if (column === undefined) {
    const level = levelOf(record);
    column = level === undefined ? '' : levelColumn(level);
    if (typeof sent === 'string' && levels.size < MAX_LEVELS_KEPT) {
      levels.set(sent, column);
    }
  }
  return lineText(timestampOf(record), column, logMessage(message));
}

/** Levels a log's text remembers the column of (a hostile log may send a new one on every line). */
const MAX_LEVELS_KEPT = 64;

/** The last entries' items that fit in `budget` (by `size`, each with its line break); the last always does. */
function lastOf<T>(list: unknown[], budget: number, read: (entry: unknown) => T | undefined, size: (item: T) => number): { kept: T[]; first: number } {
  const kept: T[] = [];
  let left = budget;
  let first = list.length;
  for (let i = list.length - 1; i >= Math.max(0, list.length - MAX_LOG_LINES); i--) {
    const item = read(list[i]);
    if (item !== undefined) {
      left -= size(item) + 1;
      if (left < 0 && kept.length > 0) {
        break;
      }
      kept.push(item);
    }
    first = i;
  }
  return { kept: kept.reverse(), first };
}

/**
 * The lines of the body's last MAX_LOG_LINES entries. `dropped` counts the earlier entries left out, `unread` those
 * the bounded reader stepped over (it keeps a log's last entries: those came before too).
 */
export function readLogLines(body: unknown): { lines: LogLine[]; dropped: number; unread: number } {
  const list = logList(body);
  const { kept, first } = lastOf(list, Infinity, readLogLine, () => 0);
  return { lines: kept, dropped: first, unread: omittedEntries(list) };
}

/** The lines of the log's last entries whose text fits in `budget` characters; `dropped` counts every earlier entry. */
export function lastLogLines(body: unknown, budget = MAX_LOG_TEXT_CHARS): LogLines {
  const list = logList(body);
  const { kept, first } = lastOf(list, budget, readLogLine, (line) => logLineText(line).length);
  return { lines: kept, dropped: first + omittedEntries(list) };
}

/**
 * The log as its document's text, in one pass from its end: the lines of its last entries that fit in `budget`
 * characters, joined once. `dropped` counts every earlier entry.
 */
export function logText(body: unknown, budget = MAX_LOG_TEXT_CHARS): LogText {
  const list = logList(body);
  const levels = new Map<string, string>();
  const { kept, first } = lastOf(list, budget, (entry) => entryText(entry, levels), (text) => text.length);
  return { text: kept.join('\n'), count: kept.length, dropped: first + omittedEntries(list) };
}
