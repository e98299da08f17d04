// Polls every watched, unfinished run when it is due (pollTimes.ts says when), and folds each answer
// into the RunStore, whose change events drive the UI. Pauses a crew's runs while it has no working token.

import { isCrewApiError } from '../api/errors';
import type { StatusSnapshot, StatusSource } from '../api/types';
import type { Clock } from '../util/clock';
import { type Disposable, Emitter, type Event } from '../util/event';
import type { RunChange } from './changes';
import { isActive, isFinished, type Logger, type RunRecord } from './model';
import { isForgotten, notFoundWatchOver } from './notFound';
import { describeError, DueTimes, POLLER_DEFAULTS, type PollerOptions, type Schedule, stripUndefined, type Timings } from './pollTimes';
import type { RunStore } from './runStore';

export { POLLER_DEFAULTS, type PollerOptions } from './pollTimes';

/** Says whether this window may poll a run (see LeaseManager); `release` when it stops polling it. */
export interface RunOwnership {
  canPoll(runId: string): boolean | Promise<boolean>;
  release?(runId: string): void | Promise<void>;
}

/** A crew's runs are paused for want of a working token. */
export interface TokenNeed {
  crewUrl: string;
  /** `refused`: the crew answered 401/403; `missing`: no token is stored (forgotten, or the crew removed). */
  reason: 'refused' | 'missing';
}

export interface PollResult {
  runId: string;
  ok: boolean;
  durationMs: number;
  /** What meaningfully changed (only when ok). */
  changes?: RunChange[];
  error?: string;
}

export class RunPoller implements Disposable {
  private readonly options: Timings;
  private readonly times: DueTimes;
  private readonly schedules: Map<string, Schedule>;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly pollEmitter = new Emitter<PollResult>();
  private readonly needTokenEmitter = new Emitter<TokenNeed>();
  private started = false;
  private disposed = false;
  private readonly subscriptions: Disposable[] = [];
  private readonly tokenChanges?: Event<string>;

  /** After every status request (for tests and benchmarks). */
  readonly onDidPoll: Event<PollResult> = this.pollEmitter.event;
  /** A crew's runs paused for want of a working token. Fired once per crew until its token changes. */
  readonly onDidNeedToken: Event<TokenNeed> = this.needTokenEmitter.event;

  constructor(
    private readonly store: RunStore,
    private readonly source: StatusSource,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly ownership: RunOwnership = { canPoll: () => true },
    options: PollerOptions = {},
  ) {
    const { random, tokenChanges, ...timings } = options;
    this.options = { ...POLLER_DEFAULTS, ...stripUndefined(timings) };
    this.times = new DueTimes(clock, this.options, random ?? Math.random);
    this.schedules = this.times.schedules;
    this.tokenChanges = tokenChanges;
  }

  /** Resumes every unfinished, watched run (e.g. after a window reload) and follows store changes. */
  start(): void {
    if (this.started || this.disposed) {
      return;
    }
    this.started = true;
    this.subscriptions.push(this.store.onDidChange((e) => this.syncWithStore(e.runIds)));
    // "A crew's token changed (tree, palette, kickoff, another window): poll its paused runs" is a model rule.
    if (this.tokenChanges) {
      this.subscriptions.push(this.tokenChanges((crewUrl) => void this.track(this.resumeCrew(crewUrl))));
    }
    for (const run of this.store.list()) {
      if (isActive(run)) {
        this.schedule(run, this.options.firstDelayMs);
      } else if (!isFinished(run) && run.stopReason === 'unauthorized') {
        // The token may have been fixed meanwhile: try once more (a missing one waits for a token change: no nag).
        this.track(this.store.setWatching(run.id, true).then(() => this.scheduleById(run.id, this.options.firstDelayMs)));
      }
    }
    this.arm();
  }

  /** Start polling a run soon (right after kickoff), watching it again if needed. */
  watch(runId: string): void {
    const run = this.store.get(runId);
    if (!run || isFinished(run) || this.disposed) {
      return;
    }
    // A kickoff or resume just went through with the crew's current token: its paused runs go on too.
    if (this.times.crew(run.crewUrl).paused) {
      void this.track(this.resumeCrew(run.crewUrl));
    }
    if (!run.watching) {
      this.track(this.store.setWatching(runId, true).then(() => this.scheduleById(runId, this.options.firstDelayMs)));
      return;
    }
    this.scheduleById(runId, this.options.firstDelayMs);
  }

  /** A resume: check this run soon, at the fast pace. */
  pokeRun(runId: string): void {
    this.watch(runId);
  }

  async stopWatching(runId: string): Promise<void> {
    const s = this.schedules.get(runId);
    s?.inFlight?.abort();
    this.schedules.delete(runId);
    await this.track(this.store.setWatching(runId, false, 'user'));
    // The lease goes only once the stop is stored: a window that takes it then reads a stopped run.
    if (s) {
      this.schedules.set(runId, s);
      this.unschedule(runId);
    }
  }

