import * as vscode from 'vscode';
import { isFinished, type RunRecord } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import { markdownLine } from '../util/markdownText';

/** Takes the user to a run in the crews tree; registered by the run revealer (sidebar/revealRuns.ts). */
const REVEAL_RUN_COMMAND = 'crewRuns.revealRun';

/** Runs listed by name in the tooltip, per kind; the rest are counted. */
const TOOLTIP_RUNS = 8;

/**
 * `$(sync~spin) 2 running  $(bell) 1 needs feedback`, hidden when nothing is going on. Its tooltip lists
 * the runs; a click gives feedback to the one run that needs it, or selects the one waiting longest.
 */
/** What tests may read of the status bar (handed to the constructor's `inspect` only). */
export interface StatusBarInspection {
  /** The counts shown right now. */
  counts(): { running: number; needsFeedback: number; batches: number };
  text(): string | undefined;
  tooltip(): string | vscode.MarkdownString | undefined;
  /** What a click does. */
  command(): vscode.Command | undefined;
}

export class RunsStatusBar implements vscode.Disposable {
  /** Made the first time there is something to show: a window with no runs going never pays for it. */
  private item?: vscode.StatusBarItem;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly runs: RunStore,
    /** Batches still sending or running (counted on their own). */
    private readonly batches?: { activeCount(): number; onDidChange(listener: () => unknown): vscode.Disposable },
    /** Tests only: given the status bar's inspection once. */
    inspect?: (inspection: StatusBarInspection) => void,
  ) {
    this.subscription = vscode.Disposable.from(runs.onDidChange(() => this.update()), ...(batches ? [batches.onDidChange(() => this.update())] : []));
    this.update();
    inspect?.({
      counts: () => {
        const { running, needsFeedback } = this.activeRuns();
        return { running: running.length, needsFeedback: needsFeedback.length, batches: this.batches?.activeCount() ?? 0 };
      },
      text: () => this.item?.text || undefined,
      tooltip: () => this.item?.tooltip,
      command: () => (typeof this.item?.command === 'string' ? { command: this.item.command, title: '' } : this.item?.command),
    });
  }

  /** Unfinished runs, oldest first: those waiting for feedback, and those being watched. */
  private activeRuns(): { running: RunRecord[]; needsFeedback: RunRecord[] } {
    const running: RunRecord[] = [];
    const needsFeedback: RunRecord[] = [];
    for (const run of this.runs.list()) {
      if (run.needsFeedback && !isFinished(run)) {
        needsFeedback.push(run);
      } else if (run.watching && !isFinished(run)) {
        running.push(run);
      }
    }
    return { running: running.reverse(), needsFeedback: needsFeedback.reverse() };
  }

  dispose(): void {
    this.subscription.dispose();
    this.item?.dispose();
  }

  private update(): void {
    const { running, needsFeedback } = this.activeRuns();
    const batches = this.batches?.activeCount() ?? 0;
    if (running.length === 0 && needsFeedback.length === 0 && batches === 0) {
      if (this.item) {
        this.item.text = '';
        this.item.hide();
      }
      return;
    }
    if (!this.item) {
      this.item = vscode.window.createStatusBarItem('crewRuns.status', vscode.StatusBarAlignment.Left, 50);
      this.item.name = vscode.l10n.t('Crew Runs');
    }
    const parts: string[] = [];
    if (running.length > 0) {
      parts.push(`$(sync~spin) ${vscode.l10n.t('{0} running', running.length)}`);
    }
    if (batches > 0) {
      parts.push(`$(list-flat) ${batches === 1 ? vscode.l10n.t('1 batch') : vscode.l10n.t('{0} batches', batches)}`);
    }
    if (needsFeedback.length > 0) {
      parts.push(`$(bell) ${vscode.l10n.t('{0} needs feedback', needsFeedback.length)}`);
    }
    this.item.text = parts.join('  ');
    // Set again only when different: a new tooltip closes the one the user may be reading.
    const tip = tooltip(running, needsFeedback, batches);
    if (typeof this.item.tooltip !== 'object' || this.item.tooltip.value !== tip.value) {
      this.item.tooltip = tip;
    }
    const command = clickCommand(running, needsFeedback);
    if (JSON.stringify(this.item.command) !== JSON.stringify(command)) {
      this.item.command = command;
    }
    this.item.backgroundColor = needsFeedback.length > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }
}

/** One run that needs feedback: Give Feedback on it; several: the one waiting longest; else the one running, or the view. */
function clickCommand(running: RunRecord[], needsFeedback: RunRecord[]): vscode.Command {
  if (needsFeedback.length === 1) {
    return { command: 'crewRuns.giveFeedback', title: vscode.l10n.t('Give Feedback'), arguments: [{ runId: needsFeedback[0].id }] };
  }
  const run = needsFeedback[0] ?? (running.length === 1 ? running[0] : undefined);
  return run ? { command: REVEAL_RUN_COMMAND, title: vscode.l10n.t('Show the Run'), arguments: [{ runId: run.id }] } : { command: 'crewRuns.crews.focus', title: vscode.l10n.t('Show the Runs') };
}

function tooltip(running: RunRecord[], needsFeedback: RunRecord[], batches: number): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  const list = (title: string, runs: RunRecord[]) => {
    if (!runs.length) {
      return;
    }
    md.appendMarkdown(`**${markdownLine(title)}**\n\n`);
    for (const run of runs.slice(0, TOOLTIP_RUNS)) {
      md.appendMarkdown(`- ${markdownLine(run.label)} — ${markdownLine(run.crewName)}\n`);
    }
    if (runs.length > TOOLTIP_RUNS) {
      md.appendMarkdown(`- ${markdownLine(vscode.l10n.t('and {0} more', runs.length - TOOLTIP_RUNS))}\n`);
    }
    md.appendMarkdown('\n');
  };
  list(vscode.l10n.t('Needs feedback'), needsFeedback);
  list(vscode.l10n.t('Running'), running);
  if (batches > 0) {
    md.appendMarkdown(`${markdownLine(batches === 1 ? vscode.l10n.t('1 batch sending or running') : vscode.l10n.t('{0} batches sending or running', batches))}\n\n`);
  }
  const hint =
    needsFeedback.length === 1
      ? vscode.l10n.t('Click to give feedback to {0}.', needsFeedback[0].label)
      : needsFeedback.length > 1
        ? vscode.l10n.t('Click to show the run waiting longest.')
        : vscode.l10n.t('Click to show the runs.');
  md.appendMarkdown(`_${markdownLine(hint)}_`);
  return md;
}
