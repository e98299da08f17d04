import * as vscode from 'vscode';
import type { Crew } from '../crews/crewConfig';
import type { KickoffServices } from './kickoffServices';
import { showWarning } from '../ui/notify';
import { sentenceCase } from '../util/sentenceCase';

/**
 * Before a kickoff of a crew imported from the platform whose deployment is known not to be online (deploying,
 * failed): says so, and goes on only when the user chooses to. Other crews (and unknown states) go straight on.
 */
export async function deploymentAllowsKickoff(services: KickoffServices, crew: Crew): Promise<boolean> {
  const platform = services.platform as KickoffServices['platform'] | undefined;
  const deployment = platform?.imported.get(crew.url) ? platform.health.get(crew.url) : undefined;
  if (!deployment || (deployment.state !== 'deploying' && deployment.state !== 'failed')) {
    return true;
  }
  const anyway = vscode.l10n.t('Kick Off Anyway');
  const logs = vscode.l10n.t('Show Deployment Logs');
  const said = deployment.words ? sentenceCase(deployment.words) : deployment.state === 'failed' ? vscode.l10n.t('deploy failed') : vscode.l10n.t('deploying');
  const choice = await showWarning(
    vscode.l10n.t('{0} is not online: its deployment says "{1}".', crew.name, said),
    { modal: true, detail: vscode.l10n.t('A kickoff now will likely fail or reach the old version.') },
    anyway,
    logs,
  );
  if (choice === logs) {
    await vscode.commands.executeCommand('crewRuns.platform.showLogs', { crew });
  }
  return choice === anyway;
}
