import * as vscode from 'vscode';
import type { RunState, TaskOutput } from '../api/types';
import type { Crew } from '../crews/crewConfig';
import type { CrewHealth, CrewRegistry } from '../crews/crewRegistry';
import { isFinished, type RunRecord } from '../runs/model';
import type { RunStore } from '../runs/runStore';
import { formatElapsed, formatRelative, stateLabel } from './format';
import { inert, inertLine } from '../util/inertText';
import { escapeMarkdown } from '../util/markdownText';

export type CrewsTreeNode = CrewNode | RemovedCrewsNode | RunNode | TaskNode;

/** Runs of crews no longer configured: reachable until removed from the history. */
export interface RemovedCrewsNode {
  readonly type: 'removedCrews';
}

const REMOVED_CREWS: RemovedCrewsNode = { type: 'removedCrews' };

export interface CrewNode {
  readonly type: 'crew';
  readonly crew: Crew;
}

export interface RunNode {
  readonly type: 'run';
  readonly runId: string;
}

export interface TaskNode {
  readonly type: 'task';
  readonly runId: string;
  readonly task: TaskOutput;
  readonly index: number;
  readonly current?: boolean;
}

/** Crews → their runs (newest first) → the tasks seen so far. */
export class CrewsTreeProvider implements vscode.TreeDataProvider<CrewsTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CrewsTreeNode | CrewsTreeNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  // Stable node objects, so a change to one run refreshes only that run's row.
  private readonly runNodes = new Map<string, RunNode>();
  private readonly crewNodes = new Map<string, CrewNode>();
  private readonly disposables: vscode.Disposable[] = [];
  private stopHidden: (crewUrl: string) => boolean = () => false;

  constructor(
    private readonly crews: CrewRegistry,
    private readonly runs: RunStore,
  ) {
    this.disposables.push(
      this.changed,
      crews.onDidChange(() => this.changed.fire(undefined)),
      runs.onDidChange(({ runIds }) => {
        const known = runIds.map((id) => this.runNodes.get(id));
        const added = runIds.some((id, i) => !known[i] && runs.get(id));
        const removed = runIds.some((id, i) => known[i] && !runs.get(id));
        if (added || removed) {
          // A new or dropped run changes its crew's children; crews are few, so refresh them all.
          runIds.filter((id) => !runs.get(id)).forEach((id) => this.runNodes.delete(id));
          this.changed.fire(undefined);
        } else {
          this.changed.fire(known.filter((n): n is RunNode => n !== undefined));
        }
      }),
    );
  }

  /** Runs of crews for which this says true get `noStop` in their contextValue (Stop Run hidden). */
  setStopHidden(hidden: (crewUrl: string) => boolean, onDidChange: (listener: () => unknown) => vscode.Disposable): void {
    this.stopHidden = hidden;
    this.disposables.push(onDidChange(() => this.changed.fire(undefined)));
  }

  getChildren(element?: CrewsTreeNode): CrewsTreeNode[] | Thenable<CrewsTreeNode[]> {
    if (!element) {
      const crews: CrewsTreeNode[] = this.crews.list().map((crew) => this.crewNode(crew));
      return this.orphanRuns().length ? [...crews, REMOVED_CREWS] : crews;
    }
    if (element.type === 'crew') {
      return this.runs.list(element.crew.url).map((run) => this.runNode(run.id));
    }
    if (element.type === 'removedCrews') {
      return this.orphanRuns().map((run) => this.runNode(run.id));
    }
    if (element.type === 'run') {
      return this.taskNodes(element.runId);
    }
    return [];
  }

  getParent(element: CrewsTreeNode): CrewsTreeNode | undefined {
    if (element.type === 'crew' || element.type === 'removedCrews') {
      return undefined;
    }
    if (element.type === 'task') {
      return this.runNode(element.runId);
    }
    const run = this.runs.get(element.runId);
    const crew = run && this.crews.get(run.crewUrl);
    return crew ? this.crewNode(crew) : run ? REMOVED_CREWS : undefined;
  }

  async getTreeItem(element: CrewsTreeNode): Promise<vscode.TreeItem> {
    if (element.type === 'crew') {
      return this.crewItem(element.crew);
    }
    if (element.type === 'removedCrews') {
      const item = new vscode.TreeItem(vscode.l10n.t('Removed crews'), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = 'removedCrews';
      item.description = String(this.orphanRuns().length);
      item.tooltip = vscode.l10n.t('Runs of crews that are no longer configured. Remove them from the history when done.');
      item.iconPath = new vscode.ThemeIcon('archive');
      item.contextValue = 'removedCrews';
      return item;
    }
    if (element.type === 'run') {
      return this.runItem(element.runId);
    }
    return this.taskItem(element);
  }

  async resolveTreeItem(item: vscode.TreeItem, element: CrewsTreeNode): Promise<vscode.TreeItem> {
    if (element.type === 'run') {
      const run = this.runs.get(element.runId);
      if (run) {
        item.tooltip = runTooltip(run, (await this.runs.readDetails(run.id)).inputs ?? {});
      }
    } else if (element.type === 'task') {
      const tooltip = new vscode.MarkdownString();
      tooltip.appendText(inert(element.task.output.slice(0, 1000)));
      item.tooltip = tooltip;
    }
    return item;
  }

  /** The node of a run, for reveal(). */
  runNode(runId: string): RunNode {
    let node = this.runNodes.get(runId);
    if (!node) {
      node = { type: 'run', runId };
      this.runNodes.set(runId, node);
    }
    return node;
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }

  private orphanRuns(): RunRecord[] {
    return this.runs.list().filter((run) => !this.crews.get(run.crewUrl));
  }

  private crewNode(crew: Crew): CrewNode {
    const cached = this.crewNodes.get(crew.url);
    if (cached && cached.crew === crew) {
      return cached;
    }
    const node: CrewNode = { type: 'crew', crew };
    this.crewNodes.set(crew.url, node);
    return node;
  }

  private async crewItem(crew: Crew): Promise<vscode.TreeItem> {
    const hasRuns = this.runs.list(crew.url).length > 0;
    const item = new vscode.TreeItem(inertLine(crew.name), hasRuns ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = `crew:${crew.url}`;
    const hasToken = await this.crews.hasToken(crew.url);
    const health: CrewHealth = hasToken ? this.crews.healthOf(crew.url) : 'noToken';
    const source = crew.source === 'demo' ? vscode.l10n.t('demo') : crew.source === 'workspace' ? vscode.l10n.t('workspace') : undefined;
    item.description = [healthLabel(health), source].filter(Boolean).join(' · ');
    item.iconPath = healthIcon(health, crew);
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${escapeMarkdown(inertLine(crew.name))}**\n\n`);
    tooltip.appendText(inertLine(crew.url));
    tooltip.appendMarkdown(`\n\n${escapeMarkdown(inertLine(healthLabel(health) ?? vscode.l10n.t('not checked yet')))}`);
    item.tooltip = tooltip;
    item.contextValue = ['crew', `source-${crew.source}`, `health-${health}`, hasToken ? 'hasToken' : 'noToken'].join(' ');
    if (!hasRuns) {
      // An idle crew's default action is the most frequent thing a user does with it.
      item.command = { command: 'crewRuns.kickOff', title: vscode.l10n.t('Kick Off Crew…'), arguments: [{ crew }] };
    }
    return item;
  }

  private runItem(runId: string): vscode.TreeItem {
    const run = this.runs.get(runId);
    if (!run) {
      return new vscode.TreeItem(vscode.l10n.t('(removed)'));
    }
    const item = new vscode.TreeItem(inertLine(run.label), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `run:${run.id}`;
    item.description = runDescription(run);
    item.iconPath = runIcon(run);
    const watchingState = isFinished(run) ? 'finished' : run.watching ? 'watching' : 'stopped';
    item.contextValue = ['run', `state-${run.state}`, watchingState, run.needsFeedback ? 'needsFeedback' : '', this.stopHidden(run.crewUrl) ? 'noStop' : '']
      .filter(Boolean)
      .join(' ');
    item.command = { command: 'crewRuns.openRun', title: vscode.l10n.t('Open Run'), arguments: [{ runId: run.id }] };
    return item;
  }

  private async taskNodes(runId: string): Promise<TaskNode[]> {
    const details = await this.runs.readDetails(runId);
    const nodes: TaskNode[] = details.tasks.map((task, index) => ({ type: 'task', runId, task, index }));
    const run = this.runs.get(runId);
    if (run && !isFinished(run) && run.currentTask && !details.tasks.some((t) => t.name === run.currentTask)) {
      nodes.push({ type: 'task', runId, task: { name: run.currentTask, output: '' }, index: nodes.length, current: true });
    }
    return nodes;
  }

  private taskItem(node: TaskNode): vscode.TreeItem {
    const item = new vscode.TreeItem(inertLine(node.task.name), vscode.TreeItemCollapsibleState.None);
    item.id = `task:${node.runId}:${node.index}`;
    item.description = node.current ? vscode.l10n.t('in progress') : node.task.agent === undefined ? undefined : inertLine(node.task.agent);
    item.iconPath = node.current ? new vscode.ThemeIcon('loading~spin') : new vscode.ThemeIcon('check', new vscode.ThemeColor('testing.iconPassed'));
    item.contextValue = node.current ? 'task current' : 'task';
    if (!node.current) {
      item.command = { command: 'crewRuns.openTaskOutput', title: vscode.l10n.t('Open Task Output'), arguments: [{ runId: node.runId, index: node.index }] };
    }
    return item;
  }
}

function healthLabel(health: CrewHealth): string | undefined {
  switch (health) {
    case 'ready':
      return vscode.l10n.t('ready');
    case 'noToken':
      return vscode.l10n.t('token missing');
    case 'tokenRejected':
      return vscode.l10n.t('token rejected');
    case 'unreachable':
      return vscode.l10n.t('unreachable');
    case 'checking':
      return vscode.l10n.t('checking…');
    default:
      return undefined;
  }
}

function healthIcon(health: CrewHealth, crew: Crew): vscode.ThemeIcon {
  switch (health) {
    case 'ready':
      return new vscode.ThemeIcon(crew.source === 'demo' ? 'beaker' : 'server-environment', new vscode.ThemeColor('testing.iconPassed'));
    case 'noToken':
      return new vscode.ThemeIcon('key', new vscode.ThemeColor('list.warningForeground'));
    case 'tokenRejected':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
    case 'unreachable':
      return new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('list.warningForeground'));
    case 'checking':
      return new vscode.ThemeIcon('loading~spin');
    default:
      return new vscode.ThemeIcon(crew.source === 'demo' ? 'beaker' : 'server-environment');
  }
}

export function runIcon(run: RunRecord): vscode.ThemeIcon {
  if (run.needsFeedback) {
    return new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('list.warningForeground'));
  }
  if (!isFinished(run) && !run.watching) {
    return new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('disabledForeground'));
  }
  if (run.warning && !isFinished(run)) {
    return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  }
  return stateIcon(run.state);
}

export function stateIcon(state: RunState): vscode.ThemeIcon {
  switch (state) {
    case 'queued':
      return new vscode.ThemeIcon('clock');
    case 'running':
    case 'unknown':
      return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue'));
    case 'awaitingFeedback':
      return new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('list.warningForeground'));
    case 'succeeded':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case 'cancelled':
      return new vscode.ThemeIcon('circle-slash');
    case 'notFound':
      return new vscode.ThemeIcon('question');
  }
}

function runDescription(run: RunRecord): string {
  const state = run.needsFeedback ? vscode.l10n.t('needs feedback') : stateLabel(run.state);
  if (isFinished(run)) {
    return `${state} · ${formatRelative(run.finishedAt ?? run.updatedAt)}`;
  }
  if (!run.watching) {
    const why = run.stopReason === 'noToken' ? vscode.l10n.t('no token') : run.stopReason === 'unauthorized' ? vscode.l10n.t('token refused') : vscode.l10n.t('not watching');
    return `${state} · ${why}`;
  }
  const progress = run.progress?.total ? ` ${run.progress.completed ?? 0}/${run.progress.total}` : '';
  return `${state}${progress} · ${formatElapsed(Date.now() - run.startedAt)}`;
}

function runTooltip(run: RunRecord, inputs: Record<string, string>): vscode.MarkdownString {
  // Theme icons on before any text is appended: appendText then escapes a crew's `$(…)` (VS Code's escapeIcons).
  const tooltip = new vscode.MarkdownString(undefined, true);
  tooltip.appendMarkdown(`**${escapeMarkdown(inertLine(run.crewName))}** — ${escapeMarkdown(inertLine(stateLabel(run.state)))}\n\n`);
  if (run.message) {
    tooltip.appendText(inert(run.message.slice(0, 300)));
    tooltip.appendMarkdown('\n\n');
  }
  if (run.warning) {
    tooltip.appendMarkdown('$(warning) ');
    tooltip.appendText(inert(run.warning));
    tooltip.appendMarkdown('\n\n');
  }
  for (const [name, value] of Object.entries(inputs)) {
    tooltip.appendMarkdown(`- **${escapeMarkdown(inertLine(name))}**: `);
    tooltip.appendText(inert(value.length > 120 ? `${value.slice(0, 119)}…` : value));
    tooltip.appendMarkdown('\n');
  }
  tooltip.appendMarkdown(`\n${vscode.l10n.t('Kickoff ID')}: `);
  tooltip.appendText(inertLine(run.kickoffId));
  tooltip.appendMarkdown(`\n\n${vscode.l10n.t('Started')}: ${new Date(run.startedAt).toLocaleString()}`);
  return tooltip;
}
