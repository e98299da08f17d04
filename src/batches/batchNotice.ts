// The one notice of a batch: when its last row has ended, how the rows went (its rows' runs notify
// nothing themselves, so a batch of a hundred rows is one notice, not two hundred).
import * as vscode from 'vscode';
import { type Batch, batchProgress } from './core/model';
import { showInfo, showWarning } from '../ui/notify';
import { oneLine } from '../util/inertText';

/** "rows.csv on Research Crew": the tree's "Crew: rows.csv" would put a second colon in a notice that has one. */
function batchName(batch: Batch): { source: string; crew: string } {
  return { source: oneLine(batch.source, 60), crew: oneLine(batch.crewName, 60) };
}

export function announceBatchEnd(batch: Batch): void {
  const p = batchProgress(batch);
  const succeeded = batch.rows.filter((r) => r.status === 'sent' && r.result?.state === 'succeeded').length;
  const troubled = p.failed + p.unknown > 0;
  const level = vscode.workspace.getConfiguration('crewRuns').get<string>('notifications', 'all');
  if (level === 'off' || (level === 'failuresAndFeedback' && !troubled)) {
    return;
  }
  const counts = [
    vscode.l10n.t('{0} succeeded', succeeded),
    p.failed ? vscode.l10n.t('{0} failed', p.failed) : '',
    p.unknown ? vscode.l10n.t('{0} unknown', p.unknown) : '',
    p.cancelled ? vscode.l10n.t('{0} cancelled', p.cancelled) : '',
  ].filter(Boolean);
  const { source, crew } = batchName(batch);
  const message = vscode.l10n.t('Batch {0} on {1} ended: {2}.', source, crew, counts.join(', '));
  const open = vscode.l10n.t('Open Results');
  void (troubled ? showWarning(message, open) : showInfo(message, open)).then((choice) => {
    if (choice === open) {
      void vscode.commands.executeCommand('crewRuns.openBatchResults', { batchId: batch.id });
    }
  });
}

/** Sending stopped with rows queued: why (the crew's problem, in plain words) and a way on. */
export function announceBatchPaused(batch: Batch, reason: string, resume: () => Promise<void>): void {
  const queued = batchProgress(batch).queued;
  const again = vscode.l10n.t('Resume');
  const open = vscode.l10n.t('Open Results');
  const { source, crew } = batchName(batch);
  const message =
    queued === 1
      ? vscode.l10n.t('Batch {0} on {1} paused: {2} Its queued row was not sent; Resume sends it.', source, crew, reason)
      : vscode.l10n.t('Batch {0} on {1} paused: {2} Its {3} queued rows were not sent; Resume sends them.', source, crew, reason, queued);
  void showWarning(message, again, open).then((choice) => {
    if (choice === again) {
      void resume();
    } else if (choice === open) {
      void vscode.commands.executeCommand('crewRuns.openBatchResults', { batchId: batch.id });
    }
  });
}
