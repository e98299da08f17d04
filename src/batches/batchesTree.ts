// The Batches view: a node per batch with its progress (`37/120 · 2 failed`), its rows beneath, each
// opening its run. Labels come from CSV cells and crew output: one line, no control characters.
import * as vscode from 'vscode';
import { hasValue, inputLine } from '../api/inputValues';
import type { BatchStore } from './core/batchStore';
import { type Batch, type BatchRow, batchProgress, progressLabel, rowFailed } from './core/model';
import type { RunStore } from '../runTracking/runStore';
import { oneLine } from '../util/inertText';
import { formatRelative, shortStateLabel, stateLabel } from '../ui/format';
import { fitRow } from '../ui/rowFit';

export type BatchesTreeNode = { type: 'batch'; batchId: string } | { type: 'row'; batchId: string; index: number };

export function batchTitle(batch: Batch): string {
  return `${oneLine(batch.crewName, 60)}: ${oneLine(batch.source, 60)}`;
}

export function batchProgressText(batch: Batch): string {
  return progressLabel(batchProgress(batch), { failed: vscode.l10n.t('failed'), unknown: vscode.l10n.t('unknown'), cancelled: vscode.l10n.t('cancelled') });
}

/** A row's state in words: its run's state once sent, else what happened to it. */
export function rowStateText(row: BatchRow, runs: RunStore): string {
  switch (row.status) {
    case 'queued':
      return vscode.l10n.t('queued');
    case 'skipped':
      return vscode.l10n.t('skipped: missing input');
    case 'sending':
      return vscode.l10n.t('kicking off');
    case 'unknown':
      return vscode.l10n.t('unknown — check before re-running');
    case 'notSent':
      return vscode.l10n.t('not sent');
    case 'cancelled':
      return vscode.l10n.t('cancelled before sending');
    case 'sent': {
      const state = row.result?.state ?? (row.runId ? runs.get(row.runId)?.state : undefined);
      return state ? stateLabel(state) : vscode.l10n.t('sent');
    }
  }
}

/** A row's state in a word, for the tree (its tooltip says it in full, with what to do). */
function rowStateWord(row: BatchRow, runs: RunStore): string {
  switch (row.status) {
    case 'skipped':
      return vscode.l10n.t('skipped');
    case 'unknown':
      return vscode.l10n.t('unknown');
    case 'cancelled':
      return vscode.l10n.t('cancelled');
    case 'sent': {
      const state = row.result?.state ?? (row.runId ? runs.get(row.runId)?.state : undefined);
      return state ? shortStateLabel(state) : vscode.l10n.t('sent');
    }
    default:
      return rowStateText(row, runs);
  }
}

export function rowLabel(row: BatchRow): string {
  const first = Object.values(row.inputs).find(hasValue);
  return `${row.index + 1}. ${first !== undefined ? oneLine(inputLine(first), 50) : vscode.l10n.t('(no inputs)')}`;
}


const rowNodeKey = (batchId: string, index: number) => `${batchId}\n${index}`;

/**
 * A batch's own row: its progress (`37/120 · 2 failed`), opening its results. The progress and the failures
 * stay whole, the title gives way; unknown and cancelled counts follow where there is room (the tooltip has all).
 */
