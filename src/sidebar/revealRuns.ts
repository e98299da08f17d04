// Takes the user to a run in the crews tree: a run this window kicks off (or starts tracking) is revealed and
// selected, its crew expanded. Not a batch row or a suite case: they come many at a time, and the user watches them
// where they started them (the batch's results, the Testing view). `crewRuns.revealRun` (the status bar's click)
// does the same for any run, with the focus.
import * as vscode from 'vscode';
import type { RunRecord } from '../runTracking/model';
import type { CrewsTreeNode, CrewsTreeProvider } from './crewsTree';
import { revealPatiently } from './revealPatience';
import { systemClock } from '../util/clock';

export const REVEAL_RUN_COMMAND = 'crewRuns.revealRun';

/** What tests may see of the revealer. */
export interface RevealInspection {
  /** Resolves once no reveal is in progress or queued (a kickoff's selection has been made, or has failed). */
  whenIdle(): Promise<void>;
}

export class RunRevealer implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[];
  private next: { runId: string; focus: boolean } | undefined;
  private revealing: Promise<void> | undefined;

  constructor(
    private readonly tree: CrewsTreeProvider,
    private readonly view: vscode.TreeView<CrewsTreeNode>,
    runs: { onDidAdd(listener: (run: RunRecord) => unknown): { dispose(): void } },
    /** Tests only: given the revealer's inspection once. */
    inspect?: (inspection: RevealInspection) => void,
  ) {
    inspect?.({ whenIdle: async () => void (await this.revealing) });
    this.disposables = [
      runs.onDidAdd((run) => {
        if (!run.batch) {
          void this.reveal(run.id, false);
        }
      }),
      vscode.commands.registerCommand(REVEAL_RUN_COMMAND, (arg?: { runId?: unknown }) => (typeof arg?.runId === 'string' ? this.reveal(arg.runId, true) : undefined)),
    ];
  }

  /**
   * Selects the run (expanding its crew); `focus` moves the keyboard there too. One reveal at a time, the
   * latest wins: kickoffs in quick succession would otherwise race the tree's refreshes (VS Code logs a
   * reveal whose parent it has not fetched yet as an error, and nobody sees the runs in between anyway).
   */
  async reveal(runId: string, focus: boolean): Promise<void> {
    this.next = { runId, focus: focus || (this.next?.focus ?? false) };
    if (this.revealing) {
      return this.revealing;
    }
    this.revealing = (async () => {
      for (let job = this.next; job; job = this.next) {
        this.next = undefined;
        // Tried again each time the view fetches children, unless a newer reveal came.
        const { runId, focus } = job;
        await revealPatiently(() => this.revealOnce(runId, focus), { wanted: () => !this.next && this.tree.hasRun(runId), caughtUp: () => this.nextFetch(), clock: systemClock });
      }
      this.revealing = undefined;
    })();
    return this.revealing;
  }

  /** True once the run is selected; false when VS Code could not reveal it (not in its tree yet, or gone). */
  private async revealOnce(runId: string, focus: boolean): Promise<boolean> {
    try {
      await this.view.reveal(this.tree.runNode(runId), { select: true, focus, expand: false });
    } catch {
      return false;
    }
    return this.view.selection.some((node) => node.type === 'run' && node.runId === runId);
  }

  /** Resolves when the view next fetches children from the tree, or after a second (it may have fetched already). */
  private nextFetch(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        listener.dispose();
        resolve();
      };
      const timer = setTimeout(done, 1000);
      const listener = this.tree.onDidFetchChildren(done);
    });
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
