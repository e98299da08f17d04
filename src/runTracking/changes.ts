// What meaningfully changed in a run between two polls, as structured events: the reporter words them
// (runs/runChangeText.ts), the poller only counts them. Pure.

import type { Progress, RunState, StatusSnapshot, TaskOutput } from '../api/types';
import type { RunChange } from './model';
import { MAX_TASK_OUTPUTS, newTaskChanges } from './taskMerge';

/** States a run goes into at its start: said before what it works on; the others after what finished. */
const BEGINNING: ReadonlySet<RunState> = new Set<RunState>(['queued', 'running']);

/** How many tasks the crew listed (the snapshot keeps at most MAX_TASK_OUTPUTS of them). */
function listedTasks(snapshot: StatusSnapshot): number {
  return snapshot.tasksListed ?? snapshot.tasks.length;
}

function progressChange(progress: Progress | undefined): RunChange | undefined {
  return progress?.completed === undefined ? undefined : { kind: 'progress', unit: progress.unit, completed: progress.completed, total: progress.total ?? null };
}

function stateChange(snapshot: StatusSnapshot): RunChange {
  return {
    kind: 'state',
    state: snapshot.state,
    rawState: snapshot.state === 'unknown' ? snapshot.rawState : undefined,
    feedbackTask: snapshot.state === 'awaitingFeedback' ? snapshot.feedback?.taskName : undefined,
    message: snapshot.state === 'notFound' && snapshot.httpNotFound ? snapshot.message : undefined,
  };
}

/**
 * What meaningfully changed from `previous` to `next`, in the order it happened: a state the run begins
 * in (queued, running), tasks that finished, progress, the task it works on now, a state it ends or pauses
 * in, the error. New task outputs are read from the run's accumulated outputs (`previousTasks` → `nextTasks`),
 * never from the bodies alone: a body listing every task again names none twice. [] when nothing that
 * matters changed (timestamps, messages, steps).
 */
export function describeChanges(
  previous: StatusSnapshot | undefined,
  next: StatusSnapshot,
  previousTasks: readonly TaskOutput[],
  nextTasks: readonly TaskOutput[],
): RunChange[] {
  const changes: RunChange[] = [];
  const stateChanged =
    previous === undefined || previous.state !== next.state || (next.state === 'unknown' && previous.rawState !== next.rawState);
  const state = stateChanged ? stateChange(next) : undefined;
  if (state && BEGINNING.has(next.state)) {
    changes.push(state);
  }
  changes.push(...newTaskChanges(previousTasks, nextTasks));
  if (listedTasks(next) > MAX_TASK_OUTPUTS && (previous === undefined || listedTasks(previous) <= MAX_TASK_OUTPUTS)) {
    changes.push({ kind: 'tasksCapped', listed: listedTasks(next), kept: MAX_TASK_OUTPUTS });
  }
  const progress = progressChange(next.progress);
  if (progress !== undefined && JSON.stringify(progress) !== JSON.stringify(progressChange(previous?.progress))) {
    changes.push(progress);
  }
  if (next.currentTask !== undefined && next.currentTask !== previous?.currentTask) {
    changes.push({ kind: 'working', task: next.currentTask, agent: next.currentAgent });
  }
  if (state && !BEGINNING.has(next.state)) {
    changes.push(state);
  }
  if (next.error !== undefined && next.error !== previous?.error) {
    changes.push({ kind: 'error', text: next.error });
  }
  return changes;
}
