// Import Crews…: the organization's deployments in a multi-select quick pick; each chosen one becomes a normal
// crew (added exactly as Add Crew adds one), its URL from `public_url`, its token from the status reply when the
// installation gives it, otherwise asked for once. All or nothing per crew: a crew is saved only whole.
import * as vscode from 'vscode';
import { originOf, readableName } from '../api/url';
import { checkToken } from '../api/tokenRules';
import type { ServicesWithPlatform } from './platformServices';
import { errorText } from '../util/errorText';
import { inertLine } from '../util/inertText';
import { revealInvisibles } from '../util/invisibleText';
import { sentenceCase } from '../util/sentenceCase';
import { describeTokenProblem } from '../ui/errorMessages';
import { showError, showInfo, showWarning } from '../ui/notify';
import { askText } from '../ui/quickInput';
import type { PlatformSignIn } from './account';
import { addCrewDirectly } from '../crews/crewCommands';
import type { Deployment } from './parse';
import { dashboardUrl } from './platformUrl';
import { describePlatformError, signedIn } from './platformSession';

/** The platform's words on one line as text, every character that draws nothing written out: two deployments never look the same. */
const shown = (text: string) => inertLine(revealInvisibles(text));
/** A deployment's name as its crew is named (as Add Crew suggests one: `idea-flow` → `Idea Flow`). */
const crewName = (d: Deployment) => readableName(d.name) || d.name;
/** The platform's status words, as written but in sentence case ("Crew is online"). */
const statusWords = (status: string) => sentenceCase(status);

/** A crew's token or entry could not be saved (VS Code's secret storage or the settings failed): the import stops. */
class SaveFailed extends Error {
  constructor(readonly cause: unknown) {
    super(errorText(cause));
  }
}

export interface DeploymentItem extends vscode.QuickPickItem {
  deployment: Deployment;
}

export async function importCrews(services: ServicesWithPlatform): Promise<number> {
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
  const isImported = (d: Deployment) => {
    const known = platform.imported.byDeployment(signIn.baseUrl, d.uuid);
    return Boolean((known && services.crews.get(known.crewUrl)) || (d.publicUrl && services.crews.get(d.publicUrl)));
  };
  if (!overCap && deployments.every(isImported)) {
    // Nothing to choose: a picker of rows all marked imported would only ask for an Enter that does nothing.
    void showInfo(
      deployments.length === 1
        ? vscode.l10n.t('The one deployment of {0} is already your crew.', shown(signIn.organizationName ?? originOf(signIn.baseUrl)))
        : vscode.l10n.t('All {0} deployments are already your crews.', deployments.length),
    );
    return 0;
  }
  const chosen = await pickDeployments(signIn, deployments, overCap, isImported);
  if (!chosen?.length) {
    return 0;
  }
  const imported: string[] = [];
  const failed: string[] = [];
  for (const [i, deployment] of chosen.entries()) {
    let result: true | string | undefined;
    try {
      result = await importOne(services, signIn, deployment);
    } catch (error) {
      if (!(error instanceof SaveFailed)) {
        throw error;
      }
      // One error, not one per crew: what failed here (a keyring that refuses, a settings file) fails for the rest too.
      const rest = chosen.length - i - 1;
      services.log.error(`Import Crews stopped at ${deployment.name}: ${errorText(error.cause)}`);
      void showError(
        [
          vscode.l10n.t('Could not save the crew {0} ({1}).', shown(crewName(deployment)), errorText(error.cause)),
          imported.length ? vscode.l10n.t('Imported before it: {0}.', imported.join(', ')) : undefined,
          rest === 1 ? vscode.l10n.t('The deployment after it was not imported.') : rest ? vscode.l10n.t('The {0} deployments after it were not imported.', rest) : undefined,
        ]
          .filter(Boolean)
          .join(' '),
      );
      void platform.health.refresh();
      return imported.length;
    }
    if (result === true) {
      imported.push(shown(crewName(deployment)));
    } else if (result) {
      failed.push(`${shown(crewName(deployment))} (${result})`);
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
      label: shown(crewName(d)),
      description: [already ? vscode.l10n.t('imported') : undefined, d.status ? statusWords(d.status) : vscode.l10n.t('no status')].filter(Boolean).map((s) => shown(s as string)).join(' · '),
      // The URL's path is the platform's words too: a `$(icon)` there would render in the picker.
      detail: d.publicUrl ? shown(d.publicUrl) : vscode.l10n.t('URL from its status'),
      // Every deployment not imported yet is chosen: "import every deployment" is one Enter.
      picked: !already,
      deployment: d,
    };
  });
}

