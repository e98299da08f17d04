// What each event does to a run, as pure functions of (record, details, now): no I/O, no clock, no
// queue. The store applies them to the latest stored version of a run under the run's lock.

import * as l10n from '@vscode/l10n';
import { emptyDetails, type FeedbackRound, isDisposable, isFinished, type NewRun, type RunDetails, type RunRecord, runLabel, type StopReason } from './model';


/** A record change, with the details change when the details are involved (details are mutable copies). */
export type RecordChange = (record: RunRecord) => RunRecord;
export type DetailsChange = (details: RunDetails, record: RunRecord) => void;

export function newRun(id: string, run: NewRun, now: number): { record: RunRecord; details: RunDetails } {
  const startedAt = run.startedAt ?? now;
  const record: RunRecord = {
    id,
    revision: 1,
    crewUrl: run.crewUrl,
    crewName: run.crewName,
    kickoffId: run.kickoffId,
    previousKickoffIds: [],
    startedAt,
    updatedAt: now,
    state: 'queued',
    watching: true,
    watchSince: now,
    needsFeedback: false,
    label: runLabel(run.inputs, startedAt),
    kickoffIdSince: now,
    seenBySource: false,
  };
  if (run.batch) {
    record.batch = { source: run.batch.source, row: run.batch.row, awaitingEnd: true, ...(run.batch.suite ? { suite: true } : {}) };
  }
  const details: RunDetails = { ...emptyDetails(), inputs: { ...run.inputs } };
  details.history.push({ state: 'queued', at: now });
  return { record, details };
}

/**
 * The service forgot the run (for too long, or its server is gone): stop watching as "unknown or
 * expired", never as failed, and say why.
 */
export function expire(now: number, message = l10n.t('Unknown or expired: the service no longer knows this run.')): { record: RecordChange; details: DetailsChange } {
  return {
    record: (r) =>
      isFinished(r) ? r : { ...r, state: 'notFound', watching: false, stopReason: 'expired', needsFeedback: false, feedbackInferred: undefined, message },
    details: (d, r) => {
      if (d.history.at(-1)?.state !== r.state) {
        d.history.push({ state: r.state, at: now, message });
      }
    },
  };
}

/** Watching again restarts the watch deadline; a final run is never watched. */
export function watching(watch: boolean, reason: StopReason | undefined, now: number): RecordChange {
  return (r) => {
    if (watch) {
      return isFinished(r) || r.watching ? r : { ...r, watching: true, stopReason: undefined, watchSince: now };
    }
    if (!r.watching && r.stopReason === 'expired') {
      return r; // The service forgot it: a later pause (a refused token) must not hide that.
    }
    return { ...r, watching: false, stopReason: isFinished(r) ? undefined : reason };
  };
}

/** A resume answered with a new kickoff id: the same run goes on under it. */
export function continueAs(newKickoffId: string, now: number): { record: RecordChange; details: DetailsChange } {
  return {
    record: (r) =>
      r.kickoffId === newKickoffId
        ? r
        : {
            ...r,
            kickoffId: newKickoffId,
            previousKickoffIds: [...r.previousKickoffIds, r.kickoffId],
            kickoffIdSince: now,
            seenBySource: false,
            notFoundSince: undefined,
            state: 'queued',
            needsFeedback: false,
            feedbackInferred: undefined,
            finishedAt: undefined,
            watching: true,
            stopReason: undefined,
            watchSince: now,
          },
    details: (d, r) => {
      d.history.push({ state: r.state, at: now, message: l10n.t('Continued as {0}', newKickoffId) });
    },
  };
}

/** Feedback was sent: the run is expected to go on (the next status confirms it). */
export function feedbackSent(round: FeedbackRound, now: number): { record: RecordChange; details: DetailsChange } {
  return {
    record: (r) => ({
      ...r,
      needsFeedback: false,
      feedbackInferred: undefined,
      taskId: round.taskId || r.taskId,
      state: isFinished(r) ? r.state : 'running',
      watching: !isFinished(r),
      stopReason: undefined,
      watchSince: now,
    }),
    details: (d, r) => {
      d.feedbackRounds.push({ ...round });
      d.feedbackDraft = undefined;
      if (d.history.at(-1)?.state !== r.state) {
        d.history.push({ state: r.state, at: round.at, message: round.approve ? l10n.t('Approved') : l10n.t('Sent back with feedback') });
      }
    },
  };
}

/**
 * Feedback the crew took, and `continuedAs` the kickoff id it goes on under (a live resume), as one change of
 * `record` and `details` (mutated copies): no window may see the round under the old id, which the service
 * no longer knows (NOT FOUND after a run was seen reads as a wait). Returns the new record.
 */
export function feedbackAnswered(record: RunRecord, details: RunDetails, round: FeedbackRound, now: number, continuedAs?: string): RunRecord {
  const sent = feedbackSent(round, now);
  let next = sent.record(record);
  sent.details(details, next);
  if (continuedAs !== undefined) {
    const continued = continueAs(continuedAs, now);
    next = continued.record(next);
    continued.details(details, next);
  }
  return next;
}

/** What the user is told of a write: the run ended, or began waiting for feedback. */
export type RunNotice = 'ended' | 'waiting';

/**
 * The notice a write from `before` (the latest stored version) to `after` makes. Decided against the
 * stored version, not a window's memory, so that it is made once: by the window whose write changed
 * the run, never again by a window that takes the run over and polls the same state.
 */
export function noticeOf(before: RunRecord, after: RunRecord): RunNotice | undefined {
  if (isFinished(after) && before.state !== after.state) {
    return 'ended';
  }
  return after.needsFeedback && !before.needsFeedback ? 'waiting' : undefined;
}

/** The runs to drop so that no crew keeps more than `max`: its oldest finished ones, never one still going nor one `kept`. */
export function overCap(runs: RunRecord[], max: number): string[] {
  const byCrew = new Map<string, RunRecord[]>();
  for (const r of runs) {
    const list = byCrew.get(r.crewUrl);
    if (list) {
      list.push(r);
    } else {
      byCrew.set(r.crewUrl, [r]);
    }
  }
  const doomed: string[] = [];
  for (const crewRuns of byCrew.values()) {
    const excess = crewRuns.length - max;
    if (excess > 0) {
      doomed.push(...crewRuns.filter((r) => isDisposable(r) && !r.batch?.awaitingEnd).sort((a, b) => a.startedAt - b.startedAt).slice(0, excess).map((r) => r.id));
    }
  }
  return doomed;
}
