// Import Crews…: the organization's deployments in a multi-select quick pick; each chosen one becomes a normal
// crew (added exactly as Add Crew adds one), its URL from `public_url`, its token from the status reply when the
// installation gives it, otherwise asked for once. All or nothing per crew: a crew is saved only whole.
import * as vscode from 'vscode';
import { originOf } from '../api/url';
import { checkToken } from '../api/tokenRules';
import type { Services } from '../services';
import { errorText } from '../util/errorText';
import { inertLine } from '../util/inertText';
import { revealInvisibles } from '../util/invisibleText';

/** The platform's words on one line as text, every character that draws nothing written out: two deployments never look the same. */
const shown = (text: string) => inertLine(revealInvisibles(text));
import { describeTokenProblem } from '../ui/errorMessages';
import { showError, showInfo, showWarning } from '../ui/notify';
import { askText } from '../ui/quickInput';
import type { PlatformSignIn } from './account';
import { addCrewDirectly } from '../crews/crewCommands';
import type { Deployment } from './parse';
import { dashboardUrl } from './platformUrl';
import { describePlatformError, signedIn } from './platformSession';

export interface DeploymentItem extends vscode.QuickPickItem {
  deployment: Deployment;
}

export async function importCrews(services: Services): Promise<number> {
  const signIn = await signedIn(services);
  if (!signIn) {
    return 0;
  }
  const { platform } = services;
  let deployments: Deployment[];
  let skipped: number;
  let overCap: number;
  try {
    // overCap (parse.ts) is in the reply whatever the client's declared type says.
    const listed: { deployments: Deployment[]; skipped: number; overCap?: number } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Listing the deployments of {0}…', shown(signIn.organizationName ?? originOf(signIn.baseUrl))), cancellable: true },
      (_p, cancellation) => {
        const abort = new AbortController();
        cancellation.onCancellationRequested(() => abort.abort());
        return platform.client.deployments(signIn, abort.signal);
      },
    );
    deployments = listed.deployments;
    skipped = listed.skipped;
    overCap = listed.overCap ?? 0;
  } catch (error) {
    await describePlatformError(error, vscode.l10n.t('Could not list the deployments'));
    return 0;
  }
  if (skipped > overCap) {
    services.log.warn(`The platform listed ${skipped - overCap} deployment entries Crew Runs could not read (no usable id); they were left out.`);
  }
  if (overCap) {
    services.log.warn(`The platform listed ${overCap} more deployments than Crew Runs reads (${deployments.length} read); they were left out.`);
  }
  if (!deployments.length) {
    void showInfo(vscode.l10n.t('{0} has no deployments yet.', signIn.organizationName ?? originOf(signIn.baseUrl)));
    return 0;
  }
  const chosen = await pickDeployments(services, signIn, deployments, overCap);
  if (!chosen?.length) {
    return 0;
  }
  const imported: string[] = [];
  const failed: string[] = [];
  for (const deployment of chosen) {
    const result = await importOne(services, signIn, deployment);
    if (result === true) {
      imported.push(deployment.name);
    } else if (result) {
      failed.push(`${deployment.name} (${result})`);
    }
  }
  void platform.health.refresh();
  if (failed.length) {
    void showWarning(
      chosen.length === 1
        ? vscode.l10n.t('The crew was not imported: {0}', failed.join('; '))
        : vscode.l10n.t('Imported {0} of {1} crews. Not imported: {2}', imported.length, chosen.length, failed.join('; ')),
    );
  } else if (imported.length) {
    void showInfo(imported.length === 1 ? vscode.l10n.t('Imported 1 crew: {0}.', imported[0]) : vscode.l10n.t('Imported {0} crews: {1}.', imported.length, imported.join(', ')));
  }
  return imported.length;
}

/** The quick pick's rows, one per deployment (exported for the platform bench: 500 of them must be quick). */
export function deploymentItems(deployments: readonly Deployment[], isImported: (d: Deployment) => boolean): DeploymentItem[] {
  return deployments.map((d) => {
    const already = isImported(d);
    return {
      label: shown(d.name),
      description: [already ? vscode.l10n.t('imported') : undefined, d.status ?? vscode.l10n.t('no status')].filter(Boolean).map((s) => shown(s as string)).join(' · '),
      // The URL's path is the platform's words too: a `$(icon)` there would render in the picker.
      detail: d.publicUrl ? shown(d.publicUrl) : vscode.l10n.t('URL from its status'),
      // Every deployment not imported yet is chosen: "import every deployment" is one Enter.
      picked: !already,
      deployment: d,
    };
  });
}

