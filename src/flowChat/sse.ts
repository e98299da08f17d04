// Server-sent events of a chat turn (flow-chat.md "Stream frames"), read tolerantly: a frame that is not
// JSON, of an unknown type or without an id is reported as such, never thrown; keepalive comments are counted.

/** One `data:` frame of a chat stream, as far as it could be read. */
export interface ChatFrame {
  /** The SSE `id:` line, else the envelope's `id`, `stream_id` or `event_id`. */
  id?: string;
  /** `turn_started`, `token`, `llm_stream_chunk`, `event`, `turn_completed`, `turn_failed`, `error`, or anything else. */
  type: string;
  kickoffId?: string;
  /** The envelope's `session_id`, where it has one (a frame of another session is not this turn's). */
  sessionId?: string;
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

/**
 * Feed it text as it arrives; it returns what each complete event holds. Each piece of text is searched once, for
 * its own line breaks only; a line's pieces are joined once, when it ends, and a line that grows past
 * MAX_EVENT_CHARS is dropped as it comes (its rest skipped up to its end): the work is linear in the bytes and the
 * memory stays under the cap, however long a line a server sends.
 */
export class SseParser {
  /** The pieces of the line under way. */
  private pieces: string[] = [];
  private pieceChars = 0;
  /** The line under way passed the cap: the rest of it is skipped. */
  private skipping = false;
  /** The last piece ended with \r: a \n first in the next is the same line break. */
  private afterCr = false;
  private data: string[] = [];
  private id?: string;
  private dataChars = 0;
  /** The event under way lost a line to the cap (said when it was dropped): nothing of it is read. */
  private dropped = false;

  feed(text: string): SseItem[] {
    const items: SseItem[] = [];
    if (text === '') {
      return items;
    }
    let start = this.afterCr && text.startsWith('\n') ? 1 : 0;
    this.afterCr = text.endsWith('\r');
    const breaks = /\r\n|\r|\n/g;
    breaks.lastIndex = start;
    for (let found = breaks.exec(text); found; found = breaks.exec(text)) {
      this.endLine(text.slice(start, found.index), items);
      start = found.index + found[0].length;
    }
    if (start < text.length) {
      this.keep(text.slice(start), items);
    }
    return items;
  }

  /** The stream ended: an event not closed by a blank line is still read. */
  end(): SseItem[] {
    const items: SseItem[] = [];
    if (this.pieceChars > 0 || this.skipping) {
      this.endLine('', items);
    }
    this.dispatch(items);
    return items;
  }

  private keep(piece: string, items: SseItem[]): void {
    if (this.skipping) {
      return;
    }
    if (this.pieceChars + piece.length > MAX_EVENT_CHARS) {
      this.drop(items);
      return;
    }
    this.pieces.push(piece);
    this.pieceChars += piece.length;
  }

  private endLine(tail: string, items: SseItem[]): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    if (this.pieceChars + tail.length > MAX_EVENT_CHARS) {
      this.drop(items);
      this.skipping = false;
      return;
    }
    const line = this.pieces.length === 0 ? tail : (this.pieces.push(tail), this.pieces.join(''));
    this.pieces = [];
    this.pieceChars = 0;
    this.line(line, items);
  }

  /** The line under way is too long: said once for its event, its pieces let go, its rest skipped. */
  private drop(items: SseItem[]): void {
    this.pieces = [];
    this.pieceChars = 0;
    this.skipping = true;
    if (!this.dropped) {
      this.dropped = true;
      items.push({ kind: 'unreadable', text: 'a line too long to read' });
    }
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
      // A long id is not kept: the frame is then one without an id (sse.ts FrameIds, turn.ts).
      this.id = value.length <= MAX_ID_CHARS ? value : undefined;
    }
  }

  private dispatch(items: SseItem[]): void {
    const id = this.id;
    const dropped = this.dropped;
    this.id = undefined;
    this.dropped = false;
    if (this.data.length === 0 || dropped) {
      this.data = [];
      this.dataChars = 0;
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
  const envelopeId = [value.id, value.stream_id, value.event_id].find((x) => typeof x === 'string' && x !== '' && x.length <= MAX_ID_CHARS);
  const id = sseId || (envelopeId as string | undefined);
  const type = typeof value.type === 'string' ? value.type : typeof value.event === 'string' ? value.event : 'unknown';
  const data = isObject(value.data) ? value.data : {};
  const frame: ChatFrame = { id, type, kickoffId: typeof value.kickoff_id === 'string' ? value.kickoff_id : undefined, data };
  if (typeof value.session_id === 'string') {
    frame.sessionId = value.session_id;
  }
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
