// The one notice of a batch: when its last row has ended, how the rows went (its rows' runs notify
// nothing themselves, so a batch of a hundred rows is one notice, not two hundred).
import * as vscode from 'vscode';
import { type Batch, batchProgress } from './core/model';
import { batchTitle } from './batchesTree';
import { showInfo, showWarning } from '../ui/notify';

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
  const message = vscode.l10n.t('Batch {0} ended: {1}.', batchTitle(batch), counts.join(', '));
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
  const message = vscode.l10n.t('Batch {0} paused: {1} Its {2} queued rows were not sent; Resume sends them.', batchTitle(batch), reason, queued);
  void showWarning(message, again, open).then((choice) => {
    if (choice === again) {
      void resume();
    } else if (choice === open) {
      void vscode.commands.executeCommand('crewRuns.openBatchResults', { batchId: batch.id });
    }
  });
}
