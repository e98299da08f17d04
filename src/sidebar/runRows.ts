// What a run's row and a crew's activity look like in the crews tree: short enough for the default
// sidebar width, with the state first and the rest in the (lazy) tooltip.
import * as vscode from 'vscode';
import type { RunState, TaskOutput } from '../api/types';
import { taskNameText } from '../api/taskName';
import type { Crew } from '../crews/crewConfig';
import type { CrewHealth } from '../crews/crewRegistry';
import { isFinished, type RunRecord } from '../runTracking/model';
import { inertLine, oneLine } from '../util/inertText';
import { markdownLine, markdownText } from '../util/markdownText';
import { type Inputs, inputLine } from '../api/inputValues';
import { elapsedCalmChangesAt, formatElapsed, formatElapsedCalm, formatRelative, relativeChangesAt, shortStateLabel, stateLabel } from '../ui/format';
import { fitRow } from '../ui/rowFit';
import { runRowActionCount } from './runRowActions';
import { sentenceCase } from '../util/sentenceCase';

/** What a run row shows; `key` changes exactly when the row (or its tooltip) would look different. */
export interface RunRow {
  label: string;
  description: string;
  icon: vscode.ThemeIcon;
  contextValue: string;
  key: string;
  /** When the row's text next changes with time alone (an age, an elapsed time); undefined: never. */
  changesAt?: number;
}

/**
 * `ordinal` is given for a run whose label older runs of its crew share (a preset, Run Again): the
 * second such run is "#2", and so on (the first keeps its label), so runs of the same inputs differ.
 * A batch's row says which row it is instead.
 *
 * VS Code cuts a row from its end, the description first, the more so while the row's action icons show
 * (selected or under the pointer). So the row reads name, then state, whole; "#2" ends the label, short,
 * so look-alikes differ as drawn; what would follow the state (the progress, a batch row's number, the
 * time) is shown only where the whole name fits with it, and is in the tooltip anyway: nothing is cut.
 */
export function runRow(run: RunRecord, options: { stopHidden: boolean; ordinal?: number }, now = Date.now()): RunRow {
  const ordinal = run.batch ? '' : ordinalSuffix(options.ordinal);
  const { state, suffixes, changesAt } = runDescription(run, now);
  const watchingState = isFinished(run) ? 'finished' : run.watching ? 'watching' : 'stopped';
  const contextValue = `run state-${run.state} ${watchingState}${run.needsFeedback ? ' needsFeedback' : ''}${options.stopHidden ? ' noStop' : ''}`;
  const batchRow = run.batch ? [` · ${run.batch.suite ? vscode.l10n.t('eval') : vscode.l10n.t('row {0}', run.batch.row)}`] : [];
  const { label, description } = fitRow(
    { name: inertLine(run.label), nameEnd: ordinal, state, suffixes: [...suffixes.slice(0, -1), ...batchRow, ...suffixes.slice(-1)] },
    { actions: runRowActionCount(contextValue) },
  );
  const icon = runIcon(run);
  // The tooltip (resolved once per drawing) and the task children count too: what they show is in the key.
  const key = `${label}\n${description}\n${icon.id}\n${contextValue}\n${run.message}\n${run.warning}\n${run.currentTask}\n${run.progress?.completed}`;
  return { label, description, icon, contextValue, key, changesAt };
}

/** What follows a run's label when older runs of its crew have the same label: " #2", " #3"… */
export function ordinalSuffix(ordinal: number | undefined): string {
  return ordinal ? ` #${ordinal}` : '';
}

/**
 * For one crew's runs, newest first: the ordinal of each run whose label an older run shares (a preset, Run
 * Again). The oldest keeps its label; the next is 2, and so on. Runs not in the map have no ordinal.
 */
