// Open Batch Results, Export Results (JSON Lines or CSV: inputs, state, kickoff id, output, error)
// and Compare Batches (the two batches' outputs row by row in VS Code's diff editor).
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { showInfo, showStatusMessage } from '../ui/notify';
import type { BatchStore, RowOutput } from './core/batchStore';
import type { Batch, BatchRow } from './core/model';
import { exportedRows, resultsAsCsv, resultsAsJsonl } from './core/export';
import type { Services } from '../services';
import { safeFileName } from '../util/fileName';
import { batchTitle } from './batchesTree';
import { type BatchResultsPanels, buildBatchTable } from './batchResultsPanel';
import { pickBatch } from './batchCommands';

const COMPARE_SCHEME = 'crew-runs-batch';


export function registerBatchResultsCommands(services: Services, store: BatchStore, panels: BatchResultsPanels): vscode.Disposable[] {
  const documents = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  return [
    changed,
    vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, { onDidChange: changed.event, provideTextDocumentContent: (uri) => documents.get(uri.toString()) ?? '' }),
    // Each Compare adds two texts: they go when their documents close, so the map does not grow for ever.
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (document.uri.scheme === COMPARE_SCHEME) {
        documents.delete(document.uri.toString());
      }
    }),
    vscode.commands.registerCommand('crewRuns.openBatchResults', async (arg?: unknown) => {
      const batch = await pickBatch(store, arg, vscode.l10n.t('Open the results of which batch?'));
      return batch ? panels.open(batch.id) : false;
    }),
    vscode.commands.registerCommand('crewRuns.exportBatchResults', async (arg?: unknown) => {
      const batch = await pickBatch(store, arg ?? (panels.activeBatchId() ? { batchId: panels.activeBatchId() } : undefined), vscode.l10n.t('Export the results of which batch?'));
      return batch ? exportResults(services, store, batch, arg, 'ask') : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.compareBatches', async (arg?: unknown) => {
      const batch = await pickBatch(store, arg, vscode.l10n.t('Compare which batch?'));
      if (!batch) {
        return undefined;
      }
      const otherId = (arg as { otherBatchId?: unknown } | undefined)?.otherBatchId;
      const other = typeof otherId === 'string' ? store.get(otherId) : await pickOther(store, batch);
      if (!other) {
        return undefined;
      }
      const [left, right] = await Promise.all([store.readOutputs(other.id), store.readOutputs(batch.id)]);
      const { leftText, rightText } = compareTexts(other, left, batch, right, services);
      const stamp = Date.now();
      const leftUri = vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/${other.id}/${safeFileName(batchTitle(other))}.md`, query: `at=${stamp}` });
      const rightUri = vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/${batch.id}/${safeFileName(batchTitle(batch))}.md`, query: `at=${stamp}` });
      documents.set(leftUri.toString(), leftText);
      documents.set(rightUri.toString(), rightText);
      await vscode.commands.executeCommand('vscode.diff', leftUri, rightUri, vscode.l10n.t('{0} ↔ {1}', batchTitle(other), batchTitle(batch)));
      return { left: leftUri.toString(), right: rightUri.toString() };
    }),
  ];
}

async function pickOther(store: BatchStore, batch: Batch): Promise<Batch | undefined> {
  const key = inputsKeys(batch);
  const others = store.list().filter((b) => b.id !== batch.id);
  if (!others.length) {
    void showInfo(vscode.l10n.t('There is no other batch to compare with.'));
    return undefined;
  }
  // Batches of the same inputs (a rerun, or the same table after a redeploy) first.
  const shared = (b: Batch) => inputsKeys(b).filter((k) => key.includes(k)).length;
  const picked = await vscode.window.showQuickPick(
    others
      .sort((a, b) => shared(b) - shared(a) || b.createdAt - a.createdAt)
      .map((b) => ({ label: batchTitle(b), description: vscode.l10n.t('{0} rows in common · {1}', shared(b), new Date(b.createdAt).toLocaleString()), batch: b })),
    { placeHolder: vscode.l10n.t('Compare {0} with…', batchTitle(batch)) },
  );
  return picked?.batch;
}

