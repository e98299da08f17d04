// Sends a batch's rows, a few runs at a time, and never a row twice. One window sends a batch's rows: the one
// holding its lease (the same LeaseManager the poller uses). Whether a row may go is the send-once rule's
// (runTracking/sendOnce.ts): its kickoff holds the mark `batchRow:<batch>:<row>` in the folder every window shares,
// so a row goes out once whatever a window's copy of the batch says (an old copy written back, a lease that
// lapsed). A row is marked "sending" on disk before its mark is taken; a window taking the batch over reads a
// row left "sending" from its mark: it went (its run is kept with the mark), it never left, or it is "unknown —
// check before re-running" and is not sent again.
// Pure: no `vscode` here.
import * as l10n from '@vscode/l10n';
import type { Clock } from '../../util/clock';
import { Emitter, type Event } from '../../util/event';
import type { Logger } from '../../util/logger';
import { isBlocked, type SendMark, type SendOnce } from '../../runTracking/sendOnce';
import type { BatchStore } from './batchStore';
import { type Batch, type BatchRow, type RowResult, batchProgress, outputPreview, rowEnded } from './model';
import { errorText } from '../../util/errorText';

export type SendOutcome =
  | { kind: 'sent'; runId: string; kickoffId: string }
  /** The crew refused it (4xx, no token…): nothing started. */
  | { kind: 'refused'; message: string }
  /** The request may have reached the crew (network error, timeout, 5xx): never sent again by itself. */
  | { kind: 'uncertain'; message: string }
  /** 429: refused for now; the row goes back to the queue. */
  | { kind: 'retryLater'; delayMs: number; message: string }
  /**
   * Nothing was sent, and the crew cannot take rows now (no token, a rejected token, not reachable): the
   * row goes back to the queue. `final`: trying again cannot help until the user acts (a token).
   */
  | { kind: 'crewUnavailable'; message: string; final: boolean };

/** What a finished run gave, or `gone` when the run is no longer in the run store. */
export type RunEnd = { kind: 'ended'; result: RowResult; output?: string } | { kind: 'gone' };

export interface BatchRunnerDeps {
  store: BatchStore;
  /** Kicks one row off through the same path as Kick Off (records the run and watches it). */
  send(batch: Batch, row: BatchRow): Promise<SendOutcome>;
  /** undefined while the run has not ended. */
  runEnd(runId: string): Promise<RunEnd | undefined>;
  /** The row's end is recorded: the run need not outlive the history cap for the batch any longer. */
  endRecorded(runId: string): Promise<void>;
  lease: { tryAcquire(id: string): Promise<boolean>; owns(id: string): boolean; release(id: string): Promise<void> };
  clock: Clock;
  logger: Logger;
  /** Requests in flight per crew at most (the poller's per-crew cap); a batch's own setting never goes above it. */
  maxPerCrew: number;
  /** The send-once marks every window shares: a row's kickoff holds `batchRowKey(batch, row)`. */
  sends: Pick<SendOnce, 'claim' | 'peek'>;
}

/** The send-once item of a row's kickoff. */
export function batchRowKey(batchId: string, index: number): string {
  return `batchRow:${batchId}:${index}`;
}

/**
 * A row left "sending" with no mark never left (the mark is taken before the kickoff, and freed only when it did
 * not act) and may go again, unless it was left so long ago that its mark may have been tidied (after 7 days,
 * extension.ts): then it is unknown.
 */
const UNMARKED_ROW_REQUEUED_WITHIN_MS = 24 * 3_600_000;

/** What a row's send means for its mark. */
function markOutcome(outcome: SendOutcome): 'sent' | 'uncertain' | 'notSent' {
  return outcome.kind === 'sent' ? 'sent' : outcome.kind === 'uncertain' ? 'uncertain' : 'notSent';
}

