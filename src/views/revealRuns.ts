// Takes the user to a run in the crews tree: a run this window kicks off (or starts tracking) is
// revealed and selected, its crew expanded; and `crewRuns.revealRun` (the status bar's click) does
// the same for any run, with the focus.
import * as vscode from 'vscode';
import type { RunRecord } from '../runs/model';
import type { CrewsTreeNode, CrewsTreeProvider } from './crewsTree';

export const REVEAL_RUN_COMMAND = 'crewRuns.revealRun';

export class RunRevealer implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly tree: CrewsTreeProvider,
    private readonly view: vscode.TreeView<CrewsTreeNode>,
    runs: { onDidAdd(listener: (run: RunRecord) => unknown): { dispose(): void } },
    /** True while a batch sends its rows: they come through the same kickoff, and must not pull the selection along. */
    private readonly batchSending: () => boolean,
  ) {
    this.disposables = [
      runs.onDidAdd((run) => {
        if (!this.batchSending()) {
          void this.reveal(run.id, false);
        }
      }),
      vscode.commands.registerCommand(REVEAL_RUN_COMMAND, (arg?: { runId?: unknown }) => (typeof arg?.runId === 'string' ? this.reveal(arg.runId, true) : undefined)),
    ];
  }

  /** Selects the run (expanding its crew); `focus` moves the keyboard there too. */
  async reveal(runId: string, focus: boolean): Promise<void> {
    try {
      await this.view.reveal(this.tree.runNode(runId), { select: true, focus, expand: false });
    } catch {
      // The run went away meanwhile (removed, or another window dropped it): nothing to show.
    }
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
