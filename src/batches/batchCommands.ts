// Kick Off Batch… (pick a crew and a table, preview, confirm), Cancel Batch, Re-run Failed Rows and
// Remove Batch. The rows go out through the batch runner, each through startRun like Kick Off.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type Inputs, inputLine } from '../api/inputValues';
import { confirmAction, showError, showInfo, showWarning } from '../ui/notify';
import type { BatchRunner } from './core/batchRunner';
import type { BatchStore } from './core/batchStore';
import { mapColumns, type MappedTable } from './core/mapping';
import { type Batch, type BatchRow, batchProgress, failedRows, unfinishedRerunOf } from './core/model';
import type { ParsedTable } from './core/tableBuilder';
import type * as BatchSources from './core/source';
import type { SourceBytes } from './core/source';
import type { InputSpec } from '../api/types';
import type { Crew } from '../crews/crewConfig';
import { isFinished, type RunRecord } from '../runTracking/model';
import { readNumberSetting } from '../util/crewRunsSettings';
import { inertLine, oneLine } from '../util/inertText';
import { POLLER_DEFAULTS } from '../runTracking/poller';
import type { Services } from '../services';
import { batchTitle } from './batchesTree';
import { askPick } from '../ui/quickInput';
import { pickCrew } from '../crews/pickCrew';
import { inputsCapNotice } from '../kickoff/core/inputSteps';
import { canOfferStop, stopRun } from '../runs/stopCommands';
import { describeError } from '../ui/errorMessages';
import { errorText } from '../util/errorText';

export interface BatchServices {
  store: BatchStore;
  runner: BatchRunner;
}

/** Never above the poller's per-crew cap on requests in flight. */
export const MAX_BATCH_CONCURRENCY = POLLER_DEFAULTS.maxConcurrentPerCrew;

export function batchConcurrencySetting(): number {
  const value = readNumberSetting(vscode.workspace.getConfiguration('crewRuns'), 'batchConcurrency', vscode.workspace.isTrusted);
  return Math.min(MAX_BATCH_CONCURRENCY, value);
}

export function batchIdOf(arg: unknown): string | undefined {
  const id = (arg as { batchId?: unknown } | undefined)?.batchId;
  return typeof id === 'string' && id.length <= 100 ? id : undefined;
}

export function registerBatchCommands(services: Services, batches: BatchServices): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('crewRuns.kickOffBatch', (arg?: unknown) => kickOffBatch(services, batches, arg)),
    vscode.commands.registerCommand('crewRuns.cancelBatch', async (arg?: unknown) => {
      const batch = await pickBatch(batches.store, arg, vscode.l10n.t('Cancel which batch?'), (b) => !batchProgress(b).finished && !b.cancelled);
      return batch ? cancelBatch(services, batches, batch) : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.resumeBatch', async (arg?: unknown) => {
      const batch = await pickBatch(batches.store, arg, vscode.l10n.t('Resume which batch?'), (b) => b.paused !== undefined && !b.cancelled);
      if (batch && (await confirmResume(batch)) && !(await batches.runner.resume(batch.id))) {
        void showInfo(vscode.l10n.t('The batch {0} is not paused any more: nothing more was sent.', batchTitle(batch)));
      }
    }),
    vscode.commands.registerCommand('crewRuns.rerunFailedRows', async (arg?: unknown) => {
      const batch = await pickBatch(batches.store, arg, vscode.l10n.t('Re-run the failed rows of which batch?'), (b) => failedRows(b).length > 0);
      return batch && (await confirmRerun(batch)) ? rerunFailed(services, batches, batch) : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.removeBatch', async (arg?: unknown) => {
      const batch = await pickBatch(batches.store, arg, vscode.l10n.t('Remove which batch?'));
      const remove = vscode.l10n.t('Remove Batch');
      if (batch && (await showWarning(vscode.l10n.t('Remove the batch {0}?', batchTitle(batch)), { modal: true, detail: vscode.l10n.t('Its runs stay in the history.') }, remove)) === remove) {
        await removeBatch(batches, batch);
      }
    }),
  ];
}

/** Each queued row is a kickoff, billed by the crew: the user sees how many before they go. */
function confirmResume(batch: Batch): Promise<boolean> {
  const queued = batchProgress(batch).queued;
  return confirmAction(
    vscode.l10n.t('Resume the batch {0}?', batchTitle(batch)),
    vscode.l10n.t('{0} queued rows are kicked off on {1}, {2} at a time.', queued, batch.crewName, batch.concurrency),
    vscode.l10n.t('Resume Batch'),
  );
}

