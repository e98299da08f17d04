// The platform's commands (registered with the others, registerCommands.ts): sign in and out,
// switch organization, Import Crews…, Show Deployment Logs, Redeploy, Copy CI Redeploy Step…, Open in Dashboard.
// Redeploy and the CI step are in dist/deployActions.js (esbuild.js), loaded on first use.
import * as vscode from 'vscode';
import { originOf } from '../api/url';
import type { Crew } from '../crews/crewConfig';
import type { ServicesWithPlatform } from './platformServices';
import { errorText } from '../util/errorText';
import { confirmAction, showError, showInfo } from '../ui/notify';
import { addCrewDirectly } from '../crews/crewCommands';
import { pickCrew } from '../crews/pickCrew';
import type * as DeployActions from './deployActions';
import { DeploymentLogDocuments, LOG_SCHEME } from './deploymentLogs';
import { importCrews } from './importCommand';
import type { ImportedCrew } from './importedCrews';
import type * as SignInModule from './signIn';
import { dashboardUrl } from './platformUrl';
import { describePlatformError, signedIn, signInNow } from './platformSession';

export function registerPlatformCommands(services: ServicesWithPlatform): vscode.Disposable[] {
  const { platform } = services;
  const logs = new DeploymentLogDocuments(services);

  /** An imported crew from the argument or a pick among the imported ones. */
  const importedCrew = async (arg: unknown, placeholder: string): Promise<{ crew: Crew; imported: ImportedCrew } | undefined> => {
    const among = services.crews.list().filter((c) => platform.imported.get(c.url));
    if (!among.length) {
      const importNow = vscode.l10n.t('Import Crews…');
      if ((await showInfo(vscode.l10n.t('No crew here was imported from the platform yet.'), importNow)) === importNow) {
        await vscode.commands.executeCommand('crewRuns.platform.importCrews');
      }
      return undefined;
    }
    const crew = await pickCrew(services.crews, arg, placeholder, among);
    const imported = crew && platform.imported.get(crew.url);
    if (crew && !imported) {
      void showInfo(vscode.l10n.t('{0} was added by hand, not imported from the platform.', crew.name));
      return undefined;
    }
    return crew && imported ? { crew, imported } : undefined;
  };

  return [
    logs,
    vscode.workspace.registerTextDocumentContentProvider(LOG_SCHEME, logs),
    vscode.commands.registerCommand('crewRuns.platform.signIn', async () => {
      const signIn = (await signInNow(services)) ? await platform.account.current() : undefined;
      if (signIn) {
        // What a sign-in is for comes next, one click away.
        const importNow = vscode.l10n.t('Import Crews…');
        void showInfo(vscode.l10n.t('Signed in to {0}{1}.', originOf(signIn.baseUrl), signIn.organizationName ? ` (${signIn.organizationName})` : ''), importNow).then(
          (choice) => choice === importNow && vscode.commands.executeCommand('crewRuns.platform.importCrews').then(undefined, (error: unknown) => services.log.error(`Import Crews failed: ${errorText(error)}`)),
        );
      }
      return signIn !== undefined;
    }),
    vscode.commands.registerCommand('crewRuns.platform.signOut', async () => {
      const signIn = await platform.account.current();
      if (!signIn) {
        void showInfo(vscode.l10n.t('You are not signed in to CrewAI.'));
        return;
      }
      const signOut = vscode.l10n.t('Sign Out');
      const where = `${originOf(signIn.baseUrl)}${signIn.organizationName ? ` (${signIn.organizationName})` : ''}`;
      if (!(await confirmAction(vscode.l10n.t('Sign out of CrewAI at {0}?', where), vscode.l10n.t('Your personal access token is deleted from this machine. The crews and their tokens stay.'), signOut))) {
        return;
      }
      try {
        await platform.auth.removeSession();
      } catch (error) {
        void showError(vscode.l10n.t('Could not sign out of CrewAI. {0}', errorText(error)));
        return;
      }
      void showInfo(vscode.l10n.t('Signed out of CrewAI: your personal access token was deleted from this machine. The crews and their tokens stay.'));
    }),
    vscode.commands.registerCommand('crewRuns.platform.switchOrganization', async () => {
      const signIn = await signedIn(services);
      if (!signIn) {
        return undefined;
      }
      let organizations;
      try {
        organizations = await platform.client.organizations({ baseUrl: signIn.baseUrl, token: signIn.token });
      } catch (error) {
        await describePlatformError(error, vscode.l10n.t('Could not list your organizations'));
        return undefined;
      }
      // With one organization listed, the pick still offers typing another id. (The sign-in's bundle, dist/signIn.js.)
      const { chooseOrganization } = require('./signIn') as typeof SignInModule;
      const chosen = await chooseOrganization(organizations, vscode.l10n.t('Switch Organization'), signIn.organizationId, true);
      if (!chosen) {
        return undefined;
      }
      try {
        await platform.account.save({ ...signIn, organizationId: chosen.uuid || undefined, organizationName: chosen.name || undefined });
      } catch (error) {
        void showError(vscode.l10n.t('Could not switch the organization. {0}', errorText(error)));
        return undefined;
      }
      void showInfo(vscode.l10n.t('Crew Runs now works with the organization {0}.', chosen.name || vscode.l10n.t('(default)')));
      return chosen.uuid;
    }),
    vscode.commands.registerCommand('crewRuns.platform.importCrews', () => importCrews(services)),
    vscode.commands.registerCommand('crewRuns.platform.showLogs', async (arg?: unknown) => {
      const target = await importedCrew(arg, vscode.l10n.t('Show the deployment logs of which crew?'));
      if (!target) {
        return undefined;
      }
      const doc = await vscode.workspace.openTextDocument(logs.uriOf(target.crew.url, target.imported.name));
      await vscode.languages.setTextDocumentLanguage(doc, 'log');
      await vscode.window.showTextDocument(doc, { preview: false });
      return doc.uri.toString();
    }),
    vscode.commands.registerCommand('crewRuns.platform.filterLogs', async () => {
      const doc = vscode.window.activeTextEditor?.document;
      if (doc?.uri.scheme !== LOG_SCHEME) {
        void showInfo(vscode.l10n.t('Open a deployment log first (Show Deployment Logs on an imported crew).'));
        return undefined;
      }
      const filter = await vscode.window.showInputBox({
        title: vscode.l10n.t('Filter Deployment Log'),
        prompt: vscode.l10n.t('Show only the lines that contain this text (a level such as ERROR, or any words); empty shows every line.'),
        value: logs.filterOf(doc.uri) ?? '',
      });
      if (filter === undefined) {
        return undefined;
      }
      logs.setFilter(doc.uri, filter.trim());
      return filter.trim();
    }),
    vscode.commands.registerCommand('crewRuns.platform.redeploy', async (arg?: unknown) => {
      const target = await importedCrew(arg, vscode.l10n.t('Redeploy which crew?'));
      const signIn = target && (await signedIn(services));
      if (!target || !signIn) {
        return undefined;
      }
      if (signIn.baseUrl !== target.imported.platformUrl) {
        void showInfo(vscode.l10n.t('{0} was imported from {1}; sign in there to redeploy it.', target.crew.name, target.imported.platformUrl));
        return undefined;
      }
      // A require, as every lazy part: core.js runs from V8's code cache (util/codeCache.ts), where import() has no loader.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { redeployCrew } = require('./deployActions') as typeof DeployActions;
      return redeployCrew({ services, logs, describeError: describePlatformError, addCrewDirectly }, target.crew, target.imported, signIn);
    }),
    vscode.commands.registerCommand('crewRuns.platform.copyCiRedeployStep', async (arg?: unknown) => {
      const target = await importedCrew(arg, vscode.l10n.t('Copy the CI redeploy step of which crew?'));
      if (!target) {
        return undefined;
      }
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { copyCiRedeployStep } = require('./deployActions') as typeof DeployActions;
      return copyCiRedeployStep(services, target.crew, target.imported);
    }),
    vscode.commands.registerCommand('crewRuns.platform.openDashboard', async (arg?: unknown) => {
      const target = await importedCrew(arg, vscode.l10n.t('Open the dashboard page of which crew?'));
      if (target) {
        await vscode.env.openExternal(vscode.Uri.parse(dashboardUrl(target.imported.platformUrl, target.imported.uuid)));
      }
    }),
  ];
}