export function labelOrdinals(runs: readonly Pick<RunRecord, 'id' | 'label'>[]): Map<string, number> {
  const byLabel = new Map<string, string[]>();
  for (const run of runs) {
    const ids = byLabel.get(run.label);
    if (ids) {
      ids.push(run.id);
    } else {
      byLabel.set(run.label, [run.id]);
    }
  }
  const ordinals = new Map<string, number>();
  for (const ids of byLabel.values()) {
    ids.forEach((id, i) => i < ids.length - 1 && ordinals.set(id, ids.length - i));
  }
  return ordinals;
}

/** A run's label as the crews tree tells it apart from older runs of the same label: "Topic #2". */
export function distinctRunLabel(run: Pick<RunRecord, 'id' | 'label'>, runsOfCrew: readonly Pick<RunRecord, 'id' | 'label'>[]): string {
  return `${run.label}${ordinalSuffix(labelOrdinals(runsOfCrew).get(run.id))}`;
}

/** Runs of one crew in a few words: `2 running · 1 needs feedback`, or undefined when none is active. */
export function crewActivity(runs: readonly RunRecord[]): string | undefined {
  let running = 0;
  let needsFeedback = 0;
  for (const run of runs) {
    if (isFinished(run)) {
      continue;
    }
    if (run.needsFeedback) {
      needsFeedback++;
    } else if (run.watching) {
      running++;
    }
  }
  const parts = [running ? vscode.l10n.t('{0} running', running) : '', needsFeedback ? vscode.l10n.t('{0} needs feedback', needsFeedback) : ''];
  return parts.filter(Boolean).join(' · ') || undefined;
}

// Icons are immutable: one of each, shared by every row (a long history builds thousands of rows).
const icons = new Map<string, vscode.ThemeIcon>();

function icon(id: string, color?: string): vscode.ThemeIcon {
  const key = `${id} ${color}`;
  let found = icons.get(key);
  if (!found) {
    found = new vscode.ThemeIcon(id, color === undefined ? undefined : new vscode.ThemeColor(color));
    icons.set(key, found);
  }
  return found;
}

export function runIcon(run: RunRecord): vscode.ThemeIcon {
  if (run.needsFeedback) {
    return icon('bell-dot', 'list.warningForeground');
  }
  if (!isFinished(run) && !run.watching) {
    return icon('debug-pause', 'disabledForeground');
  }
  if (run.warning && !isFinished(run)) {
    return icon('warning', 'list.warningForeground');
  }
  return stateIcon(run.state);
}

export function stateIcon(state: RunState): vscode.ThemeIcon {
  return icon(...STATE_ICONS[state]);
}

const STATE_ICONS: Record<RunState, [string, string?]> = {
  queued: ['clock'],
  running: ['sync~spin', 'charts.blue'],
  unknown: ['sync~spin', 'charts.blue'],
  awaitingFeedback: ['bell-dot', 'list.warningForeground'],
  succeeded: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  cancelled: ['circle-slash'],
  notFound: ['question'],
};

/**
 * The state in a word or two, then what may follow it: the progress (` 1/3`) and a time (` · 4m` elapsed,
 * ` · 5 min ago` since it ended), the time last. A run no longer watched says why instead of a state it
 * last saw, which may be long over (the tooltip has that).
 */
function runDescription(run: RunRecord, now: number): { state: string; suffixes: string[]; changesAt?: number } {
  const word = run.needsFeedback ? vscode.l10n.t('needs feedback') : shortStateLabel(run.state);
  if (isFinished(run)) {
    const at = run.finishedAt ?? run.updatedAt;
    return { state: word, suffixes: [` · ${formatRelative(at, now)}`], changesAt: relativeChangesAt(at, now) };
  }
  if (!run.watching) {
    return { state: notWatchedWhy(run), suffixes: [] };
  }
  // A run waiting for feedback says so alone: its progress would take the room of its name.
  const progress = run.progress?.total && !run.needsFeedback ? [` ${run.progress.completed ?? 0}/${run.progress.total}`] : [];
  return { state: word, suffixes: [...progress, ` · ${formatElapsedCalm(now - run.startedAt)}`], changesAt: elapsedCalmChangesAt(run.startedAt, now) };
}

