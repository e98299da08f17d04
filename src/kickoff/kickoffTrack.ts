// Track a Kickoff ID: follow a run started elsewhere. The crew is asked about the id once, at once: an id it
// does not know is said so (and tracked only if the user says so), never shown as a run frozen in "queued".
import * as vscode from 'vscode';
import type { Crew } from '../crews/crewConfig';
import type { RunRecord } from '../runTracking/model';
import type { KickoffServices } from './kickoffServices';
import { isPlausibleKickoffId } from '../api/url';
import { describeError } from '../ui/errorMessages';
import { showWarning } from '../ui/notify';
import { inertLine } from '../util/inertText';
import { errorText } from '../util/errorText';

export async function trackKickoffId(services: KickoffServices, crew: Crew): Promise<RunRecord | undefined> {
  const typed = await vscode.window.showInputBox({
    title: inertLine(vscode.l10n.t('Track a Kickoff ID on {0}', crew.name)),
    prompt: vscode.l10n.t('The kickoff ID of a run started elsewhere (the crew\'s dashboard, an API call).'),
    placeHolder: 'e.g. 6f140412-8094-43fc-a6f0-70e65f912172',
    ignoreFocusOut: true,
    validateInput: (value) => {
      const text = value.trim();
      if (!text) {
        return vscode.l10n.t('Paste a kickoff ID.');
      }
      if (!isPlausibleKickoffId(text)) {
        return vscode.l10n.t('A kickoff ID has only letters, digits and dashes.');
      }
      return services.runs.findByKickoffId(text) ? vscode.l10n.t('That run is already in the list.') : undefined;
    },
  });
  const id = typed?.trim();
  if (!id) {
    return undefined;
  }
  const doubt = await checkKickoffId(services, crew, id);
  if (doubt !== undefined) {
    const track = vscode.l10n.t('Track Anyway');
    const answer = await showWarning(doubt, { modal: true, detail: vscode.l10n.t('A run started a moment ago may not be known yet; a tracked run the crew never knows stops being watched after a while.') }, track);
    if (answer !== track) {
      return undefined;
    }
  }
  const run = await services.runs.add({ crewUrl: crew.url, crewName: crew.name, kickoffId: id, inputs: {} });
  services.log.info(`[${crew.name}] Tracking kickoff id ${run.kickoffId}${doubt === undefined ? '' : ' (not known to the crew when checked)'}.`);
  services.poller.watch(run.id);
  return run;
}

/** GET /status once: undefined when the crew knows the id, else the question to ask. */
async function checkKickoffId(services: KickoffServices, crew: Crew, id: string): Promise<string | undefined> {
  try {
    const snapshot = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: inertLine(vscode.l10n.t('Asking {0} about kickoff id {1}…', crew.name, id)), cancellable: true },
      (_progress, cancellation) => {
        const abort = new AbortController();
        cancellation.onCancellationRequested(() => abort.abort());
        return services.client.getStatus(crew.url, id, abort.signal);
      },
    );
    return snapshot.state === 'notFound' ? vscode.l10n.t('{0} does not know this kickoff id (yet). Track it anyway?', crew.name) : undefined;
  } catch (error) {
    services.log.warn(`[${crew.name}] Checking kickoff id ${id} failed: ${errorText(error)}`);
    return vscode.l10n.t('{0} Crew Runs could not check the kickoff id. Track it anyway?', describeError(error, crew.name));
  }
}