function confirmRerun(batch: Batch): Promise<boolean> {
  const failed = failedRows(batch).length;
  return confirmAction(
    vscode.l10n.t('Re-run the {0} failed rows of {1}?', failed, batchTitle(batch)),
    vscode.l10n.t('A new batch of {0} kickoffs on {1}, {2} at a time, with the same inputs.', failed, batch.crewName, batchConcurrencySetting()),
    vscode.l10n.t('Re-run Failed Rows'),
  );
}

/** The table readers: loaded with Run Batch from File's first use (dist/batchTables.js), not at activation. */
function batchSources(): typeof BatchSources {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./core/source') as typeof BatchSources;
}

export async function removeBatch(batches: BatchServices, batch: Batch): Promise<void> {
  await batches.runner.cancel(batch.id);
  await batches.runner.letGoOfRuns(batches.store.get(batch.id) ?? batch);
  await batches.store.remove(batch.id);
}

export async function pickBatch(store: BatchStore, arg: unknown, placeHolder: string, filter: (b: Batch) => boolean = () => true): Promise<Batch | undefined> {
  const id = batchIdOf(arg);
  if (id !== undefined) {
    const batch = store.get(id);
    if (!batch) {
      void showWarning(vscode.l10n.t('That batch is no longer there.'));
    }
    return batch;
  }
  const candidates = store.list().filter(filter);
  if (!candidates.length) {
    void showInfo(vscode.l10n.t('No batches to choose from.'));
    return undefined;
  }
  if (candidates.length === 1) {
    // A picker of one row asks nothing: each command that acts on the batch says what it will do first.
    return candidates[0];
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((b) => ({ label: batchTitle(b), description: new Date(b.createdAt).toLocaleString(), batch: b })),
    { placeHolder },
  );
  return picked?.batch;
}

/** `{ crew, file }` (tests, scripts), a file Uri (explorer, editor title, CodeLens), or a crew node. */
async function kickOffBatch(services: Services, batches: BatchServices, arg: unknown): Promise<string | undefined> {
  const given = arg as { crew?: unknown; file?: unknown } | undefined;
  const fileArg = arg instanceof vscode.Uri ? arg : typeof given?.file === 'string' ? vscode.Uri.file(given.file) : undefined;
  const crew = await pickCrew(services.crews, arg instanceof vscode.Uri ? undefined : typeof given?.crew === 'string' ? given.crew : arg, vscode.l10n.t('Run a batch on which crew?'));
  if (!crew) {
    return undefined;
  }
  const source = fileArg ?? (await pickSource(services.log));
  if (!source) {
    return undefined;
  }
  let table: ParsedTable;
  try {
    // An open document is read as shown (unsaved edits, untitled); anything else by its size first, then streamed.
    const { formatOfFileName, localFile, readBatchSource, readTableText } = batchSources();
    const format = formatOfFileName(source.path);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === source.toString());
    const bytes: SourceBytes = source.scheme === 'file'
      ? localFile(source.fsPath)
      : { size: async () => (await vscode.workspace.fs.stat(source)).size, read: async function* () { yield await vscode.workspace.fs.readFile(source); } };
    table = open ? await readTableText(open.getText(), format) : await readBatchSource(bytes, format);
  } catch (error) {
    void showError(vscode.l10n.t('Could not read {0}: {1}', path.basename(source.path), errorText(error)));
    return undefined;
  }
  const inputs = await crewInputs(services, crew);
  if (inputs === null) {
    return undefined;
  }
  const mapped = mapColumns(table.columns, table.rows, inputs);
  const name = path.basename(source.path);
  const concurrency = batchConcurrencySetting();
  if (!(await preview(crew, name, table, mapped, concurrency))) {
    return undefined;
  }
  const skipped = new Map(mapped.problems.map((p) => [p.row, p]));
  // A required input without a column skips every row: said once, the same note for each.
  const noColumn = mapped.missingColumns.length > 0 ? `No column for: ${oneLine(mapped.missingColumns.join(', '), 200)}` : undefined;
  const rows: BatchRow[] = mapped.inputs.map((inputs, index) => {
    const problem = skipped.get(index);
    return problem
      ? { index, inputs, status: 'skipped', note: problem.tooLong ? `The value of "${problem.tooLong}" is too long.` : problem.missing.length ? `Missing: ${problem.missing.join(', ')}` : noColumn }
      : noColumn
        ? { index, inputs, status: 'skipped', note: noColumn }
        : { index, inputs, status: 'queued' };
  });
  const skippedRows = rows.filter((row) => row.status === 'skipped').length;
  const batch = await batches.store.create({ crewUrl: crew.url, crewName: crew.name, source: name, inputNames: inputs?.map((spec) => spec.name), concurrency, rows });
  services.log.info(`[${crew.name}] Batch ${name}: ${rows.length - skippedRows} rows to kick off, ${skippedRows} skipped, ${concurrency} at a time.`);
  await startWithProgress(batches, batch);
  return batch.id;
}

