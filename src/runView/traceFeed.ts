// What a run view's page is sent of the run's trace: the events it has not had yet (the run's event file's lines
// from where the last read ended, as the file's bytes: they cross to the page as they are, far faster than thousands
// of objects or a string escaped into the workbench's JSON and parsed back)
// and what the trace needs beside them (TraceInfo), only when that changed.
// A poll that adds 50 events to a 10,000-event run sends 50 events, not the trace.

import { promisify } from 'node:util';
import { deflateRaw as deflateRawCallback } from 'node:zlib';
import type { RunDetails, RunRecord } from '../runs/core/model';
import { isFinished } from '../runs/core/model';
import type { RunStore } from '../runs/core/runStore';
import type { HostMessage, TraceInfo } from './page/messages';
import type { PriceTable } from '../runs/core/trace/cost';

/** What the user set for estimating cost (settings: crewRuns.trace.*). */
export interface TraceSettings {
  prices: PriceTable;
  /** The model a crew's calls are priced at when its events name none. */
  modelFor(crew: { url: string; name: string }): string | undefined;
}

const deflateRaw = promisify(deflateRawCallback);

/**
 * Events over this many bytes go deflated to a page that can inflate (an open, a poll after a long pause); a poll's
 * few go as they are: deflating them saves less than it costs.
 */
const DEFLATE_OVER_BYTES = 256 * 1024;

/** Lines of the event file read for the page: its bytes (deflated or not) and where the next read starts. */
interface Lines {
  bytes: Uint8Array;
  end: number;
  deflated?: true;
}

export class TraceFeed {
  /** Where the next read of the run's event file starts. */
  private end = 0;
  private sentInfo = '';
  /** The whole trace, read and deflated while the page loads (prefetch). */
  private prefetched?: Promise<Lines | undefined>;
  /** The last message sent the prefetched trace: what came after it is still to send. */
  private fromPrefetch = false;

  constructor(
    private readonly runs: RunStore,
    private readonly runId: string,
  ) {}

  /** The page starts afresh (its `init`): everything is sent again. */
  reset(): void {
    this.end = 0;
    this.sentInfo = '';
  }

  /**
   * Reads (and deflates) the whole trace while the page loads, as a page that can inflate is sent it: the first
   * message after the page's `init` is then ready at once (deflating 4.4 MB takes a while on a busy machine).
   */
  prefetch(): void {
    this.prefetched = this.readLines(0, true).catch(() => undefined);
  }

  /** The last message was read before the page was ready: events may have come since (call `next` again). */
  get behind(): boolean {
    return this.fromPrefetch;
  }

  /** The message bringing the page up to date, or undefined when it is; `deflate`: the page can inflate. */
  async next(record: RunRecord, details: RunDetails, settings: TraceSettings, deflate = false): Promise<Extract<HostMessage, { type: 'trace' }> | undefined> {
    const reset = this.end === 0;
    const prefetched = reset ? await this.prefetched : undefined;
    this.prefetched = undefined;
    this.fromPrefetch = prefetched !== undefined && (deflate || !prefetched.deflated);
    const read = this.fromPrefetch ? prefetched! : await this.readLines(this.end, deflate);
    if (read.end < this.end) {
      // The file is shorter than what was read: it was removed and written again. Start over.
      this.reset();
      return this.next(record, details, settings, deflate);
    }
    this.end = read.end;
    const fullInfo = traceInfo(record, details, settings);
    const infoJson = JSON.stringify(fullInfo);
    const infoChanged = infoJson !== this.sentInfo;
    if (!reset && read.bytes.byteLength === 0 && !infoChanged) {
      return undefined;
    }
    this.sentInfo = infoJson;
    const info = infoChanged ? fullInfo : undefined;
    return { type: 'trace', reset, lines: read.bytes, ...(read.deflated ? { deflated: true } : {}), info };
  }

  /** The file's whole lines from `from` on; deflated when many and `deflate`. */
  private async readLines(from: number, deflate: boolean): Promise<Lines> {
    const read = await this.runs.readEventsBytes(this.runId, from);
    if (!deflate || read.bytes.byteLength <= DEFLATE_OVER_BYTES) {
      return read;
    }
    // Level 1, on the thread pool: a 10,000-event trace's 4.4 MB become 0.6 MB in about 12 ms there.
    const deflated = await deflateRaw(read.bytes, { level: 1 });
    // A plain Uint8Array of its own: VS Code sends typed arrays to a page as bytes, a Buffer as JSON.
    return { bytes: new Uint8Array(deflated), end: read.end, deflated: true };
  }
}

function traceInfo(record: RunRecord, details: RunDetails, settings: TraceSettings): TraceInfo {
  const log = details.lastSnapshot?.eventLog;
  const kept = details.events?.kept ?? 0;
  const dropped = details.events?.dropped ?? 0;
  return {
    log: log === undefined ? (kept > 0 ? 'on' : details.lastSnapshot ? 'absent' : 'waiting') : log.present || kept > 0 ? 'on' : 'off',
    count: log?.count,
    kept,
    dropped,
    unseen: log?.count !== undefined ? Math.max(0, log.count - kept - dropped) : 0,
    usage: log?.usage,
    triggeredBy: log?.triggeredBy?.type,
    origin: log?.origin,
    startedAt: record.startedAt,
    endedAt: isFinished(record) ? (record.finishedAt ?? record.updatedAt) : undefined,
    prices: settings.prices,
    defaultModel: settings.modelFor({ url: record.crewUrl, name: record.crewName }),
  };
}
