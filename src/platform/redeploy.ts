// Redeploy: confirmed (it rebuilds a live service), then followed with progress until the platform says online
// or failed; the logs are one click away. A URL or token in the reply that differs from the crew's updates it.
import * as vscode from 'vscode';
import type { Crew } from '../crews/crewConfig';
import type { Services } from '../services';
import { errorText } from '../util/errorText';
import { inertLine } from '../util/inertText';
import { showWarning } from '../ui/notify';
import type { PlatformSignIn } from './account';
import { addCrewDirectly } from '../crews/crewCommands';
import type { DeploymentLogDocuments } from './deploymentLogs';
import type { ImportedCrew } from './importedCrews';
import type { DeploymentState } from './parse';
import { describePlatformError } from './platformSession';

export async function redeploy(services: Services, logs: DeploymentLogDocuments, crew: Crew, imported: ImportedCrew, signIn: PlatformSignIn): Promise<DeploymentState | undefined> {
  const confirm = vscode.l10n.t('Redeploy');
  const answer = await showWarning(
    vscode.l10n.t('Redeploy {0}?', crew.name),
    { modal: true, detail: vscode.l10n.t('The platform rebuilds and restarts the live service at {0}; runs going on it may be cut off.', crew.url) },
    confirm,
  );
  if (answer !== confirm) {
    return undefined;
  }
  const { platform } = services;
  let reply;
  try {
    reply = await platform.client.redeploy(signIn, imported.uuid);
  } catch (error) {
    await describePlatformError(error, vscode.l10n.t('Could not redeploy {0}', crew.name));
    return undefined;
  }
  services.log.info(`Redeploy of ${crew.name} (${imported.uuid}) requested: ${reply.status ?? 'no status in the reply'}.`);
  let current = crew;
  try {
    current = await applyReply(services, crew, imported, reply.publicUrl, reply.token);
  } catch (error) {
    services.log.warn(`The redeploy's new URL or token for ${crew.name} could not be saved: ${errorText(error)}`);
  }
  platform.health.set(current.url, { state: 'deploying', words: reply.status ?? vscode.l10n.t('redeploy requested') });
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Redeploying {0}', inertLine(current.name)), cancellable: true },
    (progress, cancellation) =>
      platform.health.followRedeploy(signIn, { uuid: imported.uuid, name: current.name, crewUrl: current.url }, cancellation, (words) => {
        progress.report({ message: words && inertLine(words) });
        logs.refresh(current.url);
      }),
  );
}

/** The crew as it is after the reply: the same one, or (a new public URL) a crew at the new URL in its place. */
async function applyReply(services: Services, crew: Crew, imported: ImportedCrew, publicUrl: string | undefined, token: string | undefined): Promise<Crew> {
  if (publicUrl && publicUrl !== crew.url) {
    const newToken = token ?? (await services.tokens.get(crew.url));
    if (!newToken) {
      return crew;
    }
    const moved = await addCrewDirectly(services, { url: publicUrl, name: crew.name, token: newToken, tokenKind: 'organization' });
    if (!moved) {
      return crew;
    }
    await services.platform.imported.set({ ...imported, crewUrl: moved.url });
    if (crew.source === 'user') {
      await services.crews.remove(crew);
    }
    services.log.info(`${crew.name} moved to ${moved.url} with its redeploy.`);
    return moved;
  }
  if (token && token !== (await services.tokens.get(crew.url))) {
    await services.tokens.set(crew.url, token, 'organization');
    services.log.info(`${crew.name}: the redeploy gave a new token; it was saved.`);
  }
  return crew;
}