export function batchItem(batch: Batch): vscode.TreeItem {
  const progress = batchProgress(batch);
  const paused = batch.paused !== undefined && !progress.finished && !batch.cancelled;
  const counts = (n: number, word: string) => (n ? [`${n} ${word}`] : []);
  const state = [...(paused ? [vscode.l10n.t('paused')] : []), `${progress.done}/${progress.total}`, ...counts(progress.failed, vscode.l10n.t('failed'))].join(' · ');
  const more = [...counts(progress.unknown, vscode.l10n.t('unknown')), ...counts(progress.cancelled, vscode.l10n.t('cancelled'))].map((part) => ` · ${part}`);
  const running = !progress.finished && !batch.cancelled;
  // Inline: Cancel Batch while it runs, and Resume while paused.
  // Its file first: what tells two batches apart stays in sight, the crew's name gives way (the tooltip has both).
  const name = vscode.l10n.t('{0} on {1}', oneLine(batch.source, 60), oneLine(batch.crewName, 60));
  const { label, description } = fitRow({ name, state, suffixes: more }, { depth: 1, actions: (running ? 1 : 0) + (paused ? 1 : 0) });
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `batch:${batch.id}`;
  item.description = description;
  const full = paused ? `${vscode.l10n.t('paused')} · ${batchProgressText(batch)}` : batchProgressText(batch);
  item.tooltip = `${batchTitle(batch)}\n${formatRelative(batch.createdAt)} · ${full}${paused ? `\n${oneLine(batch.paused ?? '', 300)}` : ''}`;
  item.iconPath = new vscode.ThemeIcon(progress.finished ? (progress.failed || progress.unknown ? 'warning' : 'pass') : batch.cancelled ? 'circle-slash' : paused ? 'debug-pause' : 'sync~spin');
  item.contextValue = ['batch', progress.finished ? 'finished' : batch.cancelled ? 'cancelling' : 'running', paused ? 'paused' : '', progress.failed ? 'hasFailed' : ''].filter(Boolean).join(' ');
  item.command = { command: 'crewRuns.openBatchResults', title: vscode.l10n.t('Open Batch Results'), arguments: [{ batchId: batch.id }] };
  return item;
}

/** What a drawn row shows: when it changes, the row is redrawn (not for a batch's tooltip, whose "2 min ago" moves on). */
function shownKey(item: vscode.TreeItem, withTooltip: boolean): string {
  const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : '';
  return JSON.stringify([item.label, item.description, withTooltip ? item.tooltip : '', icon, item.contextValue, item.command?.command]);
}

/** At most one redraw of a batch's own row per this long: VS Code rebuilds all its rows with it. */
const BATCH_REDRAW_MS = 1000;

