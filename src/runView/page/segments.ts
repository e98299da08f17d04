// Cutting long outputs into segments the run view sends one at a time, and the identity of a text.
// Pure: no `vscode`, no DOM (unit-tested in plain Node, bundled into the page too).

/** Target size of one output segment (characters). */
export const SEGMENT_TARGET = 64 * 1024;
/** Target size of a long output's first segment: the first screen of Open Run, so that it renders at once. */
export const FIRST_SEGMENT_TARGET = 16 * 1024;
/** A segment is cut here even without a good boundary. */
export const SEGMENT_MAX = 128 * 1024;
/** Segments the host sends for one `loadMore`: the page renders one per task while the next arrive. */
export const SEGMENTS_PER_REQUEST = 6;

export interface Segment {
  start: number;
  end: number;
  /** A fence opener to put first: the segment starts inside a fenced code block cut in two. */
  prefix?: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Cuts text into segments of about `target` characters (the first of a long text about `first`). Markdown is cut at blank lines outside
 * fenced code; when no such line comes before `max`, at a line end (a fence cut in two is reopened
 * in the next segment), else anywhere. Plain text is cut at line ends.
 */
export function segmentText(text: string, kind: 'markdown' | 'json', target = SEGMENT_TARGET, max = SEGMENT_MAX, first = Math.min(target, FIRST_SEGMENT_TARGET)): Segment[] {
  if (text.length <= target) {
    return [{ start: 0, end: text.length }];
  }
  const segments: Segment[] = [];
  const wanted = () => (segments.length === 0 ? first : target);
  let start = 0;
  let prefix: string | undefined;
  let fence: { marker: string; opener: string } | undefined;
  let lastBlank = -1; // End (exclusive) of the last blank line outside fences in this segment.
  let lastLineEnd = -1;
  let fenceAtLastLineEnd: typeof fence;
  let pos = 0;
  const cut = (end: number, openFence: typeof fence) => {
    segments.push(prefix === undefined ? { start, end } : { start, end, prefix });
    start = end;
    prefix = openFence ? `${openFence.opener}\n` : undefined;
    lastBlank = -1;
    if (lastLineEnd <= end) {
      lastLineEnd = -1;
    }
  };
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    const lineEnd = nl < 0 ? text.length : nl + 1;
    if (nl < 0) {
      nl = text.length;
    }
    if (lineEnd - start > max) {
      // This line would overflow the segment: cut before it, or inside it when it alone is too long.
      if (lastBlank > start) {
        cut(lastBlank, undefined);
      } else if (lastLineEnd > start) {
        cut(lastLineEnd, fenceAtLastLineEnd);
      } else {
        cut(start + max, kind === 'markdown' ? fence : undefined);
      }
      continue;
    }
    if (kind === 'markdown') {
      const line = text.slice(pos, nl);
      const m = FENCE.exec(line);
      if (fence) {
        if (m && m[1][0] === fence.marker[0] && m[1].length >= fence.marker.length && m[2].trim() === '') {
          fence = undefined;
        }
      } else if (m && !(m[1][0] === '`' && m[2].includes('`'))) {
        fence = { marker: m[1], opener: line.replace(/^ +/, '') };
      }
      if (!fence && line.trim() === '' && lineEnd - start >= wanted()) {
        cut(lineEnd, undefined);
        pos = lineEnd;
        continue;
      }
      if (!fence && line.trim() === '') {
        lastBlank = lineEnd;
      }
    } else if (lineEnd - start >= wanted()) {
      cut(lineEnd, undefined);
      pos = lineEnd;
      continue;
    }
    lastLineEnd = lineEnd;
    fenceAtLastLineEnd = fence;
    pos = lineEnd;
  }
  if (start < text.length) {
    segments.push(prefix === undefined ? { start, end: text.length } : { start, end: text.length, prefix });
  }
  return segments;
}

export function segmentContent(text: string, segment: Segment): string {
  return (segment.prefix ?? '') + text.slice(segment.start, segment.end);
}

/**
 * Identity of a text: its length and a 64-bit FNV-1a hash of every character (two 32-bit lanes), so
 * any edit changes it, also one that keeps the length. ~5 ms for 5 MB.
 */
export function textKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 16777619);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return `${text.length.toString(36)}-${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}`;
}

/** Segments of the texts seen lately, so repeated views and loadMore calls do not cut again. */
export class SegmentCache {
  private entries = new Map<string, Segment[]>();

  constructor(private readonly capacity = 64) {}

  /** The last texts looked up: Show All asks for the same (5 MB) text again and again; comparing is cheaper than hashing. */
  private recent: { text: string; kind: string; key: string }[] = [];

  get(text: string, kind: 'markdown' | 'json'): { key: string; segments: Segment[] } {
    const seen = this.recent.find((r) => r.kind === kind && r.text === text);
    const key = seen?.key ?? `${kind[0]}${textKey(text)}`;
    if (!seen) {
      this.recent = [{ text, kind, key }, ...this.recent.slice(0, 3)];
    }
    let segments = this.entries.get(key);
    if (segments) {
      this.entries.delete(key);
    } else {
      segments = segmentText(text, kind);
    }
    this.entries.set(key, segments);
    while (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    return { key, segments };
  }
}

