// When each run is polled next: a due time per run (interval, jitter, focus, Retry-After), the crews'
// caps, and one timer for the earliest due time. What a poll does is the poller's (poller.ts).

import { CrewApiError } from '../api/errors';
import type { Clock } from '../util/clock';
import type { Event } from '../util/event';
import { errorText } from '../util/errorText';

export interface PollerOptions {
  /** Delay before the first poll of a run (after kickoff, resume, window reload). */
  firstDelayMs?: number;
  /** Interval after a poll that saw a meaningful change. */
  fastIntervalMs?: number;
  /** After a run is (re)scheduled it is polled at the fast interval this long, changed or not: short runs end soon. */
  fastPhaseMs?: number;
  backoffFactor?: number;
  maxIntervalMs?: number;
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
}

export type Timings = Required<Omit<PollerOptions, 'random' | 'tokenChanges'>>;

export const POLLER_DEFAULTS: Timings = {
  // ±20% jitter keeps the fast interval within 1.5 s, so a short run's end is seen within about that.
  firstDelayMs: 1_250,
  fastIntervalMs: 1_250,
  fastPhaseMs: 20_000,
  backoffFactor: 1.5,
  maxIntervalMs: 15_000,
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
    };
    s.crewUrl = crewUrl;
    s.intervalMs = this.options.fastIntervalMs;
    s.fastUntil = this.clock.now() + delayMs + this.options.fastPhaseMs;
    this.setDelay(s, delayMs);
    this.schedules.set(runId, s);
    return s;
  }

  /** A check failed: back off (to the slow interval after several), honour Retry-After. Returns whether slow. */
  failed(s: Schedule, e: CrewApiError | undefined): boolean {
    s.consecutiveFailures++;
    const slow = s.consecutiveFailures >= this.options.failuresBeforeSlow;
    s.intervalMs = slow ? this.options.maxIntervalMs : this.grow(s.intervalMs);
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
    s.jitterFactor = 1 + (this.random() * 2 - 1) * this.options.jitter;
  }

  dueAt(s: Schedule): number {
    const focusFactor = this.focused || s.plain ? 1 : this.options.unfocusedFactor;
    // Jitter may shorten a wait at the cap but never stretch it past the cap.
    const jittered = Math.min(s.delayMs * s.jitterFactor, Math.max(s.delayMs, this.options.maxIntervalMs));
    const due = s.from + jittered * focusFactor;
    return Math.max(due, s.notBefore, this.crew(s.crewUrl).notBefore);
  }

  grow(intervalMs: number): number {
    return Math.min(intervalMs * this.options.backoffFactor, this.options.maxIntervalMs);
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

export function describeError(e: unknown): string {
  if (e instanceof CrewApiError) {
    return e.status ? `${e.kind}, HTTP ${e.status}` : e.kind;
  }
  return errorText(e);
}
