// The interval policy of the poller, as pure arithmetic: how the wait grows while nothing changes,
// its caps (a run someone is looking at has a lower one), jitter, the unfocused factor, and the
// backoff after failures. pollTimes.ts keeps the due times and the timer; poller.ts what a poll does.

import type { RunState } from '../api/types';
import type { RunChange } from './model';

export interface Pace {
  /** Interval after a poll that saw a meaningful change, and through the fast phase. */
  fastIntervalMs: number;
  backoffFactor: number;
  maxIntervalMs: number;
  /** The cap while the run is viewed (its view visible, or its tree item selected in a visible view). */
  viewedMaxIntervalMs: number;
  /** ±fraction applied to every delay. */
  jitter: number;
  /** Delays are multiplied by this while the window is not focused (a viewed run excepted). */
  unfocusedFactor: number;
  /** Consecutive failed checks after which polling drops to the slow interval. */
  failuresBeforeSlow: number;
}

/** The longest wait between two successful checks. */
export function capOf(pace: Pace, viewed: boolean): number {
  return viewed ? Math.min(pace.viewedMaxIntervalMs, pace.maxIntervalMs) : pace.maxIntervalMs;
}

/** The next interval while nothing changes: ×factor, up to the cap. */
export function grow(pace: Pace, intervalMs: number, viewed: boolean): number {
  return Math.min(intervalMs * pace.backoffFactor, capOf(pace, viewed));
}

export interface AfterCheck {
  intervalMs: number;
  /** Something meaningful changed (state, progress, output: madeProgress). */
  changed: boolean;
  /** Still within the fast phase after (re)scheduling. */
  fastPhase: boolean;
  awaitingFeedback: boolean;
  viewed: boolean;
}

/**
 * Whether a check's changes count as progress for pacing: state, progress, task outputs, an error. A new
 * current task alone does not: it is text a crew may change on every poll, and would hold the fast pace. Nor
 * does a state the run was already in since it was scheduled (`statesSeen`): a crew flipping RUNNING↔PENDING
 * on every poll would otherwise be polled at the fastest pace for ever.
 */
export function madeProgress(changes: readonly RunChange[], statesSeen: ReadonlySet<RunState> = new Set()): boolean {
  return changes.some((change) => change.kind !== 'working' && !(change.kind === 'state' && statesSeen.has(change.state)));
}

/** The interval after a successful check. */
export function intervalAfterCheck(pace: Pace, c: AfterCheck): number {
  if (c.awaitingFeedback) {
    // Nothing moves until someone answers; checked slowly to notice a resume from elsewhere.
    return capOf(pace, c.viewed);
  }
  if (c.changed || c.fastPhase) {
    return pace.fastIntervalMs;
  }
  return grow(pace, c.intervalMs, c.viewed);
}

/**
 * The interval after a failed check (`failures` in a row, this one included). Not shortened for a
 * viewed run: a failing server is not asked more often because someone is looking.
 */
export function intervalAfterFailure(pace: Pace, intervalMs: number, failures: number): { intervalMs: number; slow: boolean } {
  const slow = failures >= pace.failuresBeforeSlow;
  return { intervalMs: slow ? pace.maxIntervalMs : grow(pace, intervalMs, false), slow };
}

/** A factor in [1 - jitter, 1 + jitter] from `random` in [0, 1). */
export function jitterFactor(pace: Pace, random: number): number {
  return 1 + (random * 2 - 1) * pace.jitter;
}

export interface DelayContext {
  focused: boolean;
  viewed: boolean;
  /** Not stretched while unfocused (asking for a lease). */
  plain?: boolean;
}

/** The wait actually used for a base delay: jittered (never past the cap), stretched while unfocused. */
export function effectiveDelay(pace: Pace, delayMs: number, factor: number, ctx: DelayContext): number {
  const focusFactor = ctx.focused || ctx.plain || ctx.viewed ? 1 : pace.unfocusedFactor;
  // Jitter may shorten a wait at the cap but never stretch it past the cap.
  const jittered = Math.min(delayMs * factor, Math.max(delayMs, capOf(pace, ctx.viewed)));
  return jittered * focusFactor;
}
