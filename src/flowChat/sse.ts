// Server-sent events of a chat turn (flow-chat.md "Stream frames"), read tolerantly: a frame that is not
// JSON, of an unknown type or without an id is reported as such, never thrown; keepalive comments are counted.

/** One `data:` frame of a chat stream, as far as it could be read. */
export interface ChatFrame {
  /** The SSE `id:` line, else the envelope's `id`, `stream_id` or `event_id`. */
  id?: string;
  /** `turn_started`, `token`, `llm_stream_chunk`, `event`, `turn_completed`, `turn_failed`, `error`, or anything else. */
  type: string;
  kickoffId?: string;
  data: Record<string, unknown>;
  /** Words the envelope itself carries (`error`, `message`, `detail`), where a server put them outside `data`. */
  envelope?: Record<string, unknown>;
}

export type SseItem = { kind: 'frame'; frame: ChatFrame } | { kind: 'unreadable'; id?: string; text: string } | { kind: 'keepalive' };

/** A line longer than this is dropped (a stream that never ends a line must not fill the memory). */
export const MAX_EVENT_CHARS = 4 * 1024 * 1024;
/** A frame id longer than this is not kept (stream ids `<ms>-<seq>` are at most 41 characters). */
export const MAX_ID_CHARS = 128;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Feed it text as it arrives; it returns what each complete event holds. */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private id?: string;
  private dataChars = 0;

  feed(text: string): SseItem[] {
    this.buffer += text;
    const items: SseItem[] = [];
    let start = 0;
    for (;;) {
      const match = /\r\n|\r|\n/g;
      match.lastIndex = start;
      const found = match.exec(this.buffer);
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (!found || (found[0] === '\r' && found.index === this.buffer.length - 1)) {
        break;
      }
      this.line(this.buffer.slice(start, found.index), items);
      start = found.index + found[0].length;
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length > MAX_EVENT_CHARS) {
      this.buffer = '';
      items.push({ kind: 'unreadable', text: 'a line too long to read' });
    }
    return items;
  }

  /** The stream ended: an event not closed by a blank line is still read. */
  end(): SseItem[] {
    const items: SseItem[] = [];
    if (this.buffer) {
      this.line(this.buffer, items);
      this.buffer = '';
    }
    this.dispatch(items);
    return items;
  }

  private line(line: string, items: SseItem[]): void {
    if (line === '') {
      this.dispatch(items);
      return;
    }
    if (line.startsWith(':')) {
      items.push({ kind: 'keepalive' });
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') {
      this.dataChars += value.length;
      if (this.dataChars <= MAX_EVENT_CHARS) {
        this.data.push(value);
      }
    } else if (field === 'id' && !value.includes('\0')) {
      this.id = value;
    }
  }

  private dispatch(items: SseItem[]): void {
    const id = this.id;
    this.id = undefined;
    if (this.data.length === 0) {
      return;
    }
    const text = this.data.join('\n');
    const tooLong = this.dataChars > MAX_EVENT_CHARS;
    this.data = [];
    this.dataChars = 0;
    items.push(tooLong ? { kind: 'unreadable', id, text: 'a frame too large to read' } : readFrame(text, id));
  }
}

export function readFrame(text: string, sseId?: string): SseItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', id: sseId, text: text.slice(0, 200) };
  }
  if (!isObject(value)) {
    return { kind: 'unreadable', id: sseId, text: text.slice(0, 200) };
  }
  const envelopeId = [value.id, value.stream_id, value.event_id].find((x) => typeof x === 'string' && x !== '');
  const id = sseId || (envelopeId as string | undefined);
  const type = typeof value.type === 'string' ? value.type : typeof value.event === 'string' ? value.event : 'unknown';
  const data = isObject(value.data) ? value.data : {};
  const frame: ChatFrame = { id, type, kickoffId: typeof value.kickoff_id === 'string' ? value.kickoff_id : undefined, data };
  const words = Object.fromEntries(['error', 'message', 'detail'].filter((k) => value[k] !== undefined).map((k) => [k, value[k]]));
  if (Object.keys(words).length > 0) {
    frame.envelope = words;
  }
  return { kind: 'frame', frame };
}

/** Orders stream ids `<ms>-<seq>`; undefined when either is not one (then order cannot be told). */
export function compareIds(a: string, b: string): number | undefined {
  const pa = /^(\d{1,20})-(\d{1,20})$/.exec(a);
  const pb = /^(\d{1,20})-(\d{1,20})$/.exec(b);
  if (!pa || !pb) {
    return undefined;
  }
  const ms = BigInt(pa[1]) - BigInt(pb[1]);
  const seq = BigInt(pa[2]) - BigInt(pb[2]);
  return ms !== 0n ? (ms > 0n ? 1 : -1) : seq === 0n ? 0 : seq > 0n ? 1 : -1;
}

/** How many ids of no known order a turn remembers to drop replays (the newest). */
export const FRAME_IDS_REMEMBERED = 10_000;

/**
 * The frames a turn has taken, to drop the ones a reattached stream replays. Ordered ids (`<ms>-<seq>`) are told
 * apart by the last one alone; ids of no known order are remembered, the newest FRAME_IDS_REMEMBERED of them, so a
 * stream that never ends costs no more memory than a short one.
 */
export class FrameIds {
  private last: string | undefined;
  private readonly unordered = new Set<string>();

  /** True for a frame not taken before (and remembers it), false for a replay. */
  accept(id: string): boolean {
    const order = this.last === undefined ? 1 : compareIds(id, this.last);
    if (order !== undefined && order <= 0) {
      return false;
    }
    if (order === undefined) {
      if (this.unordered.has(id)) {
        return false;
      }
      this.unordered.add(id);
      if (this.unordered.size > FRAME_IDS_REMEMBERED) {
        this.unordered.delete(this.unordered.values().next().value as string);
      }
    }
    this.last = id;
    return true;
  }

}