/**
 * The picker's order: the deployments to import (chosen) first, then those already crews, each in the platform's
 * order. Otherwise the few chosen can sit below the fold under rows marked "imported", "1 Selected" naming none in sight.
 */
export function importOrder(items: readonly DeploymentItem[]): DeploymentItem[] {
  return [...items.filter((item) => item.picked), ...items.filter((item) => !item.picked)];
}

async function pickDeployments(signIn: PlatformSignIn, deployments: Deployment[], overCap: number, isImported: (d: Deployment) => boolean): Promise<Deployment[] | undefined> {
  const items = importOrder(deploymentItems(deployments, isImported));
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

/**
 * true when imported; a reason when not; undefined when the user cancelled. Nothing is saved unless all is; a
 * failure to save throws SaveFailed.
 */
async function importOne(services: ServicesWithPlatform, signIn: PlatformSignIn, deployment: Deployment): Promise<true | string | undefined> {
  const { platform } = services;
  let status;
  try {
    status = await platform.client.status(signIn, deployment.uuid);
  } catch (error) {
    return errorText(error);
  }
  const url = status.publicUrl ?? deployment.publicUrl;
  if (!url) {
    // A deployment that failed or is still being built has no URL yet: said in the platform's words.
    const state = status.status ? status.state : deployment.state;
    const words = status.status ?? deployment.status;
    if (words && state === 'failed') {
      return vscode.l10n.t('its deployment failed: {0}', shown(statusWords(words)));
    }
    if (words && state === 'deploying') {
      return vscode.l10n.t('it is still deploying ({0}); import it once it is online', shown(statusWords(words)));
    }
    return vscode.l10n.t('the platform gave no usable https URL for it');
  }
  let token = status.token;
  if (!token && services.crews.get(url)) {
    try {
      token = await services.tokens.get(url); // Already a crew here: its token stays as it is.
    } catch (error) {
      throw new SaveFailed(error);
    }
  }
  if (!token) {
    const answer = await askText({
      title: vscode.l10n.t('Token of {0}', shown(crewName(deployment))),
      password: true,
      quietUntilEdited: true,
      prompt: vscode.l10n.t(
        'The platform does not give the Bearer Token of {0}: paste it from its dashboard page, {1}. It is kept in VS Code\'s secret storage and sent only to {2}.',
        shown(crewName(deployment)),
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
  let crew;
  try {
    crew = existing ?? (await addCrewDirectly(services, { url, name: revealInvisibles(crewName(deployment)), token, tokenKind: 'organization' }));
  } catch (error) {
    throw new SaveFailed(error);
  }
  if (!crew) {
    return vscode.l10n.t('not saved');
  }
  try {
    await platform.imported.set({ crewUrl: crew.url, uuid: deployment.uuid, platformUrl: signIn.baseUrl, name: deployment.name });
  } catch (error) {
    if (!existing) {
      // Its token goes with it: nothing half-imported (a keyring that failed to store may fail to delete: said in the log).
      await services.crews.remove(crew).catch((e: unknown) => services.log.warn(`Could not remove the half-imported crew ${crew.url}: ${errorText(e)}`));
    }
    throw new SaveFailed(error);
  }
  services.log.info(`Imported deployment ${deployment.name} (${deployment.uuid}) as crew ${crew.url}.`);
  return true;
}