async function pickSource(log: Services['log']): Promise<vscode.Uri | undefined> {
  type Item = vscode.QuickPickItem & { uri?: vscode.Uri; browse?: true };
  const items: Item[] = [];
  const active = vscode.window.activeTextEditor?.document;
  const { canBeTable, formatOfFileName, localFileCanBeTable } = batchSources();
  const activeName = formatOfFileName(active?.uri.path ?? '') ? active?.uri.path : `.${active?.languageId}`;
  if (active && activeName && canBeTable(activeName, active.getText(new vscode.Range(0, 0, 20, 0)))) {
    items.push({ label: `$(file) ${vscode.l10n.t('The active editor')}`, description: inertLine(path.basename(active.uri.path)), uri: active.uri });
  }
  // A workspace search can fail (no search provider in some editors): the file dialog is still there.
  const found = await Promise.resolve(vscode.workspace.findFiles('**/*.{jsonl,ndjson,csv,json}', '**/{node_modules,.git,out,dist}/**', 200)).catch((error: unknown) => {
    log.warn(`Batch sources: could not search the workspace (${errorText(error)}).`);
    return [];
  });
  // A settings.json or package.json is never a table: .json files are offered only when they hold an array.
  const tables = await Promise.all(found.map(async (uri) => (uri.scheme !== 'file' || (await localFileCanBeTable(uri.fsPath)) ? uri : undefined)));
  const files = tables.filter((uri): uri is vscode.Uri => uri !== undefined);
  for (const uri of files.sort((a, b) => a.path.localeCompare(b.path))) {
    items.push({ label: inertLine(path.basename(uri.path)), description: inertLine(vscode.workspace.asRelativePath(uri)), uri });
  }
  items.push({ label: `$(folder-opened) ${vscode.l10n.t('Choose a File…')}`, description: vscode.l10n.t('a table outside the workspace'), browse: true });
  const choice = await vscode.window.showQuickPick(items, {
    placeHolder: vscode.l10n.t('Which table of inputs? (JSON Lines, CSV with a header row, or a JSON array of objects)'),
    // Where the picker can say it: JSON rows keep their types, CSV cells are text unless the header types the column.
    title: vscode.l10n.t('Run Batch: JSON values keep their types; a CSV cell is text unless its header says name:json, name:number or name:boolean'),
  });
  if (!choice?.browse) {
    return choice?.uri;
  }
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    openLabel: vscode.l10n.t('Run Batch'),
    filters: { [vscode.l10n.t('Tables of inputs')]: ['csv', 'jsonl', 'ndjson', 'json'] },
  });
  return picked?.[0];
}

/**
 * The crew's inputs as it describes them (required flags included); undefined when it does not describe
 * them (every column is sent) or could not be asked and the user goes on anyway; null to stop.
 */
async function crewInputs(services: Services, crew: Crew): Promise<InputSpec[] | undefined | null> {
  try {
    const inputs = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: inertLine(vscode.l10n.t('Asking {0} which inputs it needs…', crew.name)) }, () =>
      services.client.getInputs(crew.url),
    );
    if (!inputs.described) {
      services.log.info(`[${crew.name}] does not describe its inputs (${inputs.reason}): every column of the batch is sent as it is.`);
      return undefined;
    }
    const capped = inputsCapNotice(crew.name, inputs.inputs);
    if (capped !== undefined) {
      services.log.warn(capped);
      void showWarning(capped);
    }
    return inputs.inputs;
  } catch (error) {
    const goOn = vscode.l10n.t('Send Every Column');
    const choice = await showWarning(
      vscode.l10n.t('{0} Without its inputs, every column is sent as it is.', describeError(error, crew.name)),
      { modal: true },
      goOn,
    );
    return choice === goOn ? undefined : null;
  }
}

/** Rows or lines listed one by one in the preview; the rest are counted. */
const MAX_LISTED = 100;

