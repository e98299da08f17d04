// When each run is polled next: a due time per run (the pace of pollPace.ts, Retry-After), the
// crews' caps, the runs being viewed, and one timer for the earliest due time. What a poll does is
// the poller's (poller.ts).

import type { CrewApiError } from '../api/errors';
import type { RunState } from '../api/types';
import type { Clock } from '../util/clock';
import type { Event } from '../util/event';
import { capOf, effectiveDelay, intervalAfterFailure, jitterFactor } from './pollPace';

export interface PollerOptions {
  /** Delay before the first poll of a run (after kickoff, resume, window reload). */
  firstDelayMs?: number;
  /** Interval after a poll that saw a meaningful change. */
  fastIntervalMs?: number;
  /** After a run is (re)scheduled it is polled at the fast interval this long, changed or not: short runs end soon. */
  fastPhaseMs?: number;
  backoffFactor?: number;
  maxIntervalMs?: number;
  /** The cap while someone looks at the run (its view visible, or its tree item selected in a visible view). */
  viewedMaxIntervalMs?: number;
  /** ±fraction applied to every delay, so runs (and windows) do not poll in lockstep. */
  jitter?: number;
  /** Returns [0, 1), like Math.random. */
  random?: () => number;
  /** Delays are multiplied by this while the window is not focused. */
  unfocusedFactor?: number;
  maxConcurrentPerCrew?: number;
  /** NOT FOUND for a run never reported by the service is normal this long after kickoff. */
  notFoundGraceMs?: number;
  /** NOT FOUND lasting this long means "unknown or expired". */
  notFoundExpiryMs?: number;
  /** Stop watching (not failing) a run this long after its watch began. */
  watchDeadlineMs?: number;
  /** Consecutive failed checks after which the warning says so and polling drops to the slow interval. */
  failuresBeforeSlow?: number;
  /** How soon to ask again whether this window may poll a run it does not own. */
  ownershipRecheckMs?: number;
  /** Fires with a crew URL whose token changed (set, replaced or forgotten, in any window). */
  tokenChanges?: Event<string>;
  /** Given the poller's inspection once, when it is made: tests and the bench only (see PollerInspection). */
  inspect?: (inspection: PollerInspection) => void;
}

/** What tests and the bench may read of a poller; no member of the poller itself is there for them. */
export interface PollerInspection {
  /** Resolves once no poll or store write started by the poller is in progress. */
  whenIdle(): Promise<void>;
  /** Polls and store writes started by the poller and not yet finished (tests with a fake clock). */
  pendingOperations(): number;
  /** The runs scheduled to be polled. */
  scheduledRunIds(): string[];
  /** The runs polled at the viewed pace (see RunPoller.setViewed). */
  viewedRunIds(): string[];
  /** When the run will next be polled, if scheduled. */
  nextPollAt(runId: string): number | undefined;
}

export type Timings = Required<Omit<PollerOptions, 'random' | 'tokenChanges' | 'inspect'>>;

export const POLLER_DEFAULTS: Timings = {
  // ±20% jitter keeps the fast interval within 1.5 s, so a short run's end is seen within about that.
  firstDelayMs: 1_250,
  fastIntervalMs: 1_250,
  fastPhaseMs: 20_000,
  backoffFactor: 1.5,
  maxIntervalMs: 15_000,
  // With jitter that never stretches past it: a viewed run's end is seen within about 2.5 s.
  viewedMaxIntervalMs: 2_500,
  jitter: 0.2,
  unfocusedFactor: 2,
  maxConcurrentPerCrew: 4,
  notFoundGraceMs: 2 * 60_000,
  notFoundExpiryMs: 24 * 60 * 60_000,
  watchDeadlineMs: 24 * 60 * 60_000,
  failuresBeforeSlow: 3,
  ownershipRecheckMs: 15_000,
};

export interface Schedule {
  runId: string;
  crewUrl: string;
  /** Current base interval, before jitter and the focus factor. */
  intervalMs: number;
  /** When the current delay started counting. */
  from: number;
  /** Base delay from `from`; the effective delay also applies jitter and focus. */
  delayMs: number;
  jitterFactor: number;
  /** Retry-After for this run. */
  notBefore: number;
  consecutiveFailures: number;
  /** Until then the run is polled at the fast interval even when nothing changes. */
  fastUntil: number;
  /** The states the run was seen in since it was (re)scheduled: a flip back to one is not news (pollPace.madeProgress). */
  statesSeen: Set<RunState>;
  inFlight?: AbortController;
  /** Not stretched while the window is unfocused (asking for a lease: a closed window's runs are taken up within a lease period). */
  plain?: boolean;
}

export interface CrewState {
  inFlight: number;
  /** Retry-After of a 429: the whole crew waits. */
  notBefore: number;
  /** The token was refused; nothing of this crew is polled until resumeCrew. */
  paused: boolean;
}

