// Kick Off's UI around the one kickoff path (startRun): progress, what a failure means for the
// wizard (never retried). Whether a kickoff may go again is the send-once rule's: the wizard's pending run
// holds its mark, and a kickoff that may have started a run is sent again only as a new pending run, after
// the user was told (Kick Off Again).
import * as vscode from 'vscode';
import { classifySendFailure } from '../runTracking/sendOnce';
import { deploymentAllowsKickoff } from './deploymentGate';
import { CrewApiError } from '../api/errors';
import type { InvalidInput } from '../api/invalidInputs';
import type { Crew } from '../crews/crewConfig';
import { isFinished, type RunRecord } from '../runTracking/model';
import type { KickoffServices } from './kickoffServices';
import { describeError } from '../ui/errorMessages';
import { showError, showStatusMessage, showWarning } from '../ui/notify';
import { inertLine } from '../util/inertText';
import { setTokenInteractively } from '../crews/crewCommands';
import { isKickoffNotSent, type KickoffNotSent, newRunId, startRun } from '../runTracking/startRun';
import type { Draft } from './core/inputSteps';
import { trackKickoffId } from './kickoffTrack';
import { errorText } from '../util/errorText';

export type KickoffOutcome =
  | { kind: 'started'; run: RunRecord }
  | { kind: 'missing'; names: string[] }
  /** The crew refused these inputs' values (a type it explained): ask for only those again, with its words. */
  | { kind: 'invalid'; inputs: InvalidInput[] }
  | { kind: 'review' }
  /** `refused`: the crew refused it, nothing started; the wizard keeps what was typed for next time. */
  | { kind: 'stop'; refused?: boolean };

/** The run one wizard kicks off: its local id names the kickoff's send-once mark until the run starts. */
export interface PendingRun {
  id: string;
}

export function pendingRun(): PendingRun {
  return { id: newRunId() };
}

/** POST /kickoff from the wizard: what went wrong decides where the wizard goes next. */
export async function sendFromReview(services: KickoffServices, crew: Crew, inputs: Draft, pending: PendingRun = pendingRun()): Promise<KickoffOutcome> {
  if (!(await deploymentAllowsKickoff(services, crew))) {
    return { kind: 'review' };
  }
  try {
    const run = await kickOffWithProgress(services, crew, inputs, pending.id);
    return { kind: 'started', run };
  } catch (error) {
    if (isKickoffNotSent(error)) {
      return kickOffAgainIfAsked(services, crew, inputs, pending, error);
    }
    services.log.warn(`Kickoff of ${crew.name} failed: ${errorText(error)}`);
    const cancelled = error instanceof Error && error.name === 'AbortError';
    if (!(error instanceof CrewApiError) && !cancelled) {
      void showError(describeError(error, crew.name));
      return { kind: 'review' };
    }
    switch (cancelled ? 'cancelled' : classifySendFailure(error) === 'mayHaveActed' ? 'mayHaveStarted' : (error as CrewApiError).kind) {
      case 'missingInputs':
        void showWarning(describeError(error, crew.name));
        return { kind: 'missing', names: (error as CrewApiError).missingInputs ?? [] };
      case 'badRequest': {
        const invalid = (error as CrewApiError).invalidInputs;
        if (invalid?.length) {
          void showWarning(describeError(error, crew.name));
          return { kind: 'invalid', inputs: invalid };
        }
        const review = vscode.l10n.t('Back to Review');
        const choice = await showError(describeError(error, crew.name), review);
        return choice === review ? { kind: 'review' } : { kind: 'stop', refused: true };
      }
      case 'noToken':
      case 'unauthorized': {
        const setToken = vscode.l10n.t('Set Token…');
        const choice = await showError(describeError(error, crew.name), setToken, vscode.l10n.t('Back to Review'));
        if (choice === setToken) {
          await setTokenInteractively(services, crew);
        }
        return { kind: 'review' };
      }
      case 'cancelled':
      case 'mayHaveStarted': {
        // The request may have reached the crew (a fault, a 5xx, an unreadable reply, or cancelled after it was
        // sent): never retry by ourselves nor offer to, or the run could start twice. The pending run's mark
        // stays uncertain: Kick Off from the review asks first (kickOffAgainIfAsked).
        const track = vscode.l10n.t('Track a Kickoff ID…');
        const review = vscode.l10n.t('Back to Review');
        const lead = cancelled ? vscode.l10n.t('Kickoff of {0} cancelled.', crew.name) : describeError(error, crew.name);
        const choice = await showWarning(
          vscode.l10n.t('{0} The run may or may not have started. If it did, find its kickoff ID in the crew\'s dashboard and track it here; kicking off again could start it twice.', lead),
          { modal: false },
          track,
          review,
        );
        if (choice === track) {
          await trackKickoffId(services, crew);
          return { kind: 'stop' };
        }
        return choice === review ? { kind: 'review' } : { kind: 'stop' };
      }
      default: {
        const review = vscode.l10n.t('Back to Review');
        const choice = await showError(describeError(error, crew.name), review);
        return choice === review ? { kind: 'review' } : { kind: 'stop', refused: true };
      }
    }
  }
}

