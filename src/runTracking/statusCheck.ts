// One status check of one run, as the poller's timer calls it: ask whether this window may poll
// it, send one GET /status (never retried here: the next check is the retry), fold the answer into
// the store, and set the next due time (pollPace.ts) or back off, pause the crew, or stop watching.

import * as l10n from '@vscode/l10n';
import { isCrewApiError } from '../api/errors';
import type { StatusSnapshot, StatusSource } from '../api/types';
import type { Clock } from '../util/clock';
import type { RunChange } from './model';
import { isActive, type RunRecord } from './model';
import type { Logger } from '../util/logger';
import { isForgotten, notFoundWatchOver } from './notFound';
import { intervalAfterCheck, madeProgress } from './pollPace';
import type { DueTimes, Schedule, Timings } from './pollTimes';
import type { RunStore } from './runStore';
import type { RunNotice } from './transitions';
import { errorText } from '../util/errorText';

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
  /** What to tell the user: said by this window alone, whose write made the change (transitions.ts noticeOf). */
  notice?: RunNotice;
  error?: string;
}

/** What a check needs of the poller. */
export interface CheckHost {
  readonly store: RunStore;
  readonly source: StatusSource;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly ownership: RunOwnership;
  readonly options: Timings;
  readonly times: DueTimes;
  isDisposed(): boolean;
  unschedule(runId: string): void;
  pauseCrew(crewUrl: string, reason: TokenNeed['reason']): Promise<void>;
  firePoll(result: PollResult): void;
}

/** One check of the run `s` schedules; `controller` aborts it (stop watching, dispose). */
export async function checkRun(host: CheckHost, s: Schedule, controller: AbortController): Promise<void> {
  // The stored version, not this window's copy: another window may have stopped or removed it.
  const run = await host.store.refresh(s.runId);
  if (!run || !isActive(run)) {
    host.unschedule(s.runId);
    return;
  }
  const now = host.clock.now();
  if (now - run.watchSince >= host.options.watchDeadlineMs) {
    host.logger.info(l10n.t('Run {0}: watch deadline passed; it may still be running.', run.id));
    host.unschedule(run.id);
    await host.store.setWatching(run.id, false, 'deadline');
    return;
  }
  // A run someone looks at here is polled here too, at the viewed pace, though another window owns it: a
  // status read is harmless, and the write below is compare-and-set, so whichever window stores the
  // change first says it, once.
  if (!(await mayPoll(host, run.id)) && !host.times.isViewed(run.id)) {
    host.times.setDelay(s, host.options.ownershipRecheckMs, { plain: true });
    return;
  }
  if (controller.signal.aborted || host.isDisposed()) {
    return;
  }
  const polled = { kickoffId: run.kickoffId, revision: run.revision };
  const kickoffId = run.kickoffId;
  let snapshot: StatusSnapshot;
  try {
    // The events the run keeps stay on the reader's thread: a poll brings the host only new ones.
    const known = await host.store.knownEvents(run.id).catch(() => undefined);
    snapshot = await host.source.getStatus(run.crewUrl, kickoffId, controller.signal, known);
  } catch (e) {
    if (controller.signal.aborted || host.isDisposed()) {
      return;
    }
    if (isCrewApiError(e) && e.kind === 'notFound') {
      snapshot = { state: 'notFound', tasks: [], raw: e.body ?? null, message: e.serverMessage };
    } else {
      await handleFailure(host, s, run, e, now);
      return;
    }
  }
  if (controller.signal.aborted || host.isDisposed()) {
    return;
  }
  let changes: RunChange[];
  let notice: RunNotice | undefined;
  try {
    // Checked in the run's queue against its latest stored version: feedback, a resume, a stop or a removal meanwhile (any window) make it stale.
    const result = await host.store.applyPolled(run.id, polled, snapshot);
    if (!result.applied) {
      host.times.setDelay(s, host.options.fastIntervalMs);
      return;
    }
    changes = result.changes;
    notice = result.notice;
  } catch (e) {
    await handleFailure(host, s, run, e, now); // Could not save (disk full?): back off like any failed check.
    return;
  }
  const durationMs = host.clock.now() - now;
  host.firePoll({ runId: run.id, ok: true, durationMs, changes, notice });
  s.consecutiveFailures = 0;
  s.notBefore = 0;
  if (run.warning !== undefined) {
    await host.store.setWarning(run.id, undefined);
  }
  if (run.state === 'awaitingFeedback') {
    s.statesSeen.clear(); // Someone answered (anywhere): what the run does next is news, whatever it did before.
  }
  s.statesSeen.add(run.state); // The state before this check: a flip back to it is not news.
  await afterSnapshot(host, s, snapshot, changes);
}

