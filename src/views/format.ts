import * as vscode from 'vscode';
import type { RunState } from '../api/types';

export function stateLabel(state: RunState): string {
  switch (state) {
    case 'queued':
      return vscode.l10n.t('queued');
    case 'running':
      return vscode.l10n.t('running');
    case 'awaitingFeedback':
      return vscode.l10n.t('needs feedback');
    case 'succeeded':
      return vscode.l10n.t('succeeded');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'cancelled':
      return vscode.l10n.t('cancelled');
    case 'notFound':
      return vscode.l10n.t('not found');
    case 'unknown':
      return vscode.l10n.t('running (unrecognised state)');
  }
}

export { formatDuration as formatElapsed } from '../util/duration';

// One formatter for all runs (toLocaleDateString builds one per call, which a long history feels),
// built on first use: creating it costs ~10 ms, too much for activation.
let dateFormat: Intl.DateTimeFormat | undefined;

/** `just now`, `5 min ago`, `3 h ago`, or a date. */
export function formatRelative(at: number, now = Date.now()): string {
  const minutes = Math.floor((now - at) / 60_000);
  if (minutes < 1) {
    return vscode.l10n.t('just now');
  }
  if (minutes < 60) {
    return vscode.l10n.t('{0} min ago', minutes);
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    return vscode.l10n.t('{0} h ago', hours);
  }
  dateFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
  return dateFormat.format(at);
}
