// Folding a status into a run: its tasks merged, its state and history moved on, what changed named.
// Pure, like transitions.ts; the store applies it under the run's lock (RunStore.applyPolled).

import * as l10n from '@vscode/l10n';
import { clip } from '../api/normalize';
import type { StatusSnapshot, TaskOutput } from '../api/types';
import { describeChanges } from './changes';
import type { RunChange } from './model';
import { type FeedbackRound, isFinished, type RunDetails, type RunRecord, type StateChange } from './model';
import { forgottenRun, isForgotten } from './notFound';
import { mergeTaskOutputs } from './taskMerge';

/**
 * Timeline entries a run keeps: the first and the newest, the ones between counted in `historyOmitted`. A crew
 * may change its current task on every poll, and the run's file is rewritten on every change: bounded entries
 * (and texts) keep that write the same size however long the run goes.
 */
export const MAX_HISTORY = 100;
const HISTORY_TASK_CHARS = 1024;
const HISTORY_MESSAGE_CHARS = 2048;

/**
 * Folds a status into the run (both are copies the caller owns). Returns what meaningfully changed
 * (runTracking/changes.ts). A NOT FOUND for a run the service has reported before is read as "probably waiting for
 * feedback", unless it is a bare HTTP 404 (the server forgot the run, see notFound.ts); before that (just after kickoff) it changes nothing but starts the NOT FOUND clock.
 */
export function foldSnapshot(record: RunRecord, details: RunDetails, snapshot: StatusSnapshot, now: number): RunChange[] {
  const effective = isAnsweredPause(record, snapshot, details.feedbackRounds.at(-1), now)
    ? { ...snapshot, state: record.state, message: record.message, feedback: undefined }
    : interpret(record, snapshot, now, details.tasks.at(-1), details.lastSnapshot);
  const describeFrom = details.lastSnapshot;
  // A status arrived: a warning about failed checks is over (cleared in this same write).
  record.warning = undefined;
  record.message = effective.message;
  record.progress = effective.progress;
  const taskChanged = effective.currentTask !== undefined && effective.currentTask !== record.currentTask;
  record.currentTask = effective.currentTask;
  if (effective.state !== record.state) {
    addToHistory(details, { state: effective.state, at: now, message: clip(effective.message, HISTORY_MESSAGE_CHARS) });
    record.state = effective.state;
  }
  if (taskChanged && !isFinished(record) && !isRepeat(details.history, record.state, effective.currentTask)) {
    addToHistory(details, { state: record.state, at: now, task: clip(effective.currentTask, HISTORY_TASK_CHARS) }); // The run view's timeline shows task changes too.
  }
  record.needsFeedback = record.state === 'awaitingFeedback';
  record.taskId = effective.feedback?.taskId ?? record.taskId;
  if (isFinished(record)) {
    record.finishedAt ??= now;
    record.watching = false;
    record.stopReason = undefined;
    record.feedbackInferred = undefined;
  }
  const tasksBefore = details.tasks;
  details.tasks = mergeTaskOutputs(details.tasks, snapshot);
  details.finalOutput = snapshot.finalOutput ?? details.finalOutput;
  details.error = snapshot.error ?? details.error;
  // The events themselves go to the run's event file (RunStore.applyPolled); the details keep the log's counts.
  details.lastSnapshot = effective.eventLog ? { ...effective, eventLog: { ...effective.eventLog, events: [] } } : effective;
  const neverSeen = snapshot.state === 'notFound' && !record.seenBySource;
  return neverSeen ? [] : describeChanges(describeFrom, effective, tasksBefore, details.tasks);
}

/** Appends to the timeline, dropping (and counting) the oldest entries after the first beyond MAX_HISTORY. */
function addToHistory(details: RunDetails, entry: StateChange): void {
  details.history.push(entry);
  const over = details.history.length - MAX_HISTORY;
  if (over > 0) {
    details.history.splice(1, over);
    details.historyOmitted = (details.historyOmitted ?? 0) + over;
  }
}

/** Back to the task worked on just before (A → B → A, in the same state): churn, not a step of its own. */
function isRepeat(history: readonly StateChange[], state: StateChange['state'], task: string | undefined): boolean {
  return history.slice(-2).some((entry) => entry.task !== undefined && entry.task === clip(task, HISTORY_TASK_CHARS) && entry.state === state);
}

/** A pause the status still reports this long after feedback for it was taken is that pause, not a new one. */
const ANSWERED_PAUSE_MS = 60_000;

/**
 * The pause the user just answered, still reported by a status that lags behind the resume: the same task,
 * the same output, moments after the round. Read as the run going on, so "waiting" is not announced twice.
 */
function isAnsweredPause(record: RunRecord, snapshot: StatusSnapshot, round: FeedbackRound | undefined, now: number): boolean {
  if (snapshot.state !== 'awaitingFeedback' || record.needsFeedback || !round || now - round.at > ANSWERED_PAUSE_MS) {
    return false;
  }
  const taskId = snapshot.feedback?.taskId;
  const output = snapshot.feedback?.output ?? snapshot.lastTask?.output;
  return (taskId === undefined || taskId === round.taskId) && output !== undefined && output === round.output;
}

/** Works out what a status means for this run; updates the record's NOT FOUND bookkeeping. */
function interpret(record: RunRecord, snapshot: StatusSnapshot, now: number, lastKnownTask?: TaskOutput, last?: StatusSnapshot): StatusSnapshot {
  if (snapshot.state === 'unknown' && record.state !== 'unknown' && record.state !== 'queued') {
    // An unfamiliar body ({}, a gateway's {"message":"busy"}, a state word we do not know) says nothing new:
    // the run keeps its last known state, so a paused run is not "un-paused" and then announced again.
    return { ...snapshot, state: record.state, message: record.message, progress: record.progress, currentTask: record.currentTask, feedback: last?.feedback, lastTask: last?.lastTask };
  }
  if (snapshot.state !== 'notFound') {
    record.seenBySource = true;
    record.notFoundSince = undefined;
    record.feedbackInferred = undefined;
    return snapshot;
  }
  record.notFoundSince ??= now;
  if (!record.seenBySource) {
    // Just after kickoff the service may not list the run yet: keep what we have.
    return { ...snapshot, state: record.state, message: record.message };
  }
  if (isForgotten(record, snapshot)) {
    // A bare HTTP 404: the server forgot the run; nothing says it waits for feedback.
    record.feedbackInferred = undefined;
    return forgottenRun(record, snapshot);
  }
  record.feedbackInferred = true;
  // A NOT FOUND body says nothing about the task: offer the last output seen for review.
  const lastTask = snapshot.lastTask ?? lastKnownTask;
  return {
    ...snapshot,
    state: 'awaitingFeedback',
    message: l10n.t('The service no longer lists this run; it is probably waiting for human feedback.'),
    progress: record.progress,
    currentTask: record.currentTask,
    feedback: snapshot.feedback ?? { taskId: record.taskId, taskName: lastTask?.name, output: lastTask?.output },
  };
}
