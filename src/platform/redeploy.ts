// The Redeploy command (lazy: dist/deployActions.js): confirmed (it rebuilds a live service), sent once
// machine-wide (redeploySend.ts), then followed with the phase and the elapsed time until the platform says online
// or failed (redeployFollow.ts). A URL or token in the reply that differs from the crew's updates it.
import * as vscode from 'vscode';
import type { Crew } from '../crews/crewConfig';
import type { addCrewDirectly } from '../crews/crewCommands';
import type { ServicesWithPlatform } from './platformServices';
import { errorText } from '../util/errorText';
import { inertLine } from '../util/inertText';
import { showInfo, showWarning } from '../ui/notify';
import type { PlatformSignIn } from './account';
import type { DeploymentLogDocuments } from './deploymentLogs';
import type { ImportedCrew } from './importedCrews';
import type { DeploymentState } from './parse';
import { type RedeploySend, redeployUnderWay, sendRedeploy } from './redeploySend';

/** What the Redeploy command needs of the main bundle. */
export interface RedeployHost {
  readonly services: ServicesWithPlatform;
  readonly logs: DeploymentLogDocuments;
  describeError(error: unknown, what: string): Promise<void>;
  readonly addCrewDirectly: typeof addCrewDirectly;
}

/** The Redeploy command: says so when one is under way, else asks, sends once and follows with progress. */
export async function redeployCrew(host: RedeployHost, crew: Crew, imported: ImportedCrew, signIn: PlatformSignIn): Promise<DeploymentState | undefined> {
  const { services, logs } = host;
  const { platform } = services;
  const sender = platform.health.sender();
  const going = await redeployUnderWay(sender, signIn, imported.uuid);
  if (going !== undefined) {
    void showInfo(vscode.l10n.t('A redeploy of {0} is already under way ({1}); nothing more was sent.', crew.name, going));
    return undefined;
  }
  const confirm = vscode.l10n.t('Redeploy');
  const answer = await showWarning(
    vscode.l10n.t('Redeploy {0}?', crew.name),
    { modal: true, detail: vscode.l10n.t('The platform rebuilds and restarts the live service at {0}; runs going on it may be cut off.', crew.url) },
    confirm,
  );
  if (answer !== confirm) {
    return undefined;
  }
  let sent: RedeploySend;
  try {
    sent = await sendRedeploy(sender, signIn, { uuid: imported.uuid, name: crew.name, crewUrl: crew.url });
  } catch (error) {
    await host.describeError(error, vscode.l10n.t('Could not redeploy {0}', crew.name));
    return undefined;
  }
  if (sent.kind === 'underWay') {
    void showInfo(vscode.l10n.t('A redeploy of {0} is already under way ({1}); nothing more was sent.', crew.name, sent.words));
    return undefined;
  }
  if (sent.noId) {
    void showInfo(vscode.l10n.t('The platform accepted the redeploy of {0}, but its reply did not say which deployment it started. Crew Runs watches the deployment’s status to see it start.', crew.name));
  }
  let current = crew;
  try {
    current = await applyReply(host, crew, imported, sent.reply.publicUrl, sent.reply.token);
  } catch (error) {
    services.log.warn(`The redeploy's new URL or token for ${crew.name} could not be saved: ${errorText(error)}`);
  }
  platform.health.set(current.url, { state: 'deploying', words: sent.reply.status ?? vscode.l10n.t('redeploy requested') });
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Redeploying {0} (Cancel only stops following)', inertLine(current.name)), cancellable: true },
    (progress, cancellation) =>
      platform.health.followRedeploy(
        signIn,
        { uuid: imported.uuid, name: current.name, crewUrl: current.url },
        {
          before: sent.before,
          sentAt: sent.sentAt,
          release: sent.release,
          cancellation,
          onProgress: (line) => {
            progress.report({ message: inertLine(line) });
            logs.refresh(current.url);
          },
        },
      ),
  );
}

/** The crew as it is after the reply: the same one, or (a new public URL) a crew at the new URL in its place. */
async function applyReply(host: RedeployHost, crew: Crew, imported: ImportedCrew, publicUrl: string | undefined, token: string | undefined): Promise<Crew> {
  const { services } = host;
  if (publicUrl && publicUrl !== crew.url) {
    const newToken = token ?? (await services.tokens.get(crew.url));
    if (!newToken) {
      return crew;
    }
    const moved = await host.addCrewDirectly(services, { url: publicUrl, name: crew.name, token: newToken, tokenKind: 'organization' });
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
