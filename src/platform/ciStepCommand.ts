// Copy CI Redeploy Step… (lazy: dist/deployActions.js): for an imported crew, the deployment API's redeploy call
// (ciRedeployStep.ts) as a GitHub Actions step or a curl line, on the clipboard and in an untitled editor, with a
// notice naming the CI secret to create. The numeric deployment id comes from the deployment's status when the user
// is signed in there, else the user types it. Nothing here sends anything, and the user's own token never appears.
import * as vscode from 'vscode';
import type { Crew } from '../crews/crewConfig';
import type { ServicesWithPlatform } from './platformServices';
import { errorText } from '../util/errorText';
import { showInfo } from '../ui/notify';
import { type CiStepFormat, type CiSuiteStep, ciRedeployStep, DEFAULT_CI_SECRET, isDeploymentId } from './ciRedeployStep';
import type { ImportedCrew } from './importedCrews';
import { dashboardUrl, tokenSettingsUrl } from './platformUrl';

/** The deployment's numeric id from its status, when this window is signed in to its platform; else undefined. */
async function knownDeploymentId(services: ServicesWithPlatform, imported: ImportedCrew): Promise<string | undefined> {
  const signIn = await services.platform.account.current();
  if (!signIn || signIn.baseUrl !== imported.platformUrl) {
    return undefined;
  }
  try {
    return (await services.platform.client.status(signIn, imported.uuid)).deploymentId;
  } catch (error) {
    services.log.warn(`The deployment id of ${imported.name} could not be read: ${errorText(error)}`);
    return undefined;
  }
}

async function askDeploymentId(crew: Crew, imported: ImportedCrew): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Deployment id of {0}', crew.name),
    prompt: vscode.l10n.t(
      'The deployment API takes the deployment’s numeric id (such as 103671), not its uuid. The platform did not give it here; find it on the deployment’s page: {0}',
      dashboardUrl(imported.platformUrl, imported.uuid),
    ),
    placeHolder: '103671',
    ignoreFocusOut: true,
    validateInput: (text) => {
      const id = text.trim();
      if (!id || isDeploymentId(id)) {
        return undefined;
      }
      return id === imported.uuid || /^[0-9a-f]{8}-/i.test(id)
        ? vscode.l10n.t('That is the deployment’s uuid; the deployment API takes its numeric id.')
        : vscode.l10n.t('A deployment id is a number (digits only).');
    },
  });
  const id = value?.trim();
  return id && isDeploymentId(id) ? id : undefined;
}

async function pickFormat(): Promise<CiStepFormat | undefined> {
  const items: (vscode.QuickPickItem & { format: CiStepFormat })[] = [
    { label: vscode.l10n.t('GitHub Actions step'), description: 'YAML', detail: vscode.l10n.t('A step for a workflow’s steps: list, with the token from the repository secret {0}.', DEFAULT_CI_SECRET), format: 'githubActions' },
    { label: vscode.l10n.t('curl line'), description: vscode.l10n.t('any CI'), detail: vscode.l10n.t('One shell line, with the token from the environment variable {0}.', DEFAULT_CI_SECRET), format: 'curl' },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Copy CI Redeploy Step'), placeHolder: vscode.l10n.t('Write the redeploy as…') });
  return picked?.format;
}

/**
 * Copy CI Redeploy Step: the text, or undefined when the user gave up. `suite` is the crew's test suite step, run
 * after the redeploy: the suites' feature hands it in (none exists yet, so the command passes none).
 */
export async function copyCiRedeployStep(services: ServicesWithPlatform, crew: Crew, imported: ImportedCrew, suite?: CiSuiteStep): Promise<string | undefined> {
  const deploymentId = (await knownDeploymentId(services, imported)) ?? (await askDeploymentId(crew, imported));
  if (!deploymentId) {
    return undefined;
  }
  const format = await pickFormat();
  if (!format) {
    return undefined;
  }
  let text: string;
  try {
    text = ciRedeployStep({ format, platformUrl: imported.platformUrl, deploymentId, deploymentName: imported.name, suite });
  } catch (error) {
    void showInfo(vscode.l10n.t('Could not write the CI step for {0}: {1}', crew.name, errorText(error)));
    return undefined;
  }
  await vscode.env.clipboard.writeText(text);
  const document = await vscode.workspace.openTextDocument({ language: format === 'githubActions' ? 'yaml' : 'shellscript', content: text });
  await vscode.window.showTextDocument(document, { preview: false });
  const createToken = vscode.l10n.t('Create a Token…');
  const said =
    format === 'githubActions'
      ? vscode.l10n.t(
          'The GitHub Actions step that redeploys {0} (deployment {1}) is on the clipboard and in the editor. Create the repository secret {2} holding a personal access token (pat_…) with the manage_settings permission; never your own token in the file.',
          crew.name,
          deploymentId,
          DEFAULT_CI_SECRET,
        )
      : vscode.l10n.t(
          'The curl line that redeploys {0} (deployment {1}) is on the clipboard and in the editor. Give your CI the secret environment variable {2} holding a personal access token (pat_…) with the manage_settings permission.',
          crew.name,
          deploymentId,
          DEFAULT_CI_SECRET,
        );
  void showInfo(said, createToken).then((choice) => choice === createToken && void vscode.env.openExternal(vscode.Uri.parse(tokenSettingsUrl(imported.platformUrl))));
  return text;
}
