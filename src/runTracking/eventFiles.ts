// A run's event log (status-events.md) on disk: `runs/<id>.events.jsonl`, one event per line, only ever appended.
// A poll that brings 50 new events writes 50 lines whatever the log's length, and a reader that has read up to a
// byte reads only what came after it (the run view's incremental updates, another window's appends). Callers
// append under the run's lock (RunStore); a crash mid-append leaves a cut last line, which readers skip.

import { appendFileSync, statSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { errorCode } from '../storage/atomicFile';
import type { Logger } from '../util/logger';
import { eventKeyHash } from '../api/statusEvents';
import type { KnownEvents, RunEvent } from '../api/types';
import { errorText } from '../util/errorText';
import { parseLines } from './trace/eventLines';

/** Events a run keeps; later ones are counted, not kept (a run's file stays a few MB at most). */
export const MAX_EVENTS_KEPT = 20_000;
/** An append of up to this many characters (a poll's new events) is made on the caller's thread (appendText). */
const SYNC_APPEND_CHARS = 64 * 1024;

/** What a run's file holds, as far as this window knows: its keys to deduplicate, and its length to notice another window's appends. */
interface KnownFile {
  keys: Set<string>;
  /**
   * eventKeyHash of each key, in the order kept: what the status reader is told to leave out. Its first `keys.size`
   * entries are used; it grows by doubling, so a poll's append adds to it and its copy is one block copy.
   */
  hashes: Float64Array;
  bytes: number;
}

export interface AppendResult {
  /** Events not seen before and written. */
  added: number;
  /** Those events. */
  written: RunEvent[];
  /** Events not seen before but over MAX_EVENTS_KEPT. */
  dropped: number;
  /** Events the file holds now. */
  kept: number;
}

export interface EventsRead {
  events: RunEvent[];
  /** The byte up to which whole lines were read: where the next read starts. */
  end: number;
}

export class EventFiles {
  /** Least recently used first; a few runs are polled at once. */
  private readonly known = new Map<string, KnownFile>();

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    private readonly cacheSize = 8,
  ) {}

  pathOf(id: string): string {
    return path.join(this.dir, `${id}.events.jsonl`);
  }

  /** Appends the events the file does not hold yet (by `key`). Call under the run's lock. */
  async append(id: string, events: readonly RunEvent[]): Promise<AppendResult> {
    const known = await this.knownFile(id);
    let added = 0;
    let dropped = 0;
    const lines: string[] = [];
    const written: RunEvent[] = [];
    for (const event of events) {
      if (known.keys.has(event.key)) {
        continue;
      }
      if (known.keys.size >= MAX_EVENTS_KEPT) {
        dropped++;
        continue;
      }
      known.hashes = withRoom(known.hashes, known.keys.size + 1);
      known.hashes[known.keys.size] = eventKeyHash(event.key);
      known.keys.add(event.key);
      lines.push(JSON.stringify(event));
      written.push(event);
      added++;
    }
    if (lines.length > 0) {
      const text = `${lines.join('\n')}\n`;
      try {
        await this.appendText(id, text);
        known.bytes += Buffer.byteLength(text, 'utf8');
      } catch (e) {
        // Not written: forget what this window thought the file holds, so the next poll tries again.
        this.known.delete(id);
        this.logger.warn(`Run ${id}: cannot write its events (${errorText(e)}).`);
        return { added: 0, written: [], dropped, kept: known.keys.size - added };
      }
    }
    return { added, written, dropped, kept: known.keys.size };
  }

  /** The events the run keeps, for the status reader to leave out (KnownEvents); empty when it keeps none. */
  async knownEvents(id: string): Promise<KnownEvents> {
    const known = await this.knownFile(id, false);
    return known.hashes.slice(0, known.keys.size);
  }

  /** The whole lines from byte `from` on. A missing file reads as none. */
  async read(id: string, from = 0): Promise<EventsRead> {
    const { text, end } = await this.readText(id, from);
    return { events: parseLines(text), end };
  }

  /** The whole lines from byte `from` on, as the file's text (JSON Lines). */
  async readText(id: string, from = 0): Promise<{ text: string; end: number }> {
    const { bytes, end } = await this.readBytes(id, from);
    return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), end };
  }

  /** The whole lines from byte `from` on, as the file's bytes (UTF-8 JSON Lines). A missing file reads as none. */
  async readBytes(id: string, from = 0): Promise<{ bytes: Uint8Array; end: number }> {
    const none = new Uint8Array(0);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.pathOf(id), 'r');
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        this.logger.warn(`Run ${id}: cannot read its events (${errorText(e)}).`);
      }
      return { bytes: none, end: from };
    }
    try {
      const { size } = await handle.stat();
      if (size <= from) {
        return { bytes: none, end: size < from ? 0 : from };
      }
      // A plain Uint8Array of its own, not a Buffer: VS Code sends typed arrays to a page as bytes, a Buffer as JSON.
      const buffer = new Uint8Array(size - from);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
      const lastBreak = buffer.lastIndexOf(0x0a, bytesRead - 1);
      if (lastBreak < 0) {
        return { bytes: none, end: from };
      }
      return { bytes: buffer.subarray(0, lastBreak), end: from + lastBreak + 1 };
    } finally {
      await handle.close();
    }
  }

  async remove(id: string): Promise<void> {
    this.known.delete(id);
    await fs.rm(this.pathOf(id), { force: true }).catch((e) => this.logger.warn(`Run ${id}: cannot delete its events (${errorText(e)}).`));
  }

  /**
   * Appends to the run's file; the folder is made only when missing (a mkdir per poll cost more than the append). A
   * poll's few lines are appended by a call on this thread (page cache only, never flushed: tens of microseconds),
   * since three round trips through the thread pool cost the host's thread far more; a long text goes through it.
   */
  private async appendText(id: string, text: string): Promise<void> {
    const append = () => (text.length <= SYNC_APPEND_CHARS ? appendFileSync(this.pathOf(id), text, 'utf8') : fs.appendFile(this.pathOf(id), text, 'utf8'));
    try {
      await append();
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        throw e;
      }
      await fs.mkdir(this.dir, { recursive: true });
      await append();
    }
  }

  /**
   * What the file holds: from memory while its length is the one this window left it at, else read afresh.
   * `repair` (under the run's lock only): a cut last line gets its line break, so the next append starts clean.
   */
  private async knownFile(id: string, repair = true): Promise<KnownFile> {
    let bytes = 0;
    try {
      // Synchronously: a poll asks twice, and a stat through the thread pool costs the host's thread ten times more.
      bytes = statSync(this.pathOf(id)).size;
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        throw e;
      }
    }
    const cached = this.known.get(id);
    this.known.delete(id);
    let known = cached;
    if (!known || known.bytes !== bytes) {
      const { events, end } = await this.read(id);
      known = { keys: new Set(), hashes: new Float64Array(events.length), bytes: end };
      for (const event of events) {
        if (!known.keys.has(event.key)) {
          known.hashes[known.keys.size] = eventKeyHash(event.key);
          known.keys.add(event.key);
        }
      }
      if (end !== bytes && repair) {
        // A cut last line (a crash mid-append): the next append starts on a line of its own.
        await this.appendText(id, '\n');
        known.bytes = bytes + 1;
      }
    }
    this.known.set(id, known);
    while (this.known.size > this.cacheSize) {
      this.known.delete(this.known.keys().next().value as string);
    }
    return known;
  }
}

/** `hashes`, or a copy twice as long when it has no room for `length` entries. */
function withRoom(hashes: Float64Array, length: number): Float64Array {
  if (length <= hashes.length) {
    return hashes;
  }
  const grown = new Float64Array(Math.max(64, 2 * hashes.length, length));
  grown.set(hashes);
  return grown;
}
