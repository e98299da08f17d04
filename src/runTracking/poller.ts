// Polls every watched, unfinished run when it is due (pollTimes.ts says when; statusCheck.ts does
// one check), and folds each answer into the RunStore, whose change events drive the UI. Pauses a
// crew's runs while it has no working token.

import * as l10n from '@vscode/l10n';
import type { StatusSource } from '../api/types';
import type { Clock } from '../util/clock';
import { type Disposable, Emitter, type Event } from '../util/event';
import { isActive, isFinished, type RunRecord } from './model';
import type { Logger } from '../util/logger';
import { DueTimes, POLLER_DEFAULTS, type PollerOptions, type Schedule, stripUndefined, type Timings } from './pollTimes';
import type { RunStore } from './runStore';
import { type CheckHost, checkRun, type PollResult, type RunOwnership, type TokenNeed } from './statusCheck';
import { errorText } from '../util/errorText';

export { POLLER_DEFAULTS, type PollerInspection, type PollerOptions } from './pollTimes';
export type { PollResult, RunOwnership, TokenNeed } from './statusCheck';

const pausedForToken = (r: RunRecord): boolean => !isFinished(r) && !r.watching && (r.stopReason === 'unauthorized' || r.stopReason === 'noToken');

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
  private readonly host: CheckHost;

  /** After every status request: the reporter's log lines and notices. */
  readonly onDidPoll: Event<PollResult> = this.pollEmitter.event;
  /** A crew's runs paused for want of a working token. Fired once per crew until its token changes. */
  readonly onDidNeedToken: Event<TokenNeed> = this.needTokenEmitter.event;

  constructor(
    private readonly store: RunStore,
    source: StatusSource,
    clock: Clock,
    private readonly logger: Logger,
    private readonly ownership: RunOwnership = { canPoll: () => true },
    options: PollerOptions = {},
  ) {
    const { random, tokenChanges, inspect, ...timings } = options;
    this.options = { ...POLLER_DEFAULTS, ...stripUndefined(timings) };
    this.times = new DueTimes(clock, this.options, random ?? Math.random);
    this.schedules = this.times.schedules;
    this.tokenChanges = tokenChanges;
    this.host = {
      store,
      source,
      clock,
      logger,
      ownership: this.ownership,
      options: this.options,
      times: this.times,
      isDisposed: () => this.disposed,
      unschedule: (runId) => this.unschedule(runId),
      pauseCrew: (crewUrl, reason) => this.pauseCrew(crewUrl, reason),
      firePoll: (result) => this.pollEmitter.fire(result),
    };
    inspect?.({
      whenIdle: async () => {
        while (this.pending.size > 0) {
          await Promise.allSettled([...this.pending]);
        }
      },
      pendingOperations: () => this.pending.size,
      scheduledRunIds: () => [...this.schedules.keys()],
      viewedRunIds: () => this.times.viewedRunIds(),
      nextPollAt: (runId) => {
        const s = this.schedules.get(runId);
        return s && this.times.dueAt(s);
      },
    });
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
        void this.track(this.store.setWatching(run.id, true).then(() => this.scheduleById(run.id, this.options.firstDelayMs)));
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
    // A kickoff or resume just went through with the crew's current token: its paused runs go on too
    // (asked of the records, not only of this window's pause, which a change from elsewhere may have lifted).
    if (this.times.crew(run.crewUrl).paused || this.store.list(run.crewUrl).some(pausedForToken)) {
      void this.track(this.resumeCrew(run.crewUrl));
    }
    if (!run.watching) {
      void this.track(this.store.setWatching(runId, true).then(() => this.scheduleById(runId, this.options.firstDelayMs)));
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
    const paused = this.store.list(crewUrl).filter(pausedForToken);
    for (const run of paused) {
      await this.track(this.store.setWatching(run.id, true));
      this.scheduleById(run.id, this.options.firstDelayMs);
    }
  }

  /**
   * The runs someone is looking at (a visible run view, or the run selected in a visible tree):
   * polled at the fast pace, capped at `viewedMaxIntervalMs`, even while the window is unfocused.
   */
  setViewed(runIds: Iterable<string>): void {
    if (this.times.setViewed(runIds)) {
      this.arm();
    }
  }

  setFocused(focused: boolean): void {
    if (this.times.setFocused(focused)) {
      this.arm();
    }
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
      } else if (!this.schedules.has(id)) {
        const crew = this.times.crew(run.crewUrl);
        if (!crew.paused) {
          // A run added here or by another window: poll it if we may.
          this.schedule(run, this.options.firstDelayMs);
        } else {
          // Paused here, yet the shared record says watched: another window resumed it (its token may work).
          // The pause follows the record; waiting one ownership recheck lets that window take the lease first.
          crew.paused = false;
          this.schedule(run, this.options.ownershipRecheckMs);
        }
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
      void this.track(Promise.resolve(this.ownership.release(runId)));
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
    void this.track(
      checkRun(this.host, s, controller).finally(() => {
        crew.inFlight--;
        if (s.inFlight === controller) {
          s.inFlight = undefined;
        }
        this.arm();
      }),
    );
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
      // Once the pause is stored, the lease goes: a window that resumes the run (its token works) polls it.
      if (this.ownership.release) {
        await this.ownership.release(run.id);
      }
    }
    if (firstTime) {
      this.logger.warn(reason === 'missing'
          ? l10n.t('Crew {0} has no token stored; its runs are paused until its token changes.', crewUrl)
          : l10n.t('Crew {0} refused its token; its runs are paused until its token changes.', crewUrl));
      this.needTokenEmitter.fire({ crewUrl, reason });
    }
    this.arm();
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    const tracked = promise.catch((e) => {
      this.logger.error(l10n.t('Run poller: {0}', errorText(e)));
      return undefined as T;
    });
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
    return tracked;
  }
}