/**
 * This pending run's kickoff may have started a run (or went, or is on its way): the send-once rule sent nothing.
 * Only the user, told so, starts another: a new pending run, a kickoff of its own.
 */
async function kickOffAgainIfAsked(services: KickoffServices, crew: Crew, inputs: Draft, pending: PendingRun, error: KickoffNotSent): Promise<KickoffOutcome> {
  const { blocked } = error;
  services.log.warn(`Kickoff of ${crew.name} not sent: ${error.message}`);
  if (blocked.kind !== 'uncertain') {
    // Not met in one wizard (its run starts once), but said plainly all the same.
    void showWarning(vscode.l10n.t('This kickoff of {0} is on its way or went already; nothing more was sent.', crew.name));
    return { kind: 'stop' };
  }
  const again = vscode.l10n.t('Kick Off Again');
  const track = vscode.l10n.t('Track a Kickoff ID…');
  const choice = await showWarning(
    vscode.l10n.t('The kickoff of {0} at {1} may have started a run: Crew Runs cannot tell.', crew.name, new Date(blocked.mark.at).toLocaleTimeString()),
    {
      modal: true,
      detail: vscode.l10n.t('Kicking off again could start it twice. If it started, find its kickoff ID in the crew\'s dashboard and track it here. Kick Off Again only if you know it did not.'),
    },
    again,
    track,
  );
  if (choice === again) {
    pending.id = newRunId(); // A send of its own, which the user chose knowing the first may have gone.
    return sendFromReview(services, crew, inputs, pending);
  }
  if (choice === track) {
    await trackKickoffId(services, crew);
    return { kind: 'stop' };
  }
  return { kind: 'review' };
}

/** POST /kickoff under progress through the one kickoff path (startRun), then say it started. */
export async function kickOffWithProgress(services: KickoffServices, crew: Crew, inputs: Draft, runId = newRunId()): Promise<RunRecord> {
  const run = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: inertLine(vscode.l10n.t('Kicking off {0}…', crew.name)), cancellable: true },
    (_progress, cancel) => {
      const abort = new AbortController();
      cancel.onCancellationRequested(() => abort.abort());
      return startRun(services, crew, inputs, abort.signal, { runId });
    },
  );
  if (run.warning) {
    // The service has started it but the run could not be saved: say so, and that it must not be kicked off again.
    const open = vscode.l10n.t('Open Run');
    void showWarning(vscode.l10n.t('Started {0} on {1} (kickoff id {2}), but it is not saved to the run history yet: this window keeps it and saves it with the next change. Do not kick it off again.', run.label, crew.name, run.kickoffId), open).then((choice) => {
      if (choice === open) {
        void vscode.commands.executeCommand('crewRuns.openRun', { runId: run.id });
      }
    });
  } else {
    sayStarted(services, run, crew);
  }
  return run;
}

/** How long "Started …" stays in the status bar, at most: the run is selected in the tree meanwhile. */
const STARTED_MESSAGE_MS = 8000;

/**
 * "Started …" passes in the status bar, not as a toast: a toast cannot be taken back, and stayed under the run's
 * own end notice ("… failed") when the run ended quickly. The message goes as soon as the run ends.
 */
function sayStarted(services: KickoffServices, run: RunRecord, crew: Crew): void {
  const message = showStatusMessage(vscode.l10n.t('Started {0} on {1}.', run.label, crew.name), STARTED_MESSAGE_MS);
  const done = () => {
    message.dispose();
    watch.dispose();
    clearTimeout(timer);
  };
  const watch = services.runs.onDidChange(({ runIds }) => {
    const now = runIds.includes(run.id) ? services.runs.get(run.id) : undefined;
    if (runIds.includes(run.id) && (!now || isFinished(now))) {
      done();
    }
  });
  const timer = setTimeout(done, STARTED_MESSAGE_MS);
}
