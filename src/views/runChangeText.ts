// The log's words for a run's change events (runs/changes.ts). Pure, with the translator injected
// (vscode.l10n.t in the extension), so the wording is unit-tested in plain Node.

import type { RunChange } from '../runs/changes';

export type Translate = (message: string, ...args: (string | number)[]) => string;

/** One log line; `error`: worth the error level (the run's own error text). */
export interface ChangeLine {
  text: string;
  error: boolean;
}

function stateText(change: Extract<RunChange, { kind: 'state' }>, t: Translate): string {
  switch (change.state) {
    case 'queued':
      return t('Run is queued');
    case 'running':
      return t('Run is running');
    case 'awaitingFeedback':
      return change.feedbackTask === undefined ? t('Run is waiting for human feedback') : t('Run is waiting for human feedback on {0}', change.feedbackTask);
    case 'succeeded':
      return t('Run succeeded');
    case 'failed':
      return t('Run failed');
    case 'cancelled':
      return t('Run was cancelled');
    case 'notFound':
      // A bare HTTP 404 for a run seen before carries the store's account of it (the server forgot the run).
      return change.message ?? t('Service does not know this run (it may still be starting, paused for review, or expired)');
    case 'unknown':
      return change.rawState === undefined
        ? t('Service sent a status without a state; still watching')
        : t('Service reported an unfamiliar state "{0}"; still watching', change.rawState);
  }
}

function progressText(change: Extract<RunChange, { kind: 'progress' }>, t: Translate): string {
  if (change.total !== null) {
    return change.unit === 'step' ? t('Progress: {0} of {1} steps', change.completed, change.total) : t('Progress: {0} of {1} tasks', change.completed, change.total);
  }
  return change.unit === 'step' ? t('Progress: step {0}', change.completed) : t('Progress: {0} tasks done', change.completed);
}

export function changeLine(change: RunChange, t: Translate): ChangeLine {
  const line = (text: string): ChangeLine => ({ text, error: false });
  switch (change.kind) {
    case 'taskFinished':
      if (change.agent === undefined) {
        return line(change.retried ? t('Task {0} has a new output', change.task) : t('Task {0} finished', change.task));
      }
      return line(change.retried ? t('Task {0} has a new output ({1})', change.task, change.agent) : t('Task {0} finished ({1})', change.task, change.agent));
    case 'moreTasksFinished':
      return line(t('{0} more tasks finished', change.count));
    case 'tasksCapped':
      return line(t('The crew listed {0} tasks; only the first {1} are kept.', change.listed, change.kept));
    case 'progress':
      return line(progressText(change, t));
    case 'state':
      return line(stateText(change, t));
    case 'working':
      return line(change.agent === undefined ? t('Working on {0}', change.task) : t('Working on {0} ({1})', change.task, change.agent));
    case 'error':
      return { text: change.text, error: true };
  }
}