export class BatchesTreeProvider implements vscode.TreeDataProvider<BatchesTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<BatchesTreeNode | BatchesTreeNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  // Stable node objects (VS Code knows a node by identity), so a change redraws only its own rows.
  private readonly nodes = new Map<string, BatchesTreeNode>();
  /** What each drawn node shows (`nodeKey`): a change that leaves it the same redraws nothing. */
  private readonly shown = new Map<string, string>();
  /** The batches the top level was last given. */
  private drawnBatches = '';
  /** Batches whose own row is to be redrawn when the current pause ends. */
  private readonly batchesDue = new Set<string>();
  private batchPause: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly batches: BatchStore,
    private readonly runs: RunStore,
  ) {
    this.disposables.push(
      this.changed,
      batches.onDidChange((ids) => this.onChanged(ids)),
      runs.onDidChange(({ runIds }) => {
        const ids = new Set(runIds);
        this.onChanged(this.batches.list().filter((b) => b.rows.some((r) => r.runId !== undefined && ids.has(r.runId))).map((b) => b.id));
      }),
    );
  }

  private onChanged(batchIds: string[]): void {
    if (!batchIds.length) {
      return;
    }
    if (this.batchIdsKey() !== this.drawnBatches) {
      this.changed.fire(undefined); // A batch came or went.
      return;
    }
    const rows: BatchesTreeNode[] = [];
    for (const id of batchIds) {
      const batch = this.batches.get(id);
      if (!batch) {
        continue;
      }
      if (this.shown.has(id) && this.shown.get(id) !== shownKey(batchItem(batch), false)) {
        this.batchesDue.add(id);
      }
      for (const row of batch.rows) {
        const key = rowNodeKey(id, row.index);
        const shown = this.shown.get(key);
        if (shown !== undefined && shown !== shownKey(this.rowItem(batch, row), true)) {
          rows.push(this.node(key, { type: 'row', batchId: id, index: row.index }));
        }
      }
    }
    if (rows.length) {
      this.changed.fire(rows);
    }
    if (!this.batchPause) {
      this.redrawDueBatches();
    }
  }

  /** Redraws the batches due now, then pauses: changes meanwhile wait for the end of the pause. */
  private redrawDueBatches(): void {
    this.batchPause = undefined;
    if (!this.batchesDue.size) {
      return;
    }
    const due = [...this.batchesDue].filter((id) => this.batches.get(id));
    this.batchesDue.clear();
    if (due.length) {
      this.changed.fire(due.map((id) => this.node(id, { type: 'batch', batchId: id })));
    }
    this.batchPause = setTimeout(() => this.redrawDueBatches(), BATCH_REDRAW_MS);
  }

  private node(key: string, fresh: BatchesTreeNode): BatchesTreeNode {
    let node = this.nodes.get(key);
    if (!node) {
      node = fresh;
      this.nodes.set(key, node);
    }
    return node;
  }

  private batchIdsKey(): string {
    return this.batches.list().map((b) => b.id).join('\n');
  }

  getChildren(element?: BatchesTreeNode): BatchesTreeNode[] {
    if (!element) {
      this.drawnBatches = this.batchIdsKey();
      for (const key of this.nodes.keys()) {
        if (!this.batches.get(key.split('\n')[0])) {
          this.nodes.delete(key);
          this.shown.delete(key);
        }
      }
      return this.batches.list().map((b) => this.node(b.id, { type: 'batch', batchId: b.id }));
    }
    if (element.type === 'batch') {
      const batch = this.batches.get(element.batchId);
      // Rows missing an input first: they are what needs attention.
      const rows = [...(batch?.rows ?? [])].sort((a, b) => Number(b.status === 'skipped') - Number(a.status === 'skipped') || a.index - b.index);
      return rows.map((r) => this.node(rowNodeKey(element.batchId, r.index), { type: 'row', batchId: element.batchId, index: r.index }));
    }
    return [];
  }

  getTreeItem(element: BatchesTreeNode): vscode.TreeItem {
    const batch = this.batches.get(element.batchId);
    const row = element.type === 'row' ? batch?.rows.find((r) => r.index === element.index) : undefined;
    if (!batch || (element.type === 'row' && !row)) {
      return new vscode.TreeItem(vscode.l10n.t('(removed)'));
    }
    const item = row ? this.rowItem(batch, row) : batchItem(batch);
    this.shown.set(row ? rowNodeKey(batch.id, row.index) : batch.id, shownKey(item, row !== undefined));
    return item;
  }

  private rowItem(batch: Batch, row: BatchRow): vscode.TreeItem {
    // The row's state stays in sight, in a word: the label gives way (the tooltip has both whole).
    const { label, description } = fitRow({ name: rowLabel(row), state: rowStateWord(row, this.runs) }, { minName: 8 });
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = `batch:${batch.id}:${row.index}`;
    item.description = description;
    item.tooltip = [rowLabel(row), rowStateText(row, this.runs), row.note ? oneLine(row.note, 300) : '', oneLine(row.result?.outputPreview ?? '', 300)].filter(Boolean).join('\n');
    item.iconPath = new vscode.ThemeIcon(rowFailed(row) ? 'error' : row.status === 'skipped' || row.status === 'unknown' ? 'warning' : row.result ? 'pass' : 'circle-outline');
    item.contextValue = ['batchRow', row.runId ? 'hasRun' : ''].filter(Boolean).join(' ');
    if (row.runId && this.runs.get(row.runId)) {
      item.command = { command: 'crewRuns.openRun', title: vscode.l10n.t('Open Run'), arguments: [{ runId: row.runId }] };
    }
    return item;
  }

  dispose(): void {
    clearTimeout(this.batchPause);
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