function notWatchedWhy(run: RunRecord): string {
  return run.stopReason === 'noToken' ? vscode.l10n.t('no token') : run.stopReason === 'unauthorized' ? vscode.l10n.t('token refused') : vscode.l10n.t('not watching');
}

/** Built when the row is hovered (resolveTreeItem): the whole label, the message, inputs and times. */
export function runTooltip(run: RunRecord, inputs: Inputs, now = Date.now()): vscode.MarkdownString {
  // Theme icons for ours; the crew's text goes through markdownText, which breaks its `$(…)` and every link.
  const tooltip = new vscode.MarkdownString(undefined, true);
  // All the row may leave out: the state in full, why it is not watched, the progress, the time.
  const { suffixes } = runDescription(run, now);
  const why = !isFinished(run) && !run.watching ? ` · ${notWatchedWhy(run)}` : '';
  tooltip.appendMarkdown(`**${markdownLine(run.crewName)}** — ${markdownLine(`${stateLabel(run.state)}${why}${suffixes.join('')}`)}\n\n`);
  tooltip.appendMarkdown(`${markdownLine(run.label)}\n\n`);
  if (run.batch) {
    const origin = run.batch.suite ? `$(beaker) ${markdownLine(vscode.l10n.t('Eval: {0}', run.batch.source))}` : `$(list-flat) ${markdownLine(vscode.l10n.t('Row {0} of {1}', run.batch.row, run.batch.source))}`;
    tooltip.appendMarkdown(`${origin}\n\n`);
  }
  if (run.message) {
    tooltip.appendMarkdown(`${markdownText(run.message.slice(0, 300))}\n\n`);
  }
  if (run.warning) {
    tooltip.appendMarkdown(`$(warning) ${markdownText(run.warning)}\n\n`);
  }
  for (const [name, value] of Object.entries(inputs)) {
    // A structured value as compact JSON: one line in a tooltip, never `[object Object]`.
    const text = inputLine(value);
    tooltip.appendMarkdown(`- **${markdownLine(name)}**: ${markdownText(text.length > 120 ? `${text.slice(0, 119)}…` : text)}\n`);
  }
  tooltip.appendMarkdown(`\n${vscode.l10n.t('Kickoff ID')}: ${markdownLine(run.kickoffId)}`);
  tooltip.appendMarkdown(`\n\n${vscode.l10n.t('Started')}: ${new Date(run.startedAt).toLocaleString()}`);
  if (run.finishedAt !== undefined) {
    tooltip.appendMarkdown(`\n\n${vscode.l10n.t('Took')}: ${formatElapsed(run.finishedAt - run.startedAt)}`);
  }
  return tooltip;
}

/** A task's tooltip, built when its row is hovered: the start of its output, line for line. */
export function taskTooltip(task: TaskOutput): vscode.MarkdownString {
  return new vscode.MarkdownString(markdownText(task.output.slice(0, 1000)));
}

