// Reading a crew's JSON reply with bounded cost. JSON.parse builds everything a body holds: a crew that sends
// 10⁶ usage keys or 200,000 tasks costs the extension host seconds (parsing, then every walk over the result).
// This reader builds at most READ_LIMITS of it (entries per object or array, string length, depth) and only
// steps over the rest, counting what it left out (omittedEntries). Iterative: any depth is safe. Pure.

import { MAX_JSON_DEPTH } from './bodies';

export interface ReadLimits {
  /** Containers nested deeper than this become DEEP_NOTE (as clipJsonDepth does). */
  maxDepth: number;
  /** Entries kept per object or array; the rest are stepped over and counted. */
  maxEntries: number;
  /** Characters kept per string value (object keys: MAX_KEY_CHARS). */
  maxStringChars: number;
  /**
   * Top-level keys whose array keeps its last `maxEntries` entries rather than its first: a status's `events` is
   * oldest first and may list 10⁵, and the newest are the ones that matter.
   */
  tailKeys?: ReadonlySet<string>;
  /** A top-level array keeps its last `maxEntries` entries too (a log sent as a bare list). */
  tailRoot?: boolean;
}

/** Generous for a real reply (an output of 10 MB stays whole); the normaliser caps each field further. */
export const READ_LIMITS: ReadLimits = { maxDepth: MAX_JSON_DEPTH, maxEntries: 10_000, maxStringChars: 16 * 1024 * 1024, tailKeys: new Set(['events']) };

const MAX_KEY_CHARS = 1024;

/** What stands for a container nested too deep. */
export const DEEP_NOTE = `[nested deeper than ${MAX_JSON_DEPTH} levels; not shown]`;

/** The marker a clipped string ends with. */
export function clippedMarker(omittedChars: number): string {
  return `… [${omittedChars} more characters not read]`;
}

const omitted = new WeakMap<object, number>();

/** How many entries of this object or array the reader left out (0 when it kept them all or did not read it). */
export function omittedEntries(value: unknown): number {
  return typeof value === 'object' && value !== null ? (omitted.get(value) ?? 0) : 0;
}

/** Marks `container` as read with `count` entries left out: a value read on another thread, whose marks did not cross. */
export function markOmitted(container: object, count: number): void {
  omitted.set(container, count);
}

/**
 * A key naming an id (`id`, `task_id`, `kickoffId`, …): an integer there beyond 2⁵³ is kept as the server's
 * digits, as text, because a number would name another task or run.
 */
const ID_KEY = /(?:^|_)id$|Id$/;

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const QUOTE = 34;
const BACKSLASH = 92;

class Malformed extends Error {}

interface Frame {
  container: Record<string, unknown> | unknown[];
  /** The key whose value is read next (objects). */
  key?: string;
  entries: number;
  dropped: number;
  /** An array that keeps its last entries (ReadLimits.tailKeys). */
  tail?: boolean;
}

/** `text` as JSON within `limits`; { ok: false } when it is not JSON (as JSON.parse would refuse it). */
export function readJsonBounded(text: string, limits: ReadLimits = READ_LIMITS): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: new Reader(text, limits).document() };
  } catch (e) {
    if (e instanceof Malformed || e instanceof SyntaxError) {
      return { ok: false };
    }
    throw e;
  }
}

/**
 * Whether a value JSON.parse read is within `limits`, so that readJsonBounded would have nothing to leave out or
 * cut: no container nested deeper than maxDepth or holding more than maxEntries entries, no string longer than
 * maxStringChars nor key than MAX_KEY_CHARS, and no integer beyond 2⁵³ under an id key (which the reader keeps as
 * its digits, JSON.parse cannot). Iterative.
 */
export function withinLimits(value: unknown, limits: ReadLimits): boolean {
  // Two stacks and for…in (no array of keys per object): a walk that allocates makes the young generation's
  // collections copy the whole fresh value, and this walk must cost less than the bounded reader it saves.
  const containers: unknown[] = [value];
  const depths: number[] = [0];
  while (containers.length > 0) {
    const item = containers.pop();
    const depth = depths.pop()!;
    if (typeof item === 'string') {
      if (item.length > limits.maxStringChars) {
        return false;
      }
      continue;
    }
    if (typeof item !== 'object' || item === null) {
      continue;
    }
    if (depth >= limits.maxDepth) {
      return false;
    }
    let entries = 0;
    if (Array.isArray(item)) {
      if (item.length > limits.maxEntries) {
        return false;
      }
      for (let i = 0; i < item.length; i++) {
        const entry: unknown = item[i];
        if (typeof entry === 'object' || typeof entry === 'string') {
          containers.push(entry);
          depths.push(depth + 1);
        }
      }
    } else {
      const record = item as Record<string, unknown>;
      for (const key in record) {
        const entry = record[key];
        entries++;
        if (key.length > MAX_KEY_CHARS || (typeof entry === 'number' && !Number.isSafeInteger(entry) && Number.isInteger(entry) && ID_KEY.test(key))) {
          return false;
        }
        if (typeof entry === 'object' || typeof entry === 'string') {
          containers.push(entry);
          depths.push(depth + 1);
        }
      }
    }
    if (entries > limits.maxEntries) {
      return false;
    }
  }
  return true;
}

