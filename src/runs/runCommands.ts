import * as vscode from 'vscode';
import { isFinished, type RunRecord } from '../runTracking/model';
import type { Services } from '../services';
import { runFromArgument } from './pickRun';
import { followContext } from '../ui/contextKey';
import { confirmAction, showStatusMessage } from '../ui/notify';

/** Refresh also forgets which crews chat (flowChat/core/chatSupport.ts), so it is asked again as they are drawn. */
export interface RunCommandServices extends Services {
  readonly chats: { forget(): void };
}

export function registerRunCommands(services: RunCommandServices): vscode.Disposable[] {
  const { runs, poller } = services;
  return [
    // The commands on a run are in the palette once there is a run to act on.
    followContext('crewRuns.hasRuns', () => runs.list().length > 0, (listener) => runs.onDidChange(listener)),
    vscode.commands.registerCommand('crewRuns.stopWatching', async (arg?: unknown) => {
      const run = await runFromArgument(services, arg, vscode.l10n.t('Stop watching which run?'), (r) => !isFinished(r) && r.watching);
      const stop = vscode.l10n.t('Stop Watching');
      if (
        run &&
        (await confirmAction(
          vscode.l10n.t('Stop watching "{0}" on {1}?', run.label, run.crewName),
          vscode.l10n.t('The run goes on at the crew; Crew Runs stops checking it, and says nothing when it ends. Resume Watching picks it up again.'),
          stop,
        ))
      ) {
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
      const going = !isFinished(run) && run.watching;
      const asked = going
        ? vscode.l10n.t('"{0}" on {1} has not finished. Remove it from the history anyway?', run.label, run.crewName)
        : vscode.l10n.t('Remove "{0}" on {1} from the history?', run.label, run.crewName);
      const detail = going
        ? vscode.l10n.t('The run goes on at the crew; Crew Runs stops watching it. Its inputs, output and details are deleted from this machine.')
        : vscode.l10n.t('Its inputs, output and details are deleted from this machine; the run at the crew is not affected.');
      if (!(await confirmAction(asked, detail, vscode.l10n.t('Remove')))) {
        return;
      }
      await removeRun(services, run);
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

/** Takes a run out of the history, watching it no more (after the question; the test API calls it without one). */
export async function removeRun(services: Services, run: RunRecord): Promise<void> {
  if (!isFinished(run) && run.watching) {
    await services.poller.stopWatching(run.id);
  }
  await services.runs.remove(run.id);
}
