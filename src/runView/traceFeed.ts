// What a run view's page is sent of the run's trace: the events it has not had yet (the run's event file's lines
// from where the last read ended, as the file's bytes: they cross to the page as they are, far faster than thousands
// of objects or a string escaped into the workbench's JSON and parsed back)
// and what the trace needs beside them (TraceInfo), only when that changed.
// A poll that adds 50 events to a 10,000-event run sends 50 events, not the trace.

import type { RunDetails, RunRecord } from '../runTracking/model';
import { isFinished } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import type { HostMessage, TraceInfo } from './page/messages';
import type { PriceTable } from '../runTracking/trace/cost';

/** What the user set for estimating cost (settings: crewRuns.trace.*). */
export interface TraceSettings {
  prices: PriceTable;
  /** The model a crew's calls are priced at when its events name none. */
  modelFor(crew: { url: string; name: string }): string | undefined;
}

/** Lines of the event file read for the page: its bytes and where the next read starts. */
interface Lines {
  bytes: Uint8Array;
  end: number;
}

export class TraceFeed {
  /** Where the next read of the run's event file starts. */
  private end = 0;
  private sentInfo = '';
  /** The whole trace, read while the page loads (prefetch). */
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
   * Reads the whole trace while the page loads: the first message after the page's `init` is then ready at once (a
   * 10,000-event run's file is 4.4 MB).
   */
  prefetch(): void {
    this.prefetched = this.runs.readEventsBytes(this.runId, 0).catch(() => undefined);
  }

  /** The last message was read before the page was ready: events may have come since (call `next` again). */
  get behind(): boolean {
    return this.fromPrefetch;
  }

  /** The message bringing the page up to date, or undefined when it is. */
  async next(record: RunRecord, details: RunDetails, settings: TraceSettings): Promise<Extract<HostMessage, { type: 'trace' }> | undefined> {
    const reset = this.end === 0;
    const prefetched: Lines | undefined = reset ? await this.prefetched : undefined;
    this.prefetched = undefined;
    this.fromPrefetch = prefetched !== undefined;
    const read = prefetched ?? (await this.runs.readEventsBytes(this.runId, this.end));
    if (read.end < this.end) {
      // The file is shorter than what was read: it was removed and written again. Start over.
      this.reset();
      return this.next(record, details, settings);
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
    return { type: 'trace', reset, lines: read.bytes, info };
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
