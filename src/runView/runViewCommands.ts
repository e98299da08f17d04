// Commands of the run view: open a run, its task outputs and final output as documents, copy,
// save, compare outputs or traces of two runs, export a trace.

import * as vscode from 'vscode';
import type { RunDetails, RunRecord } from '../runTracking/model';
import type { Logger } from '../util/logger';
import type { RunStore } from '../runTracking/runStore';
import { formatRelative, stateLabel } from '../ui/format';
import { finalAsMarkdown, finalAsText, type RunOutputDocuments } from './outputDocuments';
import type { RunPanelManager } from './runPanel';
import { showError, showInfo, showStatusMessage, showWarning } from '../ui/notify';
import { safeFileName } from '../util/fileName';
import { inertLine } from '../util/inertText';
import { pickRun } from '../runs/pickRun';
import { TraceComparisons } from './traceComparison';
import type * as TraceViews from './traceViews';
import { errorText } from '../util/errorText';

/** The part of Services these commands use. */
export interface RunViewServices {
  readonly runs: RunStore;
  readonly log: Logger;
}

/** `{ runId }` (page buttons, tree rows: a RunNode is `{ type: 'run', runId }`), else undefined. */
export function runIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'object' && arg !== null && typeof (arg as { runId?: unknown }).runId === 'string') {
    const runId = (arg as { runId: string }).runId;
    return runId.length > 0 && runId.length <= 200 ? runId : undefined;
  }
  return undefined;
}

interface RunPickItem extends vscode.QuickPickItem {
  runId?: string;
}

function runItem(run: RunRecord): RunPickItem {
  return {
    label: inertLine(`${run.crewName}: ${run.label}`),
    description: `${stateLabel(run.state)} · ${formatRelative(run.startedAt)}`,
    detail: inertLine(run.kickoffId),
    runId: run.id,
  };
}

/** The run to compare `run` with: the same crew's runs first (the likely question), then the others'. */
async function pickOtherRun(runs: RunStore, run: RunRecord, placeHolder: string): Promise<RunRecord | undefined> {
  const others = runs.list().filter((r) => r.id !== run.id);
  if (!others.length) {
    void showInfo(vscode.l10n.t('There is no other run to compare with.'));
    return undefined;
  }
  const sameCrew = others.filter((r) => r.crewUrl === run.crewUrl);
  const otherCrews = others.filter((r) => r.crewUrl !== run.crewUrl);
  const items: RunPickItem[] = [];
  if (sameCrew.length) {
    items.push({ label: inertLine(run.crewName), kind: vscode.QuickPickItemKind.Separator }, ...sameCrew.map(runItem));
  }
  if (otherCrews.length) {
    items.push({ label: vscode.l10n.t('Other crews'), kind: vscode.QuickPickItemKind.Separator }, ...otherCrews.map(runItem));
  }
  const picked = await vscode.window.showQuickPick(items, { placeHolder: inertLine(placeHolder), matchOnDescription: true, matchOnDetail: true });
  return picked?.runId ? runs.get(picked.runId) : undefined;
}

/** Ids of the runs that have a final output (read from their detail files; a queued run never has one). */
async function runsWithOutput(runs: RunStore): Promise<Set<string>> {
  const candidates = runs.list().filter((r) => r.state !== 'queued');
  const has = await Promise.all(candidates.map((r) => runs.readDetails(r.id).then((d) => d.finalOutput !== undefined, () => false)));
  return new Set(candidates.filter((_, i) => has[i]).map((r) => r.id));
}

