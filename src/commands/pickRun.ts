import * as vscode from 'vscode';
import type { RunRecord } from '../runs/model';
import type { Services } from '../services';
import { stateLabel } from '../views/format';
import { showInfo } from '../views/notify';
import { inertLine } from '../util/inertText';

/** The run a command acts on: `{ runId }` (tree node, webview, other commands), or a quick pick. */
export async function runFromArgument(
  services: Services,
  arg: unknown,
  placeholder: string,
  filter: (run: RunRecord) => boolean = () => true,
): Promise<RunRecord | undefined> {
  const runId = (arg as { runId?: unknown } | undefined)?.runId;
  if (typeof runId === 'string') {
    return services.runs.get(runId);
  }
  const runs = services.runs.list().filter(filter);
  if (runs.length === 0) {
    void showInfo(vscode.l10n.t('No runs to choose from.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    runs.map((run) => ({
      label: inertLine(run.label),
      description: `${inertLine(run.crewName)} · ${run.needsFeedback ? vscode.l10n.t('needs feedback') : stateLabel(run.state)}`,
      detail: new Date(run.startedAt).toLocaleString(),
      run,
    })),
    { placeHolder: placeholder, matchOnDescription: true },
  );
  return picked?.run;
}
