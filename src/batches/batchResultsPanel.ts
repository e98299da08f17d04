// The batch results view: a webview per batch with the same rules as the run view (strict CSP with
// a nonce for its one script, command links off, resources from media/ only, every page message
// validated and anything else ignored). The page gets the table as data and builds it with
// textContent, so CSV cells and crew output stay text.
import * as vscode from 'vscode';
import { inputLine } from '../api/inputValues';
import { stripControls } from '../util/inertText';
import { pageHtml } from '../ui/webviewPage';
import { widestColumn } from '../ui/editorLayout';
import type { BatchStore } from './core/batchStore';
import { type Batch, rowFailed, unfinishedRerunOf } from './core/model';
import type { Logger } from '../util/logger';
import type { RunStore } from '../runTracking/runStore';
import type { EventUsage } from '../api/types';
import { estimateCost } from '../runTracking/trace/cost';
import { mergeTallies } from '../runTracking/trace/usageTally';
import type { TraceSettings } from '../runView/traceFeed';
import { readTraceSettings } from '../runView/traceSettings';
import { batchProgressText, batchTitle, rowStateText } from './batchesTree';
import { type BatchHostMessage, type BatchPageMessage, type BatchPageReport, type BatchPageStrings, type BatchTable, parseBatchPageMessage } from './page/batchProtocol';

export const BATCH_VIEW_TYPE = 'crewRuns.batchResults';

export interface BatchResultsDeps {
  extensionUri: vscode.Uri;
  store: BatchStore;
  runs: RunStore;
  log: Logger;
  /** Tests only: given the panels' inspection once. */
  inspect?: (inspection: BatchPanelsInspection) => void;
}

/** What tests may read of the batch results panels. */
export interface BatchPanelsInspection {
  /** What a batch's page last reported, and its HTML. */
  panel(batchId: string): { report?: BatchPageReport; html: string; visible: boolean } | undefined;
}

interface Entry {
  batchId: string;
  panel: vscode.WebviewPanel;
  ready: boolean;
  report?: BatchPageReport;
  html: string;
  disposables: vscode.Disposable[];
}

/** `others`: every batch, so Re-run Failed Rows is offered only while no re-run of this one is under way. */
export function buildBatchTable(batch: Batch, runs: RunStore, others: Batch[] = [], prices: TraceSettings = readTraceSettings()): BatchTable {
  const inputColumns = batch.inputNames ?? [...new Set(batch.rows.flatMap((r) => Object.keys(r.inputs)))];
  const fallbackModel = prices.modelFor({ url: batch.crewUrl, name: batch.crewName });
  const costOf = (usage: Record<string, EventUsage> | undefined) =>
    usage && estimateCost(Object.entries(usage).map(([model, tokens]) => ({ kind: 'llm', model: model || undefined, usage: tokens })), prices.prices, fallbackModel);
  const total = costOf(mergeTallies(batch.rows.map((r) => r.result?.usageByModel)));
  return {
    title: batchTitle(batch),
    progress: batchProgressText(batch),
    inputColumns,
    canRerunFailed: batch.rows.some(rowFailed) && !unfinishedRerunOf(others, batch.id),
    totals: {
      durationMs: batch.rows.reduce((sum, r) => sum + (r.result?.durationMs ?? 0), 0),
      tokens: batch.rows.reduce((sum, r) => sum + (r.result?.totalTokens ?? 0), 0),
      costUsd: total?.usd,
      costPartial: (total?.unpricedTokens ?? 0) > 0,
    },
    rows: batch.rows.map((row) => {
      const run = row.runId ? runs.get(row.runId) : undefined;
      const stateKey = row.status === 'sent' ? (row.result?.state ?? run?.state ?? 'queued') : row.status;
      return {
        index: row.index,
        inputs: Object.fromEntries(Object.entries(row.inputs).map(([name, value]) => [name, inputLine(value)])),
        stateKey,
        state: rowStateText(row, runs),
        durationMs: row.result?.durationMs,
        tokens: row.result?.totalTokens,
        costUsd: costOf(row.result?.usageByModel)?.usd,
        output: row.result?.outputPreview,
        error: reasonOf(row),
        note: row.note,
        hasRun: run !== undefined,
      };
    }),
  };
}

/** The most of a row's error the page is given: a traceback's start says what went wrong. */
const ERROR_CHARS = 4000;

/** Why a row did not succeed, lines kept: its run's error, else why it was skipped, not sent or is unknown. */
function reasonOf(row: Batch['rows'][number]): string | undefined {
  const text = row.result?.error ?? (row.result?.state === 'succeeded' ? undefined : row.note);
  if (!text?.trim()) {
    return undefined;
  }
  const clean = stripControls(text).replace(/\r\n?/g, '\n').trim();
  return clean.length > ERROR_CHARS ? `${clean.slice(0, ERROR_CHARS - 1)}…` : clean;
}

