// The log's words for a run's change events (runTracking/changes.ts). Pure: @vscode/l10n (configured at activation)
// rather than vscode.l10n, so the wording is unit-tested in plain Node.

import * as l10n from '@vscode/l10n';
import type { RunChange } from '../runTracking/model';

/** One log line; `error`: worth the error level (the run's own error text). */
export interface ChangeLine {
  text: string;
  error: boolean;
}

function stateText(change: Extract<RunChange, { kind: 'state' }>): string {
  switch (change.state) {
    case 'queued':
      return l10n.t('Run is queued');
    case 'running':
      return l10n.t('Run is running');
    case 'awaitingFeedback':
      return change.feedbackTask === undefined ? l10n.t('Run is waiting for human feedback') : l10n.t('Run is waiting for human feedback on {0}', change.feedbackTask);
    case 'succeeded':
      return l10n.t('Run succeeded');
    case 'failed':
      return l10n.t('Run failed');
    case 'cancelled':
      return l10n.t('Run was cancelled');
    case 'notFound':
      // A bare HTTP 404 for a run seen before carries the store's account of it (the server forgot the run).
      return change.message ?? l10n.t('Service does not know this run (it may still be starting, paused for review, or expired)');
    case 'unknown':
      return change.rawState === undefined
        ? l10n.t('Service sent a status without a state; still watching')
        : l10n.t('Service reported an unfamiliar state "{0}"; still watching', change.rawState);
  }
}

function progressText(change: Extract<RunChange, { kind: 'progress' }>): string {
  if (change.total !== null) {
    return change.unit === 'step' ? l10n.t('Progress: {0} of {1} steps', change.completed, change.total) : l10n.t('Progress: {0} of {1} tasks', change.completed, change.total);
  }
  return change.unit === 'step' ? l10n.t('Progress: step {0}', change.completed) : l10n.t('Progress: {0} tasks done', change.completed);
}

export function changeLine(change: RunChange): ChangeLine {
  const line = (text: string): ChangeLine => ({ text, error: false });
  switch (change.kind) {
    case 'taskFinished':
      if (change.agent === undefined) {
        return line(change.retried ? l10n.t('Task {0} has a new output', change.task) : l10n.t('Task {0} finished', change.task));
      }
      return line(change.retried ? l10n.t('Task {0} has a new output ({1})', change.task, change.agent) : l10n.t('Task {0} finished ({1})', change.task, change.agent));
    case 'moreTasksFinished':
      return line(l10n.t('{0} more tasks finished', change.count));
    case 'tasksCapped':
      return line(l10n.t('The crew listed {0} tasks; only the first {1} are kept.', change.listed, change.kept));
    case 'progress':
      return line(progressText(change));
    case 'state':
      return line(stateText(change));
    case 'working':
      return line(change.agent === undefined ? l10n.t('Working on {0}', change.task) : l10n.t('Working on {0} ({1})', change.task, change.agent));
    case 'error':
      return { text: change.text, error: true };
  }
}

/**
 * A poll's log lines. A run that pauses for review names its task once: "waiting for human feedback on X"
 * already says it is at X, so a "Working on X" of the same poll is left out.
 */
export function changeLines(changes: readonly RunChange[]): ChangeLine[] {
  const waitingOn = changes.find((c): c is Extract<RunChange, { kind: 'state' }> => c.kind === 'state' && c.state === 'awaitingFeedback')?.feedbackTask;
  return changes.filter((c) => !(c.kind === 'working' && waitingOn !== undefined && c.task === waitingOn)).map(changeLine);
}
