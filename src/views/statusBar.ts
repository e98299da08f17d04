import * as vscode from 'vscode';
import { isFinished } from '../runs/model';
import type { RunStore } from '../runs/runStore';

/** `$(sync~spin) 2 running  $(bell) 1 needs feedback`, hidden when nothing is going on. */
export class RunsStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('crewRuns.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly runs: RunStore,
    /** Batches still sending or running (counted on their own). */
    private readonly batches?: { activeCount(): number; onDidChange(listener: () => unknown): vscode.Disposable },
  ) {
    this.item.name = vscode.l10n.t('Crew Runs');
    this.item.command = 'crewRuns.crews.focus';
    this.subscription = vscode.Disposable.from(runs.onDidChange(() => this.update()), ...(batches ? [batches.onDidChange(() => this.update())] : []));
    this.update();
  }

  /** Counts shown right now (for tests). */
  counts(): { running: number; needsFeedback: number; batches: number } {
    let running = 0;
    let needsFeedback = 0;
    for (const run of this.runs.list()) {
      if (run.needsFeedback && !isFinished(run)) {
        needsFeedback++;
      } else if (run.watching && !isFinished(run)) {
        running++;
      }
    }
    return { running, needsFeedback, batches: this.batches?.activeCount() ?? 0 };
  }

  get text(): string | undefined {
    return this.item.text || undefined;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }

  private update(): void {
    const { running, needsFeedback, batches } = this.counts();
    if (running === 0 && needsFeedback === 0 && batches === 0) {
      this.item.text = '';
      this.item.hide();
      return;
    }
    const parts: string[] = [];
    if (running > 0) {
      parts.push(`$(sync~spin) ${vscode.l10n.t('{0} running', running)}`);
    }
    if (batches > 0) {
      parts.push(`$(list-flat) ${batches === 1 ? vscode.l10n.t('1 batch') : vscode.l10n.t('{0} batches', batches)}`);
    }
    if (needsFeedback > 0) {
      parts.push(`$(bell) ${vscode.l10n.t('{0} needs feedback', needsFeedback)}`);
    }
    this.item.text = parts.join('  ');
    this.item.tooltip = vscode.l10n.t('Crew Runs: show the runs');
    this.item.backgroundColor = needsFeedback > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }
}
