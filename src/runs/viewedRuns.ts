// Which runs the user is looking at: a visible run view, or a run (or one of its tasks) selected in
// the visible Crew Runs view. The poller checks those at the fast pace (RunPoller.setViewed).
import * as vscode from 'vscode';

/** A node of the crews tree (sidebar/crewsTree.ts), as far as this needs it: runs and tasks name their run. */
interface TreeNode {
  readonly type: string;
  readonly runId?: string;
}

export interface ViewedRunSources {
  treeView: vscode.TreeView<TreeNode>;
  panels: { visibleRunIds(): string[]; readonly onDidChangeVisibleRuns: vscode.Event<void> };
}

export interface ViewedRunsSink {
  setViewed(runIds: Iterable<string>): void;
}

/** The runs viewed now. */
export function viewedRunIds(sources: ViewedRunSources): Set<string> {
  const ids = new Set(sources.panels.visibleRunIds());
  if (sources.treeView.visible) {
    for (const node of sources.treeView.selection) {
      if ((node.type === 'run' || node.type === 'task') && node.runId !== undefined) {
        ids.add(node.runId);
      }
    }
  }
  return ids;
}

/** Keeps the poller told which runs are viewed. */
export function followViewedRuns(sources: ViewedRunSources, sink: ViewedRunsSink): vscode.Disposable {
  const update = () => sink.setViewed(viewedRunIds(sources));
  update();
  return vscode.Disposable.from(
    sources.treeView.onDidChangeSelection(update),
    sources.treeView.onDidChangeVisibility(update),
    sources.panels.onDidChangeVisibleRuns(update),
  );
}
