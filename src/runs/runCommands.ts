import * as vscode from 'vscode';
import { isFinished } from './core/model';
import type { Services } from '../services';
import { runFromArgument } from './pickRun';
import { showStatusMessage, showWarning } from '../ui/notify';

export function registerRunCommands(services: Services): vscode.Disposable[] {
  const { runs, poller } = services;
  return [
    vscode.commands.registerCommand('crewRuns.stopWatching', async (arg?: unknown) => {
      const run = await runFromArgument(services, arg, vscode.l10n.t('Stop watching which run?'), (r) => !isFinished(r) && r.watching);
      if (run) {
        await poller.stopWatching(run.id);
      }
    }),
    vscode.commands.registerCommand('crewRuns.resumeWatching', async (arg?: unknown) => {
      const run = await runFromArgument(services, arg, vscode.l10n.t('Resume watching which run?'), (r) => !isFinished(r) && !r.watching);
      if (run) {
        await poller.resumeWatching(run.id);
      }
    }),
    vscode.commands.registerCommand('crewRuns.removeRun', async (arg?: unknown) => {
      const run = await runFromArgument(services, arg, vscode.l10n.t('Remove which run from the history?'));
      if (!run) {
        return;
      }
      if (!isFinished(run) && run.watching) {
        const remove = vscode.l10n.t('Remove');
        const answer = await showWarning(
          vscode.l10n.t('{0} has not finished. Remove it from the history anyway?', run.label),
          { modal: true, detail: vscode.l10n.t('The run goes on at the crew; Crew Runs stops watching it.') },
          remove,
        );
        if (answer !== remove) {
          return;
        }
        await poller.stopWatching(run.id);
      }
      await runs.remove(run.id);
    }),
    vscode.commands.registerCommand('crewRuns.copyKickoffId', async (arg?: unknown) => {
      const run = await runFromArgument(services, arg, vscode.l10n.t('Copy the kickoff ID of which run?'));
      if (run) {
        await vscode.env.clipboard.writeText(run.kickoffId);
        showStatusMessage(vscode.l10n.t('Copied kickoff ID {0}', run.kickoffId), 3000);
      }
    }),
    vscode.commands.registerCommand('crewRuns.showLog', () => services.log.show(true)),
    vscode.commands.registerCommand('crewRuns.refresh', () => {
      services.chats.forget(); // Which crews chat is asked again as they are drawn (a redeploy may have changed it).
      return runs.reload();
    }),
  ];
}