async function mayPoll(host: CheckHost, runId: string): Promise<boolean> {
  try {
    return await host.ownership.canPoll(runId);
  } catch (e) {
    host.logger.warn(l10n.t('Run {0}: cannot tell whether this window owns it ({1}).', runId, String(e)));
    return false;
  }
}

async function afterSnapshot(host: CheckHost, s: Schedule, snapshot: StatusSnapshot, changes: RunChange[]): Promise<void> {
  const run = host.store.get(s.runId);
  if (!run || !isActive(run)) {
    host.unschedule(s.runId);
    return;
  }
  const now = host.clock.now();
  const limits = { graceMs: host.options.notFoundGraceMs, expiryMs: host.options.notFoundExpiryMs };
  if (snapshot.state === 'notFound' && notFoundWatchOver(run, snapshot, now, limits)) {
    host.logger.info(l10n.t('Run {0}: the service does not know kickoff {1}; stopped watching (unknown or expired).', run.id, run.kickoffId));
    host.unschedule(run.id);
    // A forgotten run keeps its message, in the server's words.
    await host.store.markExpired(run.id, isForgotten(run, snapshot) ? run.message : undefined);
    return;
  }
  s.intervalMs = intervalAfterCheck(host.options, {
    intervalMs: s.intervalMs,
    changed: madeProgress(changes, s.statesSeen),
    fastPhase: now < s.fastUntil,
    awaitingFeedback: run.state === 'awaitingFeedback',
    viewed: host.times.isViewed(s.runId),
  });
  s.statesSeen.add(run.state);
  host.times.setDelay(s, s.intervalMs);
}

async function handleFailure(host: CheckHost, s: Schedule, run: RunRecord, e: unknown, startedAt: number): Promise<void> {
  const durationMs = host.clock.now() - startedAt;
  const reason = errorText(e);
  host.firePoll({ runId: run.id, ok: false, durationMs, error: reason });
  if (isCrewApiError(e) && (e.kind === 'unauthorized' || e.kind === 'noToken')) {
    await host.pauseCrew(run.crewUrl, e.kind === 'noToken' ? 'missing' : 'refused');
    return;
  }
  if (!isCrewApiError(e)) {
    host.logger.error(l10n.t('Run {0}: status check failed unexpectedly: {1}', run.id, reason));
  }
  const slow = host.times.failed(s, isCrewApiError(e) ? e : undefined);
  // The client's plain sentence, with the server's own words; the wait is the poller's (Retry-After included).
  const said = reason.replace(/[.\s]+$/, '');
  const nextInS = Math.max(1, Math.round((host.times.dueAt(s) - host.clock.now()) / 1000));
  const warning = slow
    ? l10n.t('{0} status checks in a row failed, the last: {1}. Still trying, next in {2} s.', s.consecutiveFailures, said, nextInS)
    : l10n.t('Last status check failed: {0}. Trying again in {1} s.', said, nextInS);
  host.logger.warn(l10n.t('Run {0}: {1}', run.id, warning));
  await host.store.setWarning(run.id, warning);
}