/** Drops the oldest entries of a tail-keeping array beyond `max`, counting them. */
function dropHead(frame: Frame, max: number): void {
  const array = frame.container as unknown[];
  const over = array.length - max;
  if (over > 0) {
    array.splice(0, over);
    frame.dropped += over;
  }
}

class Reader {
  private pos = 0;
  /** Position of the next backslash at or after `pos` (-1: none): one forward scan over the whole text. */
  private nextBackslash = -2;

  constructor(
    private readonly text: string,
    private readonly limits: ReadLimits,
  ) {}

  document(): unknown {
    const stack: Frame[] = [];
    let result: unknown;
    let done = false;
    const deliver = (value: unknown): void => {
      const top = stack.at(-1);
      if (!top) {
        result = value;
        done = true;
      } else if (Array.isArray(top.container)) {
        top.container.push(value);
        if (top.tail && top.container.length >= 2 * this.limits.maxEntries) {
          dropHead(top, this.limits.maxEntries); // In batches: each entry is moved at most once.
        }
      } else if (top.key === '__proto__') {
        Object.defineProperty(top.container, top.key, { value, enumerable: true, writable: true, configurable: true });
      } else {
        top.container[top.key!] = value;
      }
    };
    this.ws();
    for (;;) {
      // At the start of a value.
      const c = this.text.charCodeAt(this.pos);
      if ((c === 123 || c === 91) && stack.length < this.limits.maxDepth) {
        const container = c === 123 ? {} : [];
        this.pos++;
        this.ws();
        if (this.text.charCodeAt(this.pos) === (c === 123 ? 125 : 93)) {
          this.pos++;
          deliver(container);
        } else {
          const tail = c === 91 && ((stack.length === 1 && this.limits.tailKeys?.has(stack[0].key ?? '') === true) || (stack.length === 0 && this.limits.tailRoot === true));
          stack.push({ container, entries: 0, dropped: 0, ...(tail ? { tail } : {}) });
          if (c === 123) {
            stack.at(-1)!.key = this.key();
          }
          continue;
        }
      } else if (c === 123 || c === 91) {
        this.skipValue();
        deliver(DEEP_NOTE);
      } else {
        deliver(this.scalar(stack.at(-1)?.key));
      }
      // After a value: close containers, or go on to the next entry (stepping over those past the limit).
      while (!done) {
        const top = stack.at(-1)!;
        top.entries++;
        this.ws();
        const isArray = Array.isArray(top.container);
        const next = this.text.charCodeAt(this.pos++);
        if (next === (isArray ? 93 : 125)) {
          stack.pop();
          if (top.tail) {
            dropHead(top, this.limits.maxEntries);
          }
          if (top.dropped > 0) {
            omitted.set(top.container, top.dropped);
          }
          deliver(top.container);
          continue;
        }
        if (next !== 44) {
          throw new Malformed();
        }
        this.ws();
        if (top.entries < this.limits.maxEntries || top.tail) {
          if (!isArray) {
            top.key = this.key();
          }
          break;
        }
        if (!isArray) {
          this.skipKey();
        }
        this.skipValue();
        top.dropped++;
      }
      if (done) {
        break;
      }
    }
    this.ws();
    if (this.pos !== this.text.length) {
      throw new Malformed();
    }
    return result;
  }

  private ws(): void {
    let c = this.text.charCodeAt(this.pos);
    while (c === 32 || c === 10 || c === 13 || c === 9) {
      c = this.text.charCodeAt(++this.pos);
    }
  }

  /** An object key and its colon. */
  private key(): string {
    if (this.text.charCodeAt(this.pos) !== QUOTE) {
      throw new Malformed();
    }
    const key = this.string(MAX_KEY_CHARS);
    this.ws();
    if (this.text.charCodeAt(this.pos++) !== 58) {
      throw new Malformed();
    }
    this.ws();
    return key;
  }

  private skipKey(): void {
    if (this.text.charCodeAt(this.pos) !== QUOTE) {
      throw new Malformed();
    }
    this.pos = this.stringEnd() + 1;
    this.ws();
    if (this.text.charCodeAt(this.pos++) !== 58) {
      throw new Malformed();
    }
    this.ws();
  }