async function pickDeployments(services: Services, signIn: PlatformSignIn, deployments: Deployment[], overCap: number): Promise<Deployment[] | undefined> {
  const imported = (d: Deployment) => {
    const known = services.platform.imported.byDeployment(signIn.baseUrl, d.uuid);
    return (known && services.crews.get(known.crewUrl)) || (d.publicUrl && services.crews.get(d.publicUrl));
  };
  const items = deploymentItems(deployments, (d) => Boolean(imported(d)));
  const pick = vscode.window.createQuickPick<DeploymentItem>();
  pick.title = vscode.l10n.t('Import Crews from {0}', shown(signIn.organizationName ?? originOf(signIn.baseUrl)));
  pick.placeholder = overCap
    ? vscode.l10n.t('Choose the deployments to add as crews ({0} listed; the platform has {1} more, past what Crew Runs reads)', deployments.length, overCap)
    : vscode.l10n.t('Choose the deployments to add as crews ({0} listed)', deployments.length);
  pick.canSelectMany = true;
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.items = items;
  pick.selectedItems = items.filter((i) => i.picked);
  try {
    return await new Promise<Deployment[] | undefined>((resolve) => {
      pick.onDidAccept(() => {
        resolve(pick.selectedItems.map((i) => i.deployment));
        pick.hide();
      });
      pick.onDidHide(() => resolve(undefined));
      pick.show();
    });
  } finally {
    pick.dispose();
  }
}

/** true when imported; a reason when not; undefined when the user cancelled. Nothing is saved unless all is. */
async function importOne(services: Services, signIn: PlatformSignIn, deployment: Deployment): Promise<true | string | undefined> {
  const { platform } = services;
  let status;
  try {
    status = await platform.client.status(signIn, deployment.uuid);
  } catch (error) {
    return errorText(error);
  }
  const url = status.publicUrl ?? deployment.publicUrl;
  if (!url) {
    return vscode.l10n.t('the platform gave no usable https URL for it');
  }
  let token = status.token;
  if (!token && services.crews.get(url) && (await services.tokens.has(url))) {
    token = await services.tokens.get(url); // Already a crew here: its token stays as it is.
  }
  if (!token) {
    const answer = await askText({
      title: vscode.l10n.t('Token of {0}', shown(deployment.name)),
      password: true,
      quietUntilEdited: true,
      prompt: vscode.l10n.t(
        'The platform does not give the Bearer Token of {0}: paste it from its dashboard page, {1}. It is kept in VS Code\'s secret storage and sent only to {2}.',
        shown(deployment.name),
        dashboardUrl(signIn.baseUrl, deployment.uuid),
        originOf(url),
      ),
      validate: (value) => describeTokenProblem(checkToken(value)),
    });
    if (answer.kind !== 'value') {
      return undefined;
    }
    const checked = checkToken(answer.value);
    if (!checked.ok) {
      return undefined;
    }
    token = checked.token;
  }
  const existing = services.crews.get(url);
  try {
    const crew = existing ?? (await addCrewDirectly(services, { url, name: revealInvisibles(deployment.name), token, tokenKind: 'organization' }));
    if (!crew) {
      return vscode.l10n.t('not saved');
    }
    try {
      await platform.imported.set({ crewUrl: crew.url, uuid: deployment.uuid, platformUrl: signIn.baseUrl, name: deployment.name });
    } catch (error) {
      if (!existing) {
        await services.crews.remove(crew); // Its token goes with it: nothing half-imported.
      }
      throw error;
    }
    services.log.info(`Imported deployment ${deployment.name} (${deployment.uuid}) as crew ${crew.url}.`);
    return true;
  } catch (error) {
    void showError(vscode.l10n.t('Could not import {0}: {1}', deployment.name, errorText(error)));
    return errorText(error);
  }
}