async function preview(crew: Crew, name: string, table: ParsedTable, mapped: MappedTable, concurrency: number): Promise<boolean> {
  type Item = vscode.QuickPickItem & { action?: 'kickoff' | 'cancel' };
  const toSend = mapped.missingColumns.length > 0 ? 0 : mapped.inputs.length - mapped.problems.length;
  const summary = (inputs: Inputs) => oneLine(Object.entries(inputs).map(([k, v]) => `${k}: ${inputLine(v)}`).join(' · '), 120);
  const separator = (label: string): Item => ({ label, kind: vscode.QuickPickItemKind.Separator });
  const items: Item[] = [
    toSend > 0
      ? { label: `$(rocket) ${(toSend === 1 ? vscode.l10n.t('Kick Off 1 Row') : vscode.l10n.t('Kick Off {0} Rows', toSend))}`, description: oneLine(vscode.l10n.t('{0} at a time on {1}', concurrency, crew.name), 120), action: 'kickoff' }
      : { label: `$(warning) ${vscode.l10n.t('No row can be sent')}`, action: 'cancel' },
    { label: `$(close) ${vscode.l10n.t('Cancel')}`, action: 'cancel' },
  ];
  if (mapped.problems.length) {
    items.push(
      separator(
        mapped.problems.length === 1
          ? vscode.l10n.t('1 row skipped: a required input is missing')
          : vscode.l10n.t('{0} rows skipped: a required input is missing', mapped.problems.length),
      ),
    );
    for (const problem of mapped.problems.slice(0, MAX_LISTED)) {
      items.push({
        label: `$(warning) ${vscode.l10n.t('Row {0}', problem.row + 1)}: ${oneLine(problem.tooLong ? vscode.l10n.t('"{0}" is too long', problem.tooLong) : vscode.l10n.t('missing {0}', problem.missing.join(', ')), 200)}`,
        description: summary(mapped.inputs[problem.row]),
      });
    }
    if (mapped.problems.length > MAX_LISTED) {
      items.push({ label: vscode.l10n.t('… and {0} more rows skipped', mapped.problems.length - MAX_LISTED) });
    }
  }
  if (table.problems.length) {
    // Already capped by the parser, which says how many more there are in its last entry.
    items.push(separator(vscode.l10n.t('Not read')));
    for (const problem of table.problems) {
      items.push({ label: `$(error) ${vscode.l10n.t('Line {0}', problem.line)}`, description: oneLine(problem.message, 200) });
    }
  }
  items.push(separator(vscode.l10n.t('Columns')));
  if (mapped.ignoredColumns.length) {
    items.push({ label: vscode.l10n.t('Not inputs of the crew (not sent): {0}', oneLine(mapped.ignoredColumns.join(', '), 200)) });
  }
  if (mapped.missingColumns.length) {
    items.push({ label: `$(warning) ${vscode.l10n.t('No row can be sent: no column for the required inputs {0}', oneLine(mapped.missingColumns.join(', '), 200))}` });
  }
  if (mapped.unmappedInputs.length) {
    items.push({ label: vscode.l10n.t('No column for: {0}', oneLine(mapped.unmappedInputs.join(', '), 200)) });
  }
  items.push(separator(vscode.l10n.t('First rows')));
  mapped.inputs.slice(0, 5).forEach((inputs, i) => items.push({ label: vscode.l10n.t('Row {0}', i + 1), description: summary(inputs) }));
  for (;;) {
    const choice = await askPick({
      title: oneLine(
        table.rowsLeftOut
          ? vscode.l10n.t('Run Batch: {0} on {1} — the first {2} rows of {3}', name, crew.name, mapped.inputs.length, mapped.inputs.length + table.rowsLeftOut)
          : vscode.l10n.t('Run Batch: {0} on {1} — {2} rows', name, crew.name, mapped.inputs.length),
        200,
      ),
      placeholder: vscode.l10n.t('Enter to kick off the rows that have every required input'),
      items,
      matchOnDescription: true,
    });
    if (choice.kind !== 'value' || choice.value.action === 'cancel') {
      return false;
    }
    if (choice.value.action === 'kickoff') {
      return true;
    }
  }
}