export class BatchResultsPanels implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: BatchResultsDeps) {
    this.disposables.push(
      // A re-run's progress also changes whether its source batch offers Re-run Failed Rows.
      deps.store.onDidChange((ids) => new Set(ids.flatMap((id) => [id, deps.store.get(id)?.rerunOf ?? id])).forEach((id) => this.refresh(id))),
      deps.runs.onDidChange(({ runIds }) => {
        const ids = new Set(runIds);
        for (const entry of this.entries.values()) {
          if (deps.store.get(entry.batchId)?.rows.some((r) => r.runId !== undefined && ids.has(r.runId))) {
            this.refresh(entry.batchId);
          }
        }
      }),
    );
    deps.inspect?.({
      panel: (batchId) => {
        const entry = this.entries.get(batchId);
        return entry && { report: entry.report, html: entry.html, visible: entry.panel.visible };
      },
    });
  }

  /** Opens a batch's results, in the widest editor group: the table needs the room. */
  async open(batchId: string): Promise<boolean> {
    if (!this.deps.store.get(batchId)) {
      return false;
    }
    const existing = this.entries.get(batchId);
    if (existing) {
      existing.panel.reveal();
      return true;
    }
    const column = await widestColumn();
    const batch = this.deps.store.get(batchId);
    if (!batch || this.entries.has(batchId)) {
      return this.open(batchId); // Removed, or opened by another call, meanwhile.
    }
    const panel = vscode.window.createWebviewPanel(BATCH_VIEW_TYPE, batchTitle(batch), column, {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, 'media')],
    });
    const entry: Entry = { batchId, panel, ready: false, html: '', disposables: [] };
    this.entries.set(batchId, entry);
    entry.disposables.push(
      panel.webview.onDidReceiveMessage((value: unknown) => {
        const message = parseBatchPageMessage(value);
        if (message) {
          void this.handle(entry, message).catch((e: unknown) => this.deps.log.warn(`Batch results ${batchId}: '${message.type}' failed (${String(e)}).`));
        }
      }),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) {
          entry.ready = false; // The page is discarded while hidden; it says `ready` again.
        }
      }),
      panel.onDidDispose(() => {
        this.entries.delete(batchId);
        vscode.Disposable.from(...entry.disposables).dispose();
      }),
    );
    entry.html = this.html(panel.webview, batchTitle(batch));
    panel.webview.html = entry.html;
    return true;
  }

  activeBatchId(): string | undefined {
    return [...this.entries.values()].find((e) => e.panel.active)?.batchId;
  }

  dispose(): void {
    for (const entry of [...this.entries.values()]) {
      entry.panel.dispose();
    }
    vscode.Disposable.from(...this.disposables).dispose();
  }

  private refresh(batchId: string): void {
    const entry = this.entries.get(batchId);
    const batch = this.deps.store.get(batchId);
    if (entry?.ready && batch) {
      this.post(entry, { type: 'table', table: buildBatchTable(batch, this.deps.runs, this.deps.store.list()) });
    }
  }

  private async handle(entry: Entry, message: BatchPageMessage): Promise<void> {
    const batch = this.deps.store.get(entry.batchId);
    switch (message.type) {
      case 'ready':
        entry.ready = true;
        if (batch) {
          this.post(entry, { type: 'init', strings: pageStrings(), table: buildBatchTable(batch, this.deps.runs, this.deps.store.list()) });
        }
        return;
      case 'rendered':
        entry.report = message.report;
        return;
      case 'openRun': {
        const runId = batch?.rows.find((r) => r.index === message.index)?.runId;
        if (runId && this.deps.runs.get(runId)) {
          await vscode.commands.executeCommand('crewRuns.openRun', { runId });
        }
        return;
      }
      case 'action': {
        const arg = { batchId: entry.batchId };
        switch (message.action) {
          case 'exportJsonl':
            await vscode.commands.executeCommand('crewRuns.exportBatchResults', { ...arg, format: 'jsonl' });
            return;
          case 'exportCsv':
            await vscode.commands.executeCommand('crewRuns.exportBatchResults', { ...arg, format: 'csv' });
            return;
          case 'rerunFailed':
            await vscode.commands.executeCommand('crewRuns.rerunFailedRows', arg);
            this.refresh(entry.batchId); // The page disabled its button: say again whether it is offered.
            return;
          case 'compare':
            await vscode.commands.executeCommand('crewRuns.compareBatches', arg);
            return;
        }
      }
    }
  }

  private post(entry: Entry, message: BatchHostMessage): void {
    void entry.panel.webview.postMessage(message).then(undefined, (e: unknown) => this.deps.log.warn(`Batch results ${entry.batchId}: cannot post (${String(e)}).`));
  }

  private html(webview: vscode.Webview, title: string): string {
    const media = vscode.Uri.joinPath(this.deps.extensionUri, 'media');
    return pageHtml({
      cspSource: webview.cspSource,
      language: vscode.env.language,
      title,
      styles: [webview.asWebviewUri(vscode.Uri.joinPath(media, 'batchResults.css')).toString()],
      script: webview.asWebviewUri(vscode.Uri.joinPath(media, 'dist', 'batchResults.js')).toString(),
      loading: vscode.l10n.t('Loading…'),
    });
  }
}

function pageStrings(): BatchPageStrings {
  return {
    filter: vscode.l10n.t('Filter rows (inputs, state, error, output)'),
    allStates: vscode.l10n.t('All states'),
    row: vscode.l10n.t('Row'),
    state: vscode.l10n.t('State'),
    duration: vscode.l10n.t('Duration'),
    tokens: vscode.l10n.t('Tokens'),
    cost: vscode.l10n.t('Cost (estimate)'),
    totals: vscode.l10n.t('All rows: {0} of runs, {1} tokens'),
    totalsCost: vscode.l10n.t('≈ {0} (estimate)'),
    costPartial: vscode.l10n.t('at least: some calls have no price'),
    output: vscode.l10n.t('Output'),
    error: vscode.l10n.t('Error'),
    errorExpand: vscode.l10n.t('Click to show all of it'),
    exportJsonl: vscode.l10n.t('Export JSON Lines…'),
    exportCsv: vscode.l10n.t('Export CSV…'),
    rerunFailed: vscode.l10n.t('Re-run Failed Rows'),
    compare: vscode.l10n.t('Compare with Another Batch…'),
    empty: vscode.l10n.t('No rows match.'),
    shown: vscode.l10n.t('{0} of {1} rows', '{0}', '{1}'),
  };
}
