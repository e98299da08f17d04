// What "not found" means for a run that was seen before (see the API notes, "Normalising a status").
// The hosted service answers `200 {state: "NOT FOUND"}` both for an unknown id and for a run paused
// for human review: for a run seen running, that is read as "probably waiting for feedback" and only
// given up after a day. A bare HTTP 404 is another thing: a server (often self-hosted, keeping runs in
// memory) that forgot the run in a restart or an expiry. It is said in the server's words, what was
// seen is kept, and watching stops after the short grace period. Pure.

import * as l10n from '@vscode/l10n';
import type { StatusSnapshot } from '../api/types';
import type { RunRecord } from './model';

/** The message of a run the server forgot, quoting what it said. */
export function forgottenMessage(serverWords: string | undefined): string {
  return serverWords === undefined
    ? l10n.t('The crew no longer knows this run (a restart or an expiry on the server forgets runs). What was seen so far is kept.')
    : l10n.t('The crew no longer knows this run (a restart or an expiry on the server forgets runs). It said: "{0}". What was seen so far is kept.', serverWords);
}

/** Whether this NOT FOUND, for a run seen before, says the server forgot it (not a paused run). */
export function isForgotten(run: Pick<RunRecord, 'seenBySource'>, snapshot: Pick<StatusSnapshot, 'state' | 'httpNotFound'>): boolean {
  return run.seenBySource && snapshot.state === 'notFound' && snapshot.httpNotFound === true;
}

/** The status to record for a run the server forgot: state not found, with what was seen kept. */
export function forgottenRun(run: Pick<RunRecord, 'progress' | 'currentTask'>, snapshot: StatusSnapshot): StatusSnapshot {
  return { ...snapshot, state: 'notFound', message: forgottenMessage(snapshot.message), progress: run.progress, currentTask: run.currentTask };
}

export interface NotFoundLimits {
  /** NOT FOUND right after kickoff is normal this long; a forgotten run is given this long to come back. */
  graceMs: number;
  /** A hosted NOT FOUND for a run seen running (probably paused for review) is given up after this long. */
  expiryMs: number;
}

/** Whether watching a run that is NOT FOUND should stop now ("unknown or expired", never "failed"). */
export function notFoundWatchOver(
  run: Pick<RunRecord, 'seenBySource' | 'notFoundSince' | 'kickoffIdSince'>,
  snapshot: Pick<StatusSnapshot, 'state' | 'httpNotFound'>,
  now: number,
  limits: NotFoundLimits,
): boolean {
  if (!run.seenBySource) {
    return now - run.kickoffIdSince >= limits.graceMs;
  }
  const limit = isForgotten(run, snapshot) ? limits.graceMs : limits.expiryMs;
  return now - (run.notFoundSince ?? now) >= limit;
}