/** Starts sending with a progress notification; its Cancel is Cancel Batch (queued rows). */
async function startWithProgress(batches: BatchServices, batch: Batch): Promise<void> {
  await batches.runner.start(batch.id);
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Batch {0}', batchTitle(batch)), cancellable: true },
    (progress, cancellation) =>
      new Promise<void>((resolve) => {
        const total = batchProgress(batch).total;
        let reported = 0;
        const update = () => {
          const current = batches.store.get(batch.id);
          const p = current && batchProgress(current);
          if (!current || !p || current.cancelled || current.paused || p.queued + batches.runner.sending(batch.id) === 0) {
            subscription.dispose();
            resolve();
            return;
          }
          const sent = p.total - p.queued;
          progress.report({ message: vscode.l10n.t('{0} of {1} kicked off', sent, total), increment: total ? ((sent - reported) / total) * 100 : 0 });
          reported = sent;
        };
        const subscription = batches.store.onDidChange((ids) => ids.includes(batch.id) && update());
        cancellation.onCancellationRequested(() => void batches.runner.cancel(batch.id));
        update();
      }),
  );
}

/** Always asked: `{ batchId }` only names the batch (a command link or another extension must not cancel one unseen). */
async function cancelBatch(services: Services, batches: BatchServices, batch: Batch): Promise<void> {
  const { running, stoppable } = runningRuns(services, batch);
  const queued = batchProgress(batch).queued;
  const cancelQueued = vscode.l10n.t('Cancel Queued Rows');
  const cancelAndStop = vscode.l10n.t('Cancel and Stop {0} Running', stoppable.length);
  const choice = await showWarning(
    vscode.l10n.t('Cancel the batch {0}?', batchTitle(batch)),
    { modal: true, detail: vscode.l10n.t('{0} queued rows will not be sent. {1} runs have started and are not finished.', queued, running.length) },
    ...(stoppable.length ? [cancelQueued, cancelAndStop] : [cancelQueued]),
  );
  if (choice !== undefined) {
    await cancelBatchAs(services, batches, batch, choice === cancelAndStop);
  }
}

function runningRuns(services: Services, batch: Batch): { running: RunRecord[]; stoppable: RunRecord[] } {
  const running = batch.rows.flatMap((r) => (r.status === 'sent' && r.runId ? [services.runs.get(r.runId)] : [])).filter((run): run is RunRecord => run !== undefined && !isFinished(run));
  return { running, stoppable: running.filter((run) => canOfferStop(services, run)) };
}

/** Cancels the queued rows and, with `stop`, stops the batch's running runs (what the question chose; the test API). */
export async function cancelBatchAs(services: Services, batches: BatchServices, batch: Batch, stop: boolean): Promise<void> {
  await batches.runner.cancel(batch.id);
  if (!stop) {
    return;
  }
  const { stoppable } = runningRuns(services, batch);
  let stopped = 0;
  for (const run of stoppable) {
    if ((await stopRun(services, run, { quiet: true })) === 'stopped') {
      stopped++;
    }
  }
  void showInfo(vscode.l10n.t('Cancelled the batch {0}: asked the crew to stop {1} of {2} running runs.', batchTitle(batch), stopped, stoppable.length));
}

/** Source batches whose Re-run Failed Rows is being created here (a double-click makes one batch). */
const rerunning = new Set<string>();

export async function rerunFailed(services: Services, batches: BatchServices, batch: Batch): Promise<string | undefined> {
  const pending = unfinishedRerunOf(batches.store.list(), batch.id);
  if (rerunning.has(batch.id) || pending) {
    void showInfo(vscode.l10n.t('The failed rows of {0} are already being run again.', batchTitle(batch)));
    return pending?.id;
  }
  rerunning.add(batch.id);
  try {
    return await createRerun(services, batches, batch);
  } finally {
    rerunning.delete(batch.id);
  }
}

async function createRerun(services: Services, batches: BatchServices, batch: Batch): Promise<string | undefined> {
  const failed = failedRows(batch);
  if (!failed.length) {
    void showInfo(vscode.l10n.t('No failed rows in {0}.', batchTitle(batch)));
    return undefined;
  }
  const crew = services.crews.get(batch.crewUrl);
  if (!crew) {
    void showError(vscode.l10n.t('{0} is no longer in your crews; add it again to run it.', batch.crewName));
    return undefined;
  }
  const again = await batches.store.create({
    crewUrl: crew.url,
    crewName: crew.name,
    source: `${batch.source} (failed rows)`,
    inputNames: batch.inputNames,
    concurrency: batchConcurrencySetting(),
    rerunOf: batch.id,
    rows: failed.map((r) => ({ index: r.index, inputs: { ...r.inputs }, status: 'queued' })),
  });
  services.log.info(`[${crew.name}] Batch ${again.source}: ${failed.length} failed rows of ${batch.source} again.`);
  await startWithProgress(batches, again);
  return again.id;
}
