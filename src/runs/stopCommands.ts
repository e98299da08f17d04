// Stop Run: POST /stop/{id} after a confirmation; polling then reports the run's end (cancelled).
// A crew without the route is said so once and the action is hidden for it from then on.
import * as vscode from 'vscode';
import { showError, showInfo, showWarning } from '../ui/notify';
import type { StopResult } from '../api/client';
import { isFinished, type RunRecord } from '../runTracking/model';
import type { Services } from '../services';
import { describeError } from '../ui/errorMessages';
import { runFromArgument } from './pickRun';
import { errorText } from '../util/errorText';

/** What a stop came to, for callers (batch cancel, tests). */
export type StopOutcome = StopResult['kind'] | 'declined' | 'failed' | 'noRun';

/** The run in the front run view, if any (the run view's manager): Stop Run from its title bar stops that one. */
export interface FrontRun {
  activeRunId(): string | undefined;
}

export function registerStopCommands(services: Services, panels: FrontRun): vscode.Disposable[] {
  const updateContext = () => {
    const id = panels.activeRunId();
    const run = id === undefined ? undefined : services.runs.get(id);
    void vscode.commands.executeCommand('setContext', 'crewRuns.activeRunCanStop', !!run && canOfferStop(services, run));
  };
  return [
    // Always asked: `{ runId }` only names the run (a command link or another extension must not stop one unseen).
    vscode.commands.registerCommand('crewRuns.stopRun', async (arg?: unknown): Promise<StopOutcome> => {
      const runId = (arg as { runId?: unknown } | undefined)?.runId;
      const fromPanel = runId === undefined ? panels.activeRunId() : undefined;
      const run = await runFromArgument(services, fromPanel !== undefined ? { runId: fromPanel } : arg, vscode.l10n.t('Stop which run?'), (r) => canOfferStop(services, r));
      if (!run) {
        return 'noRun';
      }
      if (!(await confirmStop(run))) {
        return 'declined';
      }
      return stopRun(services, run, { quiet: false });
    }),
    vscode.window.tabGroups.onDidChangeTabs(updateContext),
    services.runs.onDidChange(updateContext),
    services.stops.onDidChange(updateContext),
  ];
}

/** Unfinished, and its crew has not said it cannot stop runs. */
export function canOfferStop(services: Services, run: RunRecord): boolean {
  return !isFinished(run) && services.stops.offersStop(run.crewUrl);
}

async function confirmStop(run: RunRecord): Promise<boolean> {
  const stop = vscode.l10n.t('Stop Run');
  const answer = await showWarning(
    vscode.l10n.t('Stop "{0}" on {1}?', run.label, run.crewName),
    { modal: true, detail: vscode.l10n.t('The crew stops working on it; a stopped run cannot be continued.') },
    stop,
  );
  return answer === stop;
}

/** Stops without asking (the test API only: no command reaches this). */
export async function stopRunWithoutAsking(services: Services, runId: string): Promise<StopOutcome> {
  const run = services.runs.get(runId);
  return run ? stopRun(services, run, { quiet: false }) : 'noRun';
}

/**
 * Sends the stop and says what came of it. `quiet`: only problems are shown (a batch stopping many
 * runs at once says so in one message of its own).
 */
export async function stopRun(services: Services, run: RunRecord, options: { quiet: boolean }): Promise<StopOutcome> {
  let result: StopResult;
  try {
    result = await services.client.stop(run.crewUrl, run.kickoffId);
  } catch (error) {
    services.log.warn(`[${run.crewName}] Stopping ${run.label} failed: ${errorText(error)}`);
    if (!options.quiet) {
      void showError(vscode.l10n.t('Could not stop "{0}". {1}', run.label, describeError(error, run.crewName)));
    }
    return 'failed';
  }
  const said = (message?: string) => (message ? ` ${vscode.l10n.t('The crew said: "{0}"', message)}` : '');
  switch (result.kind) {
    case 'stopped':
      services.log.info(`[${run.crewName}] Asked the crew to stop ${run.label}.`);
      if (!options.quiet) {
        void showInfo(vscode.l10n.t('{0} accepted the stop of "{1}"; it shows as cancelled once the crew reports it.', run.crewName, run.label));
      }
      break;
    case 'alreadyEnded':
      if (!options.quiet) {
        void showInfo(vscode.l10n.t('"{0}" had already ended, so there was nothing to stop.', run.label) + said(result.serverMessage));
      }
      break;
    case 'unknownRun':
      if (!options.quiet) {
        void showWarning(vscode.l10n.t('{0} does not know the run "{1}", so it could not be stopped.', run.crewName, run.label) + said(result.serverMessage));
      }
      break;
    case 'unsupported':
      if (await services.stops.markUnsupported(run.crewUrl)) {
        services.log.info(`[${run.crewName}] The crew has no stop route; Stop Run is hidden for it.`);
        void showInfo(vscode.l10n.t('{0} does not offer stopping runs, so Stop Run is hidden for this crew.', run.crewName));
      }
      return result.kind;
  }
  // The final state comes from the crew: check soon (watching again if the user had stopped watching).
  if (!isFinished(run)) {
    if (run.watching) {
      services.poller.pokeRun(run.id);
    } else {
      await services.poller.resumeWatching(run.id);
    }
  }
  return result.kind;
}
