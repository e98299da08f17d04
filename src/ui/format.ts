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

/**
 * The state in a word or two, for rows where width is short (the tree): `running?` for a state the
 * extension does not recognise (the tooltip and the run view say it in full).
 */
export function shortStateLabel(state: RunState): string {
  return state === 'unknown' ? vscode.l10n.t('running?') : stateLabel(state);
}

/**
 * Time elapsed to the minute (`<1m`, `4m`, `1h 05m`): a row showing it changes once a minute, not
 * every second, so it is not redrawn under a hovering pointer (which closes its tooltip).
 */
export function formatElapsedCalm(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 1) {
    return vscode.l10n.t('<1m');
  }
  return minutes < 60 ? `${minutes}m` : `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/**
 * `just now`, `5 min ago`, `3 h ago`, `4 d ago`, `2 mo ago`, `1 y ago`: short, and no date formatter
 * (building an Intl formatter costs ~10 ms, felt on the first look at a long history). Full dates are
 * in the tooltips.
 */
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
  const days = Math.floor(hours / 24);
  if (days < 30) {
    return vscode.l10n.t('{0} d ago', days);
  }
  return days < 365 ? vscode.l10n.t('{0} mo ago', Math.floor(days / 30)) : vscode.l10n.t('{0} y ago', Math.floor(days / 365));
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** When formatRelative(at) next reads differently: a row showing it is redrawn then, and not before. */
export function relativeChangesAt(at: number, now = Date.now()): number {
  const age = Math.max(0, now - at);
  const next = (unit: number) => at + (Math.floor(age / unit) + 1) * unit;
  if (age < HOUR) {
    return next(MINUTE);
  }
  if (age < DAY) {
    return next(HOUR);
  }
  if (age < 30 * DAY) {
    return next(DAY);
  }
  return age < 365 * DAY ? Math.min(next(30 * DAY), at + 365 * DAY) : next(365 * DAY);
}

/** When formatElapsedCalm(now - startedAt) next reads differently: at the next whole minute. */
export function elapsedCalmChangesAt(startedAt: number, now = Date.now()): number {
  return startedAt + (Math.floor(Math.max(0, now - startedAt) / MINUTE) + 1) * MINUTE;
}