const rowKey = (row: BatchRow) => JSON.stringify(Object.entries(row.inputs).sort(([a], [b]) => a.localeCompare(b)));
const inputsKeys = (batch: Batch) => batch.rows.map(rowKey);

/** Both batches in the same row order (matched by their inputs), so the diff lines up row by row. */
function compareTexts(left: Batch, leftOut: Map<number, RowOutput>, right: Batch, rightOut: Map<number, RowOutput>, services: Services) {
  const rightByKey = new Map(right.rows.map((r) => [rowKey(r), r]));
  const leftKeys = new Set(left.rows.map(rowKey));
  const pairs: [BatchRow | undefined, BatchRow | undefined][] = [
    ...left.rows.map((r): [BatchRow, BatchRow | undefined] => [r, rightByKey.get(rowKey(r))]),
    ...right.rows.filter((r) => !leftKeys.has(rowKey(r))).map((r): [undefined, BatchRow] => [undefined, r]),
  ];
  const leftTable = new Map(buildBatchTable(left, services.runs).rows.map((r) => [r.index, r.state]));
  const rightTable = new Map(buildBatchTable(right, services.runs).rows.map((r) => [r.index, r.state]));
  const section = (row: BatchRow | undefined, other: BatchRow | undefined, outputs: Map<number, RowOutput>, states: Map<number, string>) => {
    const shown = row ?? other;
    const inputs = shown ? Object.entries(shown.inputs).map(([k, v]) => `${k}: ${v}`).join(' · ') : '';
    if (!row) {
      return `## ${inputs}\n\n(${vscode.l10n.t('not in this batch')})\n`;
    }
    const out = outputs.get(row.index);
    return `## ${inputs}\n\n${vscode.l10n.t('State')}: ${states.get(row.index) ?? ''}\n\n${out?.output ?? out?.error ?? row.note ?? ''}\n`;
  };
  return {
    leftText: pairs.map(([l, r]) => section(l, r, leftOut, leftTable)).join('\n'),
    rightText: pairs.map(([l, r]) => section(r, l, rightOut, rightTable)).join('\n'),
  };
}

/**
 * `{ format, file }` pre-fill the format and the save dialog; the dialog is always shown (a command link or another
 * extension must not write a file unseen), except for the test API (`where: 'file'`).
 */
export async function exportResults(services: Services, store: BatchStore, batch: Batch, arg: unknown, where: 'ask' | 'file'): Promise<string | undefined> {
  const given = arg as { format?: unknown; file?: unknown } | undefined;
  let format = given?.format === 'csv' || given?.format === 'jsonl' ? given.format : undefined;
  if (!format) {
    const picked = await vscode.window.showQuickPick([{ label: 'JSON Lines', format: 'jsonl' as const }, { label: 'CSV', format: 'csv' as const }], {
      placeHolder: vscode.l10n.t('Export as…'),
    });
    format = picked?.format;
  }
  if (!format) {
    return undefined;
  }
  const base = batch.source.replace(/\.[^.]*$/, '').replace(/[^\p{L}\p{N}._ -]+/gu, '_') || 'batch';
  const file = typeof given?.file === 'string' ? vscode.Uri.file(given.file) : undefined;
  const target =
    where === 'file'
      ? file
      : await vscode.window.showSaveDialog({
          defaultUri: file ?? vscode.Uri.joinPath(vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir()), `${base}-results.${format}`),
          filters: format === 'csv' ? { CSV: ['csv'] } : { 'JSON Lines': ['jsonl'] },
        });
  if (!target) {
    return undefined;
  }
  const rows = await exportedRows(store, batch);
  const columns = batch.inputNames ?? [...new Set(batch.rows.flatMap((r) => Object.keys(r.inputs)))];
  const text = format === 'csv' ? resultsAsCsv(rows, columns) : resultsAsJsonl(rows);
  await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
  services.log.info(`Exported the results of batch ${batch.source} (${rows.length} rows) to ${path.basename(target.fsPath)}.`);
  showStatusMessage(vscode.l10n.t('Exported {0} rows to {1}', rows.length, path.basename(target.fsPath)), 4000);
  return target.fsPath;
}