  private scalar(key: string | undefined): unknown {
    const c = this.text.charCodeAt(this.pos);
    if (c === QUOTE) {
      return this.string(this.limits.maxStringChars);
    }
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) {
      throw new Malformed();
    }
    this.pos += match[0].length;
    const number = Number(match[0]);
    const exactDigits = key !== undefined && ID_KEY.test(key) && /^-?\d+$/.test(match[0]) && !Number.isSafeInteger(number);
    return exactDigits ? match[0] : number;
  }

  /** The index of the quote that ends the string starting at `pos`. */
  private stringEnd(): number {
    let from = this.pos + 1;
    for (;;) {
      const quote = this.text.indexOf('"', from);
      if (quote < 0) {
        throw new Malformed();
      }
      let slashes = 0;
      while (this.text.charCodeAt(quote - 1 - slashes) === BACKSLASH) {
        slashes++;
      }
      if (slashes % 2 === 0) {
        return quote;
      }
      from = quote + 1;
    }
  }

  /** A string value, at most `max` characters of it (then ending in clippedMarker). */
  private string(max: number): string {
    const start = this.pos + 1;
    const end = this.stringEnd();
    this.pos = end + 1;
    if (this.nextBackslash !== -1 && this.nextBackslash < start) {
      this.nextBackslash = this.text.indexOf('\\', start);
    }
    const escaped = this.nextBackslash >= 0 && this.nextBackslash < end;
    if (end - start <= max) {
      return escaped ? (JSON.parse(this.text.slice(start - 1, end + 1)) as string) : this.text.slice(start, end);
    }
    let kept = this.text.slice(start, start + max);
    if (escaped) {
      // The cut may fall inside an escape (\n, \uXXXX): step back until the rest reads.
      for (let back = 0; ; back++) {
        try {
          kept = JSON.parse(`"${this.text.slice(start, start + max - back)}"`) as string;
          break;
        } catch (e) {
          if (back >= 6) {
            throw e;
          }
        }
      }
    }
    return kept + clippedMarker(end - start - max);
  }

  /** Steps over one value of any size and depth without building it. */
  private skipValue(): void {
    let depth = 0;
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (Number.isNaN(c)) {
        throw new Malformed();
      }
      if (c === QUOTE) {
        this.pos = this.stringEnd() + 1;
      } else {
        this.pos++;
        if (c === 123 || c === 91) {
          depth++;
        } else if (c === 125 || c === 93) {
          depth--;
        }
      }
      if (depth === 0) {
        // A scalar ends at a delimiter; a container at its closing bracket.
        if (c === 123 || c === 91 || c === 125 || c === 93 || c === QUOTE) {
          return;
        }
        const after = this.text.charCodeAt(this.pos);
        if (after === 44 || after === 125 || after === 93 || after === 32 || after === 10 || after === 13 || after === 9 || Number.isNaN(after)) {
          return;
        }
      }
      if (depth < 0) {
        throw new Malformed();
      }
    }
  }
}

/** Characters (keys and strings, about) of a body kept for the raw-JSON view: the page shows at most 512 KB of it. */
export const RAW_BUDGET = 256 * 1024;
/** Longest string in that copy. */
const RAW_STRING_MAX = 16 * 1024;

/**
 * A copy of `value` within `budget`, breadth first (every top-level field before any nested detail), with a
 * note where entries, characters or depth were left out. Iterative, and its cost is bounded by the budget.
 */
export function boundedCopy(value: unknown, budget = RAW_BUDGET): unknown {
  let left = budget;
  // Counted about as JSON prints it: quotes, separators, digits.
  const copyScalar = (v: unknown): unknown => {
    if (typeof v !== 'string') {
      left -= String(v).length + 1;
      return v;
    }
    const max = Math.max(0, Math.min(RAW_STRING_MAX, left));
    left -= Math.min(v.length, max) + 3;
    return v.length <= max ? v : v.slice(0, max) + clippedMarker(v.length - max);
  };
  const fresh = (v: unknown): unknown => (Array.isArray(v) ? [] : isContainer(v) ? {} : copyScalar(v));
  const root = fresh(value);
  const queue: [source: object, target: Record<string, unknown> | unknown[], depth: number][] = [];
  if (isContainer(value)) {
    queue.push([value, root as Record<string, unknown> | unknown[], 0]);
  }
  for (let at = 0; at < queue.length; at++) {
    const [source, target, depth] = queue[at];
    const keys = Array.isArray(source) ? undefined : Object.keys(source);
    const count = Array.isArray(source) ? source.length : keys!.length;
    let kept = 0;
    for (; kept < count && left > 0; kept++) {
      const key = keys ? keys[kept] : kept;
      const item = (source as Record<string | number, unknown>)[key];
      const tooDeep = isContainer(item) && depth + 1 >= MAX_JSON_DEPTH;
      const copy = tooDeep ? DEEP_NOTE : fresh(item);
      if (isContainer(item) && !tooDeep) {
        left -= 32; // its brackets, and room for its note should its entries not fit
        queue.push([item, copy as Record<string, unknown> | unknown[], depth + 1]);
      }
      if (Array.isArray(target)) {
        target.push(copy);
      } else {
        left -= String(key).length + 3;
        Object.defineProperty(target, key, { value: copy, enumerable: true, writable: true, configurable: true });
      }
    }
    const notKept = count - kept + omittedEntries(source);
    if (notKept > 0) {
      const note = `[${notKept} more entries not kept]`;
      if (Array.isArray(target)) {
        target.push(note);
      } else {
        target['…'] = note;
      }
    }
  }
  return root;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