export function healthLabel(health: CrewHealth): string | undefined {
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

export function healthIcon(health: CrewHealth, crew: Crew): vscode.ThemeIcon {
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

/** A crew's row: what its runs are doing, or what is wrong with it (token, network) first. */
/** A crew imported from the platform: its deployment's state and the platform's words. */
export interface CrewDeployment {
  state: 'online' | 'deploying' | 'failed' | 'unknown';
  words?: string;
  /** A failed redeploy's first build log error line. */
  firstError?: string;
}

function deploymentLabel(deployment: CrewDeployment): string {
  switch (deployment.state) {
    case 'online':
      return vscode.l10n.t('online');
    case 'deploying':
      return vscode.l10n.t('deploying');
    case 'failed':
      return vscode.l10n.t('deploy failed');
    default:
      return vscode.l10n.t('deployment unknown');
  }
}

export function crewTreeItem(
  crew: Crew,
  /** `hasChildren`: runs or chat sessions are listed under it. */
  shown: { hasChildren: boolean; activity: string | undefined; hasToken: boolean; health: CrewHealth; deployment?: CrewDeployment; chats?: boolean },
): vscode.TreeItem {
  const { hasChildren, activity, hasToken, health, deployment, chats } = shown;
  const item = new vscode.TreeItem(inertLine(crew.name), hasChildren ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
  // Another id once it has children: VS Code keeps the state it last drew for an id, and a crew drawn
  // without runs (no twistie) would otherwise stay collapsed when its first run arrives.
  item.id = hasChildren ? `crew:${crew.url}` : `crew-idle:${crew.url}`;
  const source = crew.source === 'demo' ? vscode.l10n.t('demo') : crew.source === 'workspace' ? vscode.l10n.t('workspace') : undefined;
  // While its runs are going, what they do is what the row says ("ready" goes without saying); a
  // problem with the crew (token, network) still comes first, its runs' activity is in the tooltip.
  const problem = health === 'noToken' || health === 'tokenRejected' || health === 'unreachable';
  const failedWith = deployment?.state === 'failed' && deployment.firstError ? `: ${oneLine(deployment.firstError, 60)}` : '';
  item.description = [problem ? healthLabel(health) : (activity ?? healthLabel(health)), deployment && deploymentLabel(deployment) + failedWith, source].filter(Boolean).join(' · ');
  item.iconPath = healthIcon(health, crew);
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(`**${markdownLine(crew.name)}**\n\n`);
  tooltip.appendMarkdown(markdownLine(crew.url)); // As text: not even the crew's own URL is a link.
  tooltip.appendMarkdown(`\n\n${markdownLine(healthLabel(health) ?? vscode.l10n.t('not checked yet'))}`);
  if (activity) {
    tooltip.appendMarkdown(`\n\n${markdownLine(activity)}`);
  }
  if (chats) {
    tooltip.appendMarkdown(`\n\n${markdownLine(vscode.l10n.t('A conversational flow: Chat with Flow talks to it.'))}`);
  }
  if (deployment) {
    tooltip.appendMarkdown(`\n\n${markdownLine(vscode.l10n.t('Deployment: {0}', deployment.words ? sentenceCase(deployment.words) : deploymentLabel(deployment)))}`);
    if (deployment.state === 'failed' && deployment.firstError) {
      tooltip.appendMarkdown(`\n\n${markdownLine(vscode.l10n.t('First error in the build log: {0}', deployment.firstError))}`);
    }
  }
  item.tooltip = tooltip;
  item.contextValue = ['crew', `source-${crew.source}`, `health-${health}`, hasToken ? 'hasToken' : 'noToken', ...(chats ? ['chats'] : []), ...(deployment ? ['imported', `deployment-${deployment.state}`] : [])].join(' ');
  if (!hasChildren) {
    // An idle crew's default action is the most frequent thing a user does with it.
    item.command = { command: 'crewRuns.kickOff', title: vscode.l10n.t('Kick Off Crew…'), arguments: [{ crew }] };
  }
  return item;
}

/** A task of a run: done (opens its output), or the one in progress. Its agent follows where all of it fits. */
export function taskTreeItem(node: { runId: string; task: TaskOutput; index: number; current?: boolean }): vscode.TreeItem {
  const agent = !node.current && node.task.agent !== undefined ? [inertLine(node.task.agent)] : [];
  const { label, description } = fitRow({ name: inertLine(taskNameText(node.task.name)), state: node.current ? vscode.l10n.t('in progress') : '', suffixes: agent }, { depth: 3 });
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = `task:${node.runId}:${node.index}`;
  item.description = description || undefined;
  item.iconPath = node.current ? new vscode.ThemeIcon('loading~spin') : new vscode.ThemeIcon('check', new vscode.ThemeColor('testing.iconPassed'));
  item.contextValue = node.current ? 'task current' : 'task';
  if (!node.current) {
    item.command = { command: 'crewRuns.openTaskOutput', title: vscode.l10n.t('Open Task Output'), arguments: [{ runId: node.runId, index: node.index }] };
  }
  return item;
}