/** A row that may not go (another window sent it, sends it, or may have): its run when the mark names it, else unknown. */
function rowFromMark(row: BatchRow, mark: SendMark, note: string): void {
  if (mark.state === 'sent' && mark.ref?.runId !== undefined && mark.ref.kickoffId !== undefined) {
    row.status = 'sent';
    row.runId = mark.ref.runId;
    row.kickoffId = mark.ref.kickoffId;
    row.note = undefined;
  } else {
    row.status = 'unknown';
    row.note = note;
  }
}

/** After a batch file could not be written, the next send waits this long. */
const WRITE_RETRY_MS = 5000;
/** Rows in a row the crew could not take before a batch pauses (a moment's hiccup is tried again). */
const MAX_NOT_SENT = 3;
/** The wait before trying a crew that could not take a row again, times the failures so far. */
const NOT_SENT_RETRY_MS = 2000;

const leaseKey = (batchId: string) => `batch-${batchId}`;

export class BatchRunner {
  /** Rows this window is sending: `${batchId}:${index}`. */
  private readonly inFlight = new Set<string>();
  private readonly perCrew = new Map<string, number>();
  /** 429 Retry-After per crew. */
  private readonly notBefore = new Map<string, number>();
  /** Rows in a row each crew could not take (reset by a row it took). */
  private readonly notSentInARow = new Map<string, number>();
  private readonly wakeTimers = new Map<string, unknown>();
  private readonly active = new Set<string>();
  private readonly idleEmitter = new Emitter<string>();
  private readonly finishEmitter = new Emitter<string>();
  private readonly pauseEmitter = new Emitter<{ batchId: string; reason: string }>();
  private disposed = false;
  /** The rows being sent or recorded here, each until its last write is done: stop() waits for them. */
  private readonly work = new Set<Promise<unknown>>();
  /** Resolves when stop() is called: a kickoff still in flight then stops being waited for. */
  private abandon: () => void = () => undefined;
  private readonly abandoned = new Promise<undefined>((resolve) => (this.abandon = () => resolve(undefined)));

  /** A batch this window sends has nothing in flight any more (tests, progress notifications). */
  readonly onDidSettle: Event<string> = this.idleEmitter.event;
  /** Every row of a batch this window sent has ended: fired once, in that window only. */
  readonly onDidFinish: Event<string> = this.finishEmitter.event;
  /** A batch stopped sending because its crew cannot take rows now; its rows stay queued until resume(). */
  readonly onDidPause: Event<{ batchId: string; reason: string }> = this.pauseEmitter.event;

  constructor(private readonly deps: BatchRunnerDeps) {}

  /** True while this window sends (or records) the batch. */
  owns(batchId: string): boolean {
    return this.deps.lease.owns(leaseKey(batchId));
  }

  sending(batchId: string): number {
    return [...this.inFlight].filter((key) => key.startsWith(`${batchId}:`)).length;
  }

  /** Takes up every unfinished batch no other window holds (after a reload, or one closed), and records
   *  the ends of runs of batches held here that no change reported (nothing is left running for good). */
  async resumeAll(): Promise<void> {
    for (const batch of this.deps.store.list()) {
      if (batchProgress(batch).finished) {
        continue;
      }
      if (this.active.has(batch.id)) {
        await this.catchUp(batch.id);
        this.pump(batch.id);
        await this.settleIfDone(batch.id);
      } else if (!this.owns(batch.id)) {
        await this.start(batch.id);
      }
    }
  }