  async resumeWatching(runId: string): Promise<void> {
    const run = this.store.get(runId);
    if (!run || isFinished(run)) {
      return;
    }
    // The user asks to try again: a paused crew is tried again too (a refused token pauses it anew).
    this.times.crew(run.crewUrl).paused = false;
    await this.track(this.store.setWatching(runId, true));
    this.scheduleById(runId, this.options.firstDelayMs);
  }

  /** The crew's token changed: poll its paused runs again (a missing or refused token pauses them anew). */
  async resumeCrew(crewUrl: string): Promise<void> {
    const crew = this.times.crew(crewUrl);
    crew.paused = false;
    const paused = this.store.list(crewUrl).filter((r) => !isFinished(r) && !r.watching && (r.stopReason === 'unauthorized' || r.stopReason === 'noToken'));
    for (const run of paused) {
      await this.track(this.store.setWatching(run.id, true));
      this.scheduleById(run.id, this.options.firstDelayMs);
    }
  }

  setFocused(focused: boolean): void {
    if (this.times.setFocused(focused)) {
      this.arm();
    }
  }

  /** Resolves once no poll or store write started by the poller is in progress (for tests). */
  async whenIdle(): Promise<void> {
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending]);
    }
  }

  /** Polls and store writes started by the poller and not yet finished (for tests with a fake clock). */
  get pendingOperations(): number {
    return this.pending.size;
  }

  /** The run ids currently scheduled (for tests and the status bar). */
  scheduledRunIds(): string[] {
    return [...this.schedules.keys()];
  }

  /** When the run will next be polled, if scheduled. */
  nextPollAt(runId: string): number | undefined {
    const s = this.schedules.get(runId);
    return s && this.times.dueAt(s);
  }

  dispose(): void {
    this.disposed = true;
    this.times.clearTimer();
    this.subscriptions.splice(0).forEach((d) => d.dispose());
    for (const s of this.schedules.values()) {
      s.inFlight?.abort();
    }
    this.schedules.clear();
    this.pollEmitter.dispose();
    this.needTokenEmitter.dispose();
  }

  private syncWithStore(runIds: string[]): void {
    for (const id of runIds) {
      const run = this.store.get(id);
      if (!run || !isActive(run)) {
        if (this.schedules.has(id)) {
          this.unschedule(id);
        }
      } else if (!this.schedules.has(id) && !this.times.crew(run.crewUrl).paused) {
        // A run added here or by another window: poll it if we may.
        this.schedule(run, this.options.firstDelayMs);
      }
    }
    this.arm();
  }

  private scheduleById(runId: string, delayMs: number): void {
    const run = this.store.get(runId);
    if (run && isActive(run)) {
      this.schedule(run, delayMs);
    }
  }

  private schedule(run: RunRecord, delayMs: number): void {
    if (!this.disposed) {
      this.times.place(run.id, run.crewUrl, delayMs);
      this.arm();
    }
  }

  private unschedule(runId: string): void {
    const s = this.schedules.get(runId);
    if (!s) {
      return;
    }
    s.inFlight?.abort();
    this.schedules.delete(runId);
    if (this.ownership.release) {
      this.track(Promise.resolve(this.ownership.release(runId)));
    }
    this.arm();
  }

  /** Starts every due poll the caps allow, then sets the one timer for the next due time. */
  private arm(): void {
    if (this.started && !this.disposed) {
      this.times.arm((s) => this.pollNow(s), () => this.arm());
    }
  }

  private pollNow(s: Schedule): void {
    const controller = new AbortController();
    s.inFlight = controller;
    const crew = this.times.crew(s.crewUrl);
    crew.inFlight++;
    this.track(
      this.poll(s, controller).finally(() => {
        crew.inFlight--;
        if (s.inFlight === controller) {
          s.inFlight = undefined;
        }
        this.arm();
      }),
    );
  }

  private async poll(s: Schedule, controller: AbortController): Promise<void> {
    // The latest stored version, not this window's copy: another window may have stopped or removed it.
    const run = this.store.current(s.runId);
    if (!run || !isActive(run)) {
      this.unschedule(s.runId);
      return;
    }
    const now = this.clock.now();
    if (now - run.watchSince >= this.options.watchDeadlineMs) {
      this.logger.info(`Run ${run.id}: watch deadline passed; it may still be running.`);
      this.unschedule(run.id);
      await this.store.setWatching(run.id, false, 'deadline');
      return;
    }
    if (!(await this.mayPoll(run.id))) {
      this.times.setDelay(s, this.options.ownershipRecheckMs, { plain: true });
      return;
    }
    if (controller.signal.aborted || this.disposed) {
      return;
    }
    const polled = { kickoffId: run.kickoffId, revision: run.revision };
    const kickoffId = run.kickoffId;
    let snapshot: StatusSnapshot;
    try {
      snapshot = await this.source.getStatus(run.crewUrl, kickoffId, controller.signal);
    } catch (e) {
      if (controller.signal.aborted || this.disposed) {
        return;
      }
      if (isCrewApiError(e) && e.kind === 'notFound') {
        snapshot = { state: 'notFound', tasks: [], raw: e.body ?? null, message: e.serverMessage };
      } else {
        await this.handleFailure(s, run, e, now);
        return;
      }
    }
    if (controller.signal.aborted || this.disposed) {
      return;
    }
    let changes: RunChange[];
    try {
      // Checked in the run's queue against its latest stored version: feedback, a resume, a stop or a removal meanwhile (any window) make it stale.
      const result = await this.store.applyPolled(run.id, polled, snapshot);
      if (!result.applied) {
        this.times.setDelay(s, this.options.fastIntervalMs);
        return;
      }
      changes = result.changes;
    } catch (e) {
      await this.handleFailure(s, run, e, now); // Could not save (disk full?): back off like any failed check.
      return;
    }
    const durationMs = this.clock.now() - now;
    this.pollEmitter.fire({ runId: run.id, ok: true, durationMs, changes });
    s.consecutiveFailures = 0;
    s.notBefore = 0;
    if (run.warning !== undefined) {
      await this.store.setWarning(run.id, undefined);
    }
    await this.afterSnapshot(s, snapshot, changes);
  }

  private async mayPoll(runId: string): Promise<boolean> {
    try {
      return await this.ownership.canPoll(runId);
    } catch (e) {
      this.logger.warn(`Run ${runId}: cannot tell whether this window owns it (${String(e)}).`);
      return false;
    }
  }

  private async afterSnapshot(s: Schedule, snapshot: StatusSnapshot, changes: RunChange[]): Promise<void> {
    const run = this.store.get(s.runId);
    if (!run || !isActive(run)) {
      this.unschedule(s.runId);
      return;
    }
    const now = this.clock.now();
    const limits = { graceMs: this.options.notFoundGraceMs, expiryMs: this.options.notFoundExpiryMs };
    if (snapshot.state === 'notFound' && notFoundWatchOver(run, snapshot, now, limits)) {
      this.logger.info(`Run ${run.id}: the service does not know kickoff ${run.kickoffId}; stopped watching (unknown or expired).`);
      this.unschedule(run.id);
      // A forgotten run keeps its message, in the server's words.
      await this.store.markExpired(run.id, isForgotten(run, snapshot) ? run.message : undefined);
      return;
    }
    if (run.state === 'awaitingFeedback') {
      // Nothing moves until someone answers; keep checking slowly to notice a resume from elsewhere.
      s.intervalMs = this.options.maxIntervalMs;
    } else if (changes.length > 0 || now < s.fastUntil) {
      s.intervalMs = this.options.fastIntervalMs;
    } else {
      s.intervalMs = this.times.grow(s.intervalMs);
    }
    this.times.setDelay(s, s.intervalMs);
  }

  private async handleFailure(s: Schedule, run: RunRecord, e: unknown, startedAt: number): Promise<void> {
    const durationMs = this.clock.now() - startedAt;
    const reason = e instanceof Error ? e.message : String(e);
    this.pollEmitter.fire({ runId: run.id, ok: false, durationMs, error: reason });
    if (isCrewApiError(e) && (e.kind === 'unauthorized' || e.kind === 'noToken')) {
      await this.pauseCrew(run.crewUrl, e.kind === 'noToken' ? 'missing' : 'refused');
      return;
    }
    if (!isCrewApiError(e)) {
      this.logger.error(`Run ${run.id}: status check failed unexpectedly: ${reason}`);
    }
    const slow = this.times.failed(s, isCrewApiError(e) ? e : undefined);
    const warning = slow
      ? `${s.consecutiveFailures} status checks in a row failed (${describeError(e)}); still trying every ${Math.round(s.intervalMs / 1000)} s.`
      : `Last status check failed (${describeError(e)}); retrying.`;
    this.logger.warn(`Run ${run.id}: ${warning}`);
    await this.store.setWarning(run.id, warning);
  }

  private async pauseCrew(crewUrl: string, reason: TokenNeed['reason']): Promise<void> {
    const crew = this.times.crew(crewUrl);
    const firstTime = !crew.paused;
    crew.paused = true;
    const runs = this.store.list(crewUrl).filter(isActive);
    for (const run of runs) {
      this.schedules.get(run.id)?.inFlight?.abort();
      this.schedules.delete(run.id);
    }
    for (const run of runs) {
      await this.store.setWatching(run.id, false, reason === 'missing' ? 'noToken' : 'unauthorized');
    }
    if (firstTime) {
      this.logger.warn(`Crew ${crewUrl} ${reason === 'missing' ? 'has no token stored' : 'refused its token'}; its runs are paused until its token changes.`);
      this.needTokenEmitter.fire({ crewUrl, reason });
    }
    this.arm();
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    const tracked = promise.catch((e) => {
      this.logger.error(`Run poller: ${e instanceof Error ? e.message : String(e)}`);
      return undefined as T;
    });
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
    return tracked;
  }
}