export class DueTimes {
  readonly schedules = new Map<string, Schedule>();
  private readonly crews = new Map<string, CrewState>();
  private timer: unknown;
  private timerDueAt = Infinity;
  private focused = true;
  private viewed = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly options: Timings,
    private readonly random: () => number,
  ) {}

  /** Returns whether anything changed. */
  setFocused(focused: boolean): boolean {
    const changed = this.focused !== focused;
    this.focused = focused;
    return changed;
  }

  /**
   * The runs someone is looking at. A run that becomes viewed is due within the viewed cap of its
   * last check (unless it is backing off after failures). Returns whether anything changed.
   */
  setViewed(runIds: Iterable<string>): boolean {
    const next = new Set(runIds);
    const changed = next.size !== this.viewed.size || [...next].some((id) => !this.viewed.has(id));
    this.viewed = next;
    if (changed) {
      const cap = capOf(this.options, true);
      for (const id of next) {
        const s = this.schedules.get(id);
        if (s && s.consecutiveFailures === 0) {
          s.intervalMs = Math.min(s.intervalMs, cap);
          s.delayMs = Math.min(s.delayMs, cap);
        }
      }
    }
    return changed;
  }

  isViewed(runId: string): boolean {
    return this.viewed.has(runId);
  }

  viewedRunIds(): string[] {
    return [...this.viewed];
  }

  crew(crewUrl: string): CrewState {
    let crew = this.crews.get(crewUrl);
    if (!crew) {
      crew = { inFlight: 0, notBefore: 0, paused: false };
      this.crews.set(crewUrl, crew);
    }
    return crew;
  }

  /** (Re)schedules a run at the fast pace, first due after `delayMs`. */
  place(runId: string, crewUrl: string, delayMs: number): Schedule {
    const s: Schedule = this.schedules.get(runId) ?? {
      runId,
      crewUrl,
      intervalMs: this.options.fastIntervalMs,
      from: 0,
      delayMs: 0,
      jitterFactor: 1,
      notBefore: 0,
      consecutiveFailures: 0,
      fastUntil: 0,
      statesSeen: new Set(),
    };
    s.crewUrl = crewUrl;
    s.statesSeen.clear();
    s.intervalMs = this.options.fastIntervalMs;
    s.fastUntil = this.clock.now() + delayMs + this.options.fastPhaseMs;
    this.setDelay(s, delayMs);
    this.schedules.set(runId, s);
    return s;
  }

  /** A check failed: back off (to the slow interval after several), honour Retry-After. Returns whether slow. */
  failed(s: Schedule, e: CrewApiError | undefined): boolean {
    s.consecutiveFailures++;
    const { intervalMs, slow } = intervalAfterFailure(this.options, s.intervalMs, s.consecutiveFailures);
    s.intervalMs = intervalMs;
    this.setDelay(s, s.intervalMs);
    const now = this.clock.now();
    if (e?.retryAfterMs !== undefined && e.retryAfterMs > 0) {
      s.notBefore = now + e.retryAfterMs;
      if (e.kind === 'rateLimited' || e.status === 429) {
        const crew = this.crew(s.crewUrl);
        crew.notBefore = Math.max(crew.notBefore, now + e.retryAfterMs);
      }
    }
    return slow;
  }

  setDelay(s: Schedule, delayMs: number, options: { plain?: boolean } = {}): void {
    s.plain = options.plain;
    s.from = this.clock.now();
    s.delayMs = delayMs;
    s.jitterFactor = jitterFactor(this.options, this.random());
  }

  dueAt(s: Schedule): number {
    const due = s.from + effectiveDelay(this.options, s.delayMs, s.jitterFactor, { focused: this.focused, viewed: this.viewed.has(s.runId), plain: s.plain });
    return Math.max(due, s.notBefore, this.crew(s.crewUrl).notBefore);
  }

  /** Calls `pollNow` for every due run the caps allow, then sets the one timer (which calls `onTimer`). */
  arm(pollNow: (s: Schedule) => void, onTimer: () => void): void {
    const now = this.clock.now();
    const waiting = [...this.schedules.values()]
      .filter((s) => !s.inFlight && !this.crew(s.crewUrl).paused)
      .map((s) => ({ s, due: this.dueAt(s) }))
      .sort((a, b) => a.due - b.due);
    let next = Infinity;
    for (const { s, due } of waiting) {
      if (this.crew(s.crewUrl).inFlight >= this.options.maxConcurrentPerCrew) {
        continue; // Re-armed when one of the crew's requests finishes.
      }
      if (due <= now) {
        pollNow(s);
      } else {
        next = Math.min(next, due);
      }
    }
    if (next !== this.timerDueAt) {
      this.clearTimer();
      if (next !== Infinity) {
        this.timerDueAt = next;
        this.timer = this.clock.setTimeout(() => {
          this.timer = undefined;
          this.timerDueAt = Infinity;
          onTimer();
        }, Math.max(0, next - now));
      }
    }
  }

  clearTimer(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.timerDueAt = Infinity;
  }
}

export { withoutUndefined as stripUndefined } from '../util/objects';