  /** Starts (or takes over) a batch if this window can hold its lease. */
  async start(batchId: string): Promise<boolean> {
    if (this.disposed || this.active.has(batchId)) {
      return this.active.has(batchId);
    }
    if (!(await this.deps.lease.tryAcquire(leaseKey(batchId)))) {
      return false;
    }
    this.active.add(batchId);
    // Decide from the file as it is now that we hold the lease: our copy may predate rows the previous
    // owner marked "sending".
    const batch = await this.deps.store.reread(batchId);
    if (!this.owns(batchId)) {
      this.active.delete(batchId); // Lost while reading (our lease lapsed): write nothing.
      return false;
    }
    // Rows "sending" here and now were in flight in a window that is gone: their marks say what became of them.
    const left = batch?.rows.filter((r) => r.status === 'sending' && !this.inFlight.has(`${batchId}:${r.index}`)) ?? [];
    if (left.length) {
      const marks = new Map(await Promise.all(left.map(async (r) => [r.index, await this.deps.sends.peek(batchRowKey(batchId, r.index))] as const)));
      const now = this.deps.clock.now();
      await this.deps.store.update(batchId, (b) => {
        for (const row of b.rows) {
          if (row.status !== 'sending' || !marks.has(row.index)) {
            continue;
          }
          const mark = marks.get(row.index);
          if (mark) {
            rowFromMark(row, mark, l10n.t('The window closed while this row was being kicked off; check the crew before re-running it.'));
          } else if (row.sentAt !== undefined && now - row.sentAt < UNMARKED_ROW_REQUEUED_WITHIN_MS) {
            row.status = 'queued';
            row.sentAt = undefined;
          } else {
            row.status = 'unknown';
            row.note = l10n.t('The window closed while this row was being kicked off; check the crew before re-running it.');
          }
        }
      });
      const rows = this.deps.store.get(batchId)?.rows.filter((r) => marks.has(r.index)) ?? [];
      this.deps.logger.warn(`Batch ${batchId}: rows in flight when their window closed: ${rows.map((r) => `row ${r.index + 1} ${r.status}`).join(', ')}.`);
    }
    await this.catchUp(batchId);
    this.pump(batchId);
    return true;
  }

  /**
   * Sends a paused batch's queued rows again (the user fixed what stopped it, or wants to try). False when the
   * batch, as it is now, is not paused: another window resumed it.
   */
  async resume(batchId: string): Promise<boolean> {
    // From the batch file as it is now, unless this window sends the batch (its copy is the truth): a copy read
    // up to 30 s ago may still say paused after another window resumed, even finished, the batch, and writing
    // it back would queue rows that went (#46).
    const sendsHere = this.active.has(batchId) && this.owns(batchId);
    const batch = sendsHere ? this.deps.store.get(batchId) : await this.deps.store.reread(batchId);
    if (!batch?.paused) {
      return false;
    }
    this.notSentInARow.delete(batch.crewUrl);
    this.notBefore.delete(batch.crewUrl);
    await this.deps.store.update(batchId, (b) => (b.paused = undefined));
    if (this.active.has(batchId)) {
      this.pump(batchId);
    } else {
      await this.start(batchId);
    }
    return true;
  }

  /** Queued rows will not be sent; rows already sent go on (their runs can be stopped one by one). */
  async cancel(batchId: string): Promise<void> {
    this.clearWake(batchId);
    if (!this.owns(batchId) && !this.active.has(batchId)) {
      // Another window sends it: our copy may be stale, so only a flag goes to disk; the owner applies it.
      await this.deps.store.requestCancel(batchId);
      return;
    }
    await this.deps.store.update(batchId, (b) => {
      b.cancelled = true;
      for (const row of b.rows) {
        if (row.status === 'queued') {
          row.status = 'cancelled';
        }
      }
    });
    await this.settleIfDone(batchId);
  }

  /** The batch is being removed: the runs it still awaited are left to the history cap like any other. */
  async letGoOfRuns(batch: Batch): Promise<void> {
    for (const row of batch.rows) {
      if (row.runId !== undefined && !row.result?.finishedAt) {
        await this.deps.endRecorded(row.runId).catch((e: unknown) => this.deps.logger.warn(`Batch ${batch.id}: run ${row.runId} could not be let go to the history cap: ${errorText(e)}`));
      }
    }
  }

  /** Some runs changed: record the ends of those that belong to a batch this window holds. */
  async runsChanged(runIds: string[]): Promise<void> {
    const ids = new Set(runIds);
    for (const batchId of this.active) {
      const batch = this.deps.store.get(batchId);
      const rows = batch?.rows.filter((r) => r.runId !== undefined && ids.has(r.runId) && r.status === 'sent' && !r.result?.finishedAt) ?? [];
      for (const row of rows) {
        await this.recordEnd(batchId, row);
      }
      if (rows.length) {
        this.pump(batchId);
        await this.settleIfDone(batchId);
      }
    }
  }