export function registerRunViewCommands(services: RunViewServices, panels: RunPanelManager, documents: RunOutputDocuments): vscode.Disposable[] {
  const { runs } = services;
  const comparisons = new TraceComparisons(runs);

  /** The run an argument names, else the active run panel's, else one the user picks (`withOutput`: among runs with output). */
  async function targetRun(arg: unknown, placeHolder: string, withOutput = false): Promise<RunRecord | undefined> {
    const id = runIdOf(arg) ?? panels.activeRunId();
    if (id !== undefined) {
      const run = runs.get(id);
      if (!run) {
        void showWarning(vscode.l10n.t('This run is no longer in the history.'));
      }
      return run;
    }
    if (!withOutput) {
      return pickRun(runs, placeHolder);
    }
    const ids = await runsWithOutput(runs);
    return pickRun(runs, placeHolder, { filter: (run) => ids.has(run.id) });
  }

  async function withOutput(run: RunRecord): Promise<RunDetails | undefined> {
    const details = await runs.readDetails(run.id);
    if (!details.finalOutput) {
      void showInfo(vscode.l10n.t('This run has no output yet (it is {0}).', stateLabel(run.state)));
      return undefined;
    }
    return details;
  }

  const guarded = (name: string, fn: (...args: unknown[]) => Promise<unknown>) =>
    vscode.commands.registerCommand(name, async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        const message = errorText(e);
        services.log.error(`${name}: ${message}`);
        void showError(vscode.l10n.t('Crew Runs: {0}', message));
        return undefined;
      }
    });

  return [
    comparisons,
    comparisons.register(),
    guarded('crewRuns.openRun', async (arg) => {
      const id = runIdOf(arg);
      const run = id !== undefined ? runs.get(id) : await pickRun(runs, vscode.l10n.t('Select a run to open'), { skipWhenOne: true });
      if (!run) {
        if (id !== undefined) {
          void showWarning(vscode.l10n.t('This run is no longer in the history.'));
        }
        return false;
      }
      return panels.open(run.id);
    }),

    guarded('crewRuns.openTaskOutput', async (arg) => {
      const runId = runIdOf(arg);
      const index = (arg as { index?: unknown } | undefined)?.index;
      if (runId === undefined || !Number.isInteger(index) || (index as number) < 0) {
        return undefined;
      }
      const uri = documents.uri(runId, { kind: 'task', index: index as number });
      return vscode.window.showTextDocument(uri, { preview: true });
    }),

    guarded('crewRuns.copyOutput', async (arg) => {
      const run = await targetRun(arg, vscode.l10n.t('Select a run whose output to copy'), true);
      const details = run && (await withOutput(run));
      if (!details?.finalOutput) {
        return false;
      }
      await vscode.env.clipboard.writeText(finalAsText(details.finalOutput));
      showStatusMessage(vscode.l10n.t('Output copied.'), 3000);
      return true;
    }),

    guarded('crewRuns.saveOutputAs', async (arg) => {
      const run = await targetRun(arg, vscode.l10n.t('Select a run whose output to save'), true);
      const details = run && (await withOutput(run));
      if (!run || !details?.finalOutput) {
        return undefined;
      }
      const isJson = details.finalOutput.kind === 'json';
      const base = vscode.workspace.workspaceFolders?.[0]?.uri;
      const name = `${safeFileName(`${run.crewName} ${run.label}`)}.${isJson ? 'json' : 'md'}`;
      const markdown = vscode.l10n.t('Markdown');
      const json = vscode.l10n.t('JSON');
      const target = await vscode.window.showSaveDialog({
        defaultUri: base ? vscode.Uri.joinPath(base, name) : undefined,
        filters: isJson ? { [json]: ['json'], [markdown]: ['md'] } : { [markdown]: ['md'], [json]: ['json'] },
        saveLabel: vscode.l10n.t('Save Output'),
        title: vscode.l10n.t('Save Output As'),
      });
      if (!target) {
        return undefined;
      }
      const asJson = target.path.toLowerCase().endsWith('.json');
      const text = asJson ? outputJsonDocument(run, details) : finalAsMarkdown(details.finalOutput);
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
      void showInfo(vscode.l10n.t('Saved the output to {0}.', vscode.workspace.asRelativePath(target)));
      return target;
    }),

    guarded('crewRuns.showTrace', async (arg) => {
      const run = await targetRun(arg, vscode.l10n.t('Select a run whose trace to show'));
      return run !== undefined && panels.showTrace(run.id);
    }),

    guarded('crewRuns.exportTrace', async (arg, format) => {
      const run = await targetRun(arg, vscode.l10n.t('Select a run whose trace to export'));
      return run && (require('./traceViews') as typeof TraceViews).exportTrace(runs, run, format === 'otlp' || format === 'json' ? format : undefined);
    }),

    guarded('crewRuns.compareTraces', async (arg, otherArg) => {
      const run = await targetRun(arg, vscode.l10n.t('Select a run whose trace to compare'));
      if (!run) {
        return undefined;
      }
      const otherId = runIdOf(otherArg);
      const other = otherId !== undefined ? runs.get(otherId) : await pickOtherRun(runs, run, vscode.l10n.t('Compare the trace of “{0}” with…', run.label));
      if (!other) {
        if (otherId !== undefined) {
          void showWarning(vscode.l10n.t('This run is no longer in the history.'));
        }
        return undefined;
      }
      return comparisons.open(run, other);
    }),

    guarded('crewRuns.openOutputInEditor', async (arg) => {
      const run = await targetRun(arg, vscode.l10n.t('Select a run whose output to open'));
      if (!run) {
        return undefined;
      }
      const uri = await documents.finalOutputUri(run.id);
      return vscode.window.showTextDocument(uri, { preview: true });
    }),

    guarded('crewRuns.compareOutput', async (arg) => {
      // Only runs with an output are offered: a run that failed before writing one has nothing to compare (#52).
      const run = await targetRun(arg, vscode.l10n.t('Select a run whose output to compare'), true);
      const other = run && (await pickOtherRun(runs, run, vscode.l10n.t('Compare the output of “{0}” with…', run.label)));
      if (!run || !other) {
        return undefined;
      }
      const [mine, theirs] = await Promise.all([runs.readDetails(run.id), runs.readDetails(other.id)]);
      const format = mine.finalOutput?.kind === 'json' && theirs.finalOutput?.kind === 'json' ? 'json' : 'md';
      // The run picked first (the one compared) on the left, as in VS Code's own Compare With.
      const left = documents.uri(run.id, { kind: 'output', format });
      const right = documents.uri(other.id, { kind: 'output', format });
      const title = vscode.l10n.t('{0} ↔ {1} (output)', `${run.crewName}: ${run.label}`, `${other.crewName}: ${other.label}`);
      await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
      return { left, right };
    }),
  ];
}

/** The Save As… JSON document: the result itself for a JSON output, else the run and its outputs. */
function outputJsonDocument(run: RunRecord, details: RunDetails): string {
  const final = details.finalOutput;
  if (final?.kind === 'json') {
    return final.text.endsWith('\n') ? final.text : `${final.text}\n`;
  }
  const doc = {
    crew: run.crewName,
    crewUrl: run.crewUrl,
    kickoffId: run.kickoffId,
    inputs: details.inputs ?? {},
    state: run.state,
    startedAt: new Date(run.startedAt).toISOString(),
    finishedAt: run.finishedAt === undefined ? undefined : new Date(run.finishedAt).toISOString(),
    output: final?.text,
    tasks: details.tasks.map((t) => ({ name: t.name, agent: t.agent, attempt: t.attempt, output: t.output })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