  /** No row goes out after this, and when it resolves no write of this runner is under way (a window
   *  closing must not cut a batch file). Kickoffs still in flight are abandoned: their rows stay
   *  "sending", which the next window to take the batch reads from the rows' marks. */
  async stop(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true;
      for (const id of [...this.wakeTimers.keys()]) {
        this.clearWake(id);
      }
      this.abandon();
    }
    await Promise.allSettled([...this.work]);
    await this.deps.store.flush();
    this.idleEmitter.dispose();
    this.finishEmitter.dispose();
    this.pauseEmitter.dispose();
  }

  /** Rows being kicked off here, plus rows whose runs have not ended. */
  private running(batch: Batch): number {
    return this.sending(batch.id) + batch.rows.filter((r) => r.status === 'sent' && !rowEnded(r) && !this.inFlight.has(`${batch.id}:${r.index}`)).length;
  }

  private limitOf(batch: Batch): number {
    return Math.max(1, Math.min(batch.concurrency, this.deps.maxPerCrew));
  }

  private pump(batchId: string): void {
    const batch = this.deps.store.get(batchId);
    if (this.disposed || !batch || !this.active.has(batchId)) {
      return;
    }
    if (batch.paused) {
      return;
    }
    if (batch.cancelled) {
      // Cancelled in another window (read from its flag): the queued rows here become cancelled.
      if (batch.rows.some((r) => r.status === 'queued') && this.owns(batchId)) {
        void this.cancel(batchId).catch((e: unknown) => this.logFailure(batchId, e));
      }
      return;
    }
    if (!this.owns(batchId)) {
      // Our lease lapsed and another window took the batch over: it sends from now on.
      this.active.delete(batchId);
      return;
    }
    const wait = (this.notBefore.get(batch.crewUrl) ?? 0) - this.deps.clock.now();
    if (wait > 0) {
      this.wakeAfter(batchId, wait);
      return;
    }
    for (const row of batch.rows) {
      // A row holds its place from its kickoff until its run ends: concurrency is runs at the crew at once.
      if (this.running(batch) >= this.limitOf(batch) || (this.perCrew.get(batch.crewUrl) ?? 0) >= this.deps.maxPerCrew) {
        break;
      }
      const key = `${batchId}:${row.index}`;
      if (row.status !== 'queued' || this.inFlight.has(key)) {
        continue;
      }
      this.inFlight.add(key);
      this.perCrew.set(batch.crewUrl, (this.perCrew.get(batch.crewUrl) ?? 0) + 1);
      const work: Promise<unknown> = this.sendRow(batchId, row.index)
        .then(
          () => true,
          (e: unknown) => {
            this.logFailure(batchId, e);
            return false;
          },
        )
        .then((ok) => {
          this.inFlight.delete(key);
          this.perCrew.set(batch.crewUrl, (this.perCrew.get(batch.crewUrl) ?? 1) - 1);
          // After a failed write (disk full, folder gone) try again later, not at once in a loop.
          if (ok) {
            this.pump(batchId);
          } else {
            this.wakeAfter(batchId, WRITE_RETRY_MS);
          }
          return this.settleIfDone(batchId).catch((e: unknown) => this.logFailure(batchId, e));
        })
        .finally(() => this.work.delete(work));
      this.work.add(work);
    }
  }

  private async sendRow(batchId: string, index: number): Promise<void> {
    if (await this.deps.store.cancelRequested(batchId)) {
      // Cancel or Remove in another window: this row and the rest of the queue are not sent.
      await this.cancel(batchId);
      return;
    }
    if (!this.owns(batchId)) {
      return; // The lease lapsed while we checked: the window that took it sends this row.
    }
    // On disk first, then its mark: a window taking the batch over reads a row left "sending" from its mark.
    await this.deps.store.updateRow(batchId, index, (r) => {
      r.status = 'sending';
      r.sentAt = this.deps.clock.now();
    });
    const batch = this.deps.store.get(batchId);
    const row = batch?.rows.find((r) => r.index === index);
    if (!batch || !row) {
      return;
    }
    if (this.disposed || batch.cancelled) {
      await this.deps.store.updateRow(batchId, index, (r) => (r.status = batch.cancelled ? 'cancelled' : 'queued'));
      return;
    }
    // The one decision whether the row may go: its mark, whichever window holds it.
    const claim = await this.deps.sends.claim(batchRowKey(batchId, index)).catch(async (e: unknown) => {
      await this.deps.store.updateRow(batchId, index, (r) => {
        r.status = 'queued'; // Not knowing whether another window sends it, this one does not now.
        r.sentAt = undefined;
      });
      throw e;
    });
    if (isBlocked(claim)) {
      await this.deps.store.updateRow(batchId, index, (r) => rowFromMark(r, claim.mark, l10n.t('Another window kicked this row off, or may have; check the crew before re-running it.')));
      this.deps.logger.warn(`Batch ${batchId}: row ${index + 1} was not sent again: its kickoff is ${claim.kind === 'inFlight' ? 'in flight' : claim.kind} in window ${claim.mark.windowId}.`);
      const now = this.deps.store.get(batchId)?.rows.find((r) => r.index === index);
      if (now?.status === 'sent') {
        await this.recordEnd(batchId, now);
      }
      return;
    }
    let request: Promise<SendOutcome>;
    try {
      request = this.deps.send(batch, row);
    } catch (e) {
      request = Promise.reject(e);
    }
    const failed = (e: unknown): SendOutcome => ({ kind: 'uncertain', message: errorText(e) });
    // The mark follows the request even when this window stops waiting for it (it is closing): the next window
    // taking the batch reads there what became of the row. Settled before the row is written: a row queued
    // again must find its item free.
    const marked = request.catch(failed).then(async (o) => {
      const ref = o.kind === 'sent' ? { runId: o.runId, kickoffId: o.kickoffId } : undefined;
      await claim.settle(markOutcome(o), ref).catch((e: unknown) => this.deps.logger.warn(`Batch ${batchId}: row ${index + 1}'s send mark: ${errorText(e)}`));
    });
    let outcome: SendOutcome | undefined;
    try {
      outcome = await Promise.race([request, this.abandoned]);
    } catch (e) {
      outcome = failed(e);
    }
    if (outcome !== undefined) {
      await marked;
    }
    if (outcome === undefined || (this.disposed && outcome.kind !== 'sent')) {
      // The window is going (its shutdown may be what failed the request): the row stays "sending", and the
      // next window to take the batch reads its mark (unknown, with the plain explanation, unless it went).
      return;
    }
    await this.deps.store.updateRow(batchId, index, (r) => {
      switch (outcome.kind) {
        case 'sent':
          r.status = 'sent';
          r.runId = outcome.runId;
          r.kickoffId = outcome.kickoffId;
          r.note = undefined;
          break;
        case 'refused':
          r.status = 'notSent';
          r.note = outcome.message;
          break;
        case 'uncertain':
          r.status = 'unknown';
          r.note = outcome.message;
          break;
        case 'retryLater':
        case 'crewUnavailable':
          r.status = batch.cancelled ? 'cancelled' : 'queued';
          r.sentAt = undefined;
          break;
      }
    });
    if (outcome.kind === 'retryLater') {
      this.notBefore.set(batch.crewUrl, Math.max(this.notBefore.get(batch.crewUrl) ?? 0, this.deps.clock.now() + outcome.delayMs));
    }
    if (outcome.kind === 'crewUnavailable') {
      await this.crewUnavailable(batch, outcome);
    } else if (outcome.kind === 'sent') {
      this.notSentInARow.delete(batch.crewUrl);
    }
    if (outcome.kind === 'sent') {
      // A very short run may have ended before its row said "sent".
      await this.recordEnd(batchId, { ...row, status: 'sent', runId: outcome.runId });
    }
  }

  /** A row the crew could not take: try again after a while, or pause once trying cannot help. */
  private async crewUnavailable(batch: Batch, outcome: { message: string; final: boolean }): Promise<void> {
    const count = (this.notSentInARow.get(batch.crewUrl) ?? 0) + 1;
    this.notSentInARow.set(batch.crewUrl, count);
    if (!outcome.final && count < MAX_NOT_SENT) {
      this.notBefore.set(batch.crewUrl, Math.max(this.notBefore.get(batch.crewUrl) ?? 0, this.deps.clock.now() + NOT_SENT_RETRY_MS * count));
      return;
    }
    if (this.deps.store.get(batch.id)?.paused) {
      return; // Another row of the same batch paused it already.
    }
    await this.deps.store.update(batch.id, (b) => (b.paused = outcome.message));
    this.deps.logger.warn(`Batch ${batch.id}: paused with its rows queued: ${outcome.message}`);
    this.pauseEmitter.fire({ batchId: batch.id, reason: outcome.message });
  }

  /** Rows whose runs ended while no window held the batch. */
  private async catchUp(batchId: string): Promise<void> {
    for (const row of this.deps.store.get(batchId)?.rows ?? []) {
      if (row.status === 'sent' && row.runId && !row.result?.finishedAt) {
        await this.recordEnd(batchId, row);
      }
    }
  }

  /** Tracked: it writes the row's output and result, which stop() must not cut. */
  private recordEnd(batchId: string, row: BatchRow): Promise<void> {
    const work = this.writeEnd(batchId, row).finally(() => this.work.delete(work));
    this.work.add(work);
    return work;
  }

  private async writeEnd(batchId: string, row: BatchRow): Promise<void> {
    if (!row.runId) {
      return;
    }
    const end = await this.deps.runEnd(row.runId);
    if (!end) {
      return;
    }
    if (end.kind === 'gone') {
      await this.deps.store.updateRow(batchId, row.index, (r) => {
        r.status = 'unknown';
        r.note = l10n.t('Its run was removed from the history before it ended.');
      });
      return;
    }
    if (end.output !== undefined || end.result.error !== undefined) {
      await this.deps.store.appendOutput(batchId, { row: row.index, output: end.output, error: end.result.error });
    }
    await this.deps.store.updateRow(batchId, row.index, (r) => {
      r.result = { ...end.result, outputPreview: outputPreview(end.output), finishedAt: end.result.finishedAt ?? this.deps.clock.now() };
    });
    const runId = row.runId;
    await this.deps.endRecorded(runId).catch((e: unknown) => this.deps.logger.warn(`Batch ${batchId}: run ${runId} could not be let go to the history cap: ${errorText(e)}`));
  }

  private async settleIfDone(batchId: string): Promise<void> {
    const batch = this.deps.store.get(batchId);
    if (!batch && this.sending(batchId) === 0 && this.active.delete(batchId)) {
      // Removed (in another window): nothing more to send or record.
      this.clearWake(batchId);
      await this.deps.lease.release(leaseKey(batchId));
    }
    if (!batch || this.sending(batchId) > 0) {
      return;
    }
    const progress = batchProgress(batch);
    if (progress.queued === 0 || batch.cancelled) {
      this.idleEmitter.fire(batchId);
    }
    if (progress.finished && this.active.delete(batchId)) {
      this.clearWake(batchId);
      this.finishEmitter.fire(batchId);
      await this.deps.lease.release(leaseKey(batchId));
    }
  }

  private logFailure(batchId: string, error: unknown): void {
    this.deps.logger.error(`Batch ${batchId}: could not record a change: ${errorText(error)}`);
  }

  private wakeAfter(batchId: string, ms: number): void {
    if (this.wakeTimers.has(batchId)) {
      return;
    }
    this.wakeTimers.set(
      batchId,
      this.deps.clock.setTimeout(() => {
        this.wakeTimers.delete(batchId);
        this.pump(batchId);
      }, ms),
    );
  }

  private clearWake(batchId: string): void {
    const timer = this.wakeTimers.get(batchId);
    if (timer !== undefined) {
      this.deps.clock.clearTimeout(timer);
      this.wakeTimers.delete(batchId);
    }
  }
}
