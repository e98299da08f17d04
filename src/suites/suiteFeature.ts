// Suites in VS Code, loaded on first use (dist/suiteExplorer.js, esbuild.js lazyModules): when the workspace has a
// suite file, or a suite command is run. Brings the suite core (dist/suites.js: yaml, ajv) with it.
// suiteActivation.ts, in the main bundle, decides when.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isFinished } from '../runTracking/model';
import type { Services } from '../services';
import { errorText } from '../util/errorText';
import type { JudgeModel } from './core/judge';
import { type LastRun, suiteCommands, type SuiteCommands, suiteSummaryMarkdown } from './suiteCommands';
import { SuiteHistory } from './suiteHistory';
import type { InspectedResult, SuitesInspection } from './suiteInspection';
import { editorJudge } from './suiteJudge';
import { SuiteSummaries } from './suiteSummary';
import { runSuiteTests, type SuiteRunContext } from './suiteTestRun';
import { SuiteExplorer } from './testExplorer';

export interface SuiteFeature extends vscode.Disposable {
  readonly commands: SuiteCommands;
}

/** A suite case's run finished this long ago and still awaited: its suite run is gone (a window closed mid-run). */
const ABANDONED_AFTER_MS = 10 * 60_000;

export async function createSuiteFeature(services: Services, inspect?: (inspection: SuitesInspection) => void): Promise<SuiteFeature> {
  const core = await import('./core/lazy');
  // The core's bundle has no vscode (it is also its reader's worker thread): its words get the extension's translations.
  core.useTranslations(vscode.l10n.bundle);
  const parser = new core.SuiteParser({ l10nContents: vscode.l10n.bundle });
  const explorer = new SuiteExplorer(core, parser);
  const history = new SuiteHistory(path.join(services.context.globalStorageUri.fsPath, 'suites'));
  const summaries = new SuiteSummaries();
  const last = new Map<string, LastRun>();
  let judge: JudgeModel | undefined | 'editor' = 'editor';
  let lastSummary: string | undefined;
  const results: InspectedResult[] = [];
  const runOutput: string[] = [];
  const keptIds: string[] = [];

  const context: SuiteRunContext = {
    services,
    core,
    explorer,
    history,
    judge: async () => (judge === 'editor' ? editorJudge(core.JUDGE_LIMITS.answerChars) : judge),
    finished: (file, record, comparison, pinned) => {
      const run: LastRun = { record, comparison, pinned };
      last.set(file.key, run);
      keptIds.push(record.id);
      lastSummary = suiteSummaryMarkdown(core, run);
      summaries.set(file.key, file.parsed.suite.name, lastSummary);
    },
    recorder: inspect && { result: (result) => results.push(result), output: (line) => runOutput.push(line) },
  };
  const profile = explorer.controller.createRunProfile(vscode.l10n.t('Run'), vscode.TestRunProfileKind.Run, (request, token) => runSuiteTests(context, request, token), true);
  const running = new Set<vscode.CancellationTokenSource>();
  const runItems = async (items: vscode.TestItem[]) => {
    const cancel = new vscode.CancellationTokenSource();
    running.add(cancel);
    try {
      await runSuiteTests(context, new vscode.TestRunRequest(items, [], profile), cancel.token);
    } finally {
      running.delete(cancel);
      cancel.dispose();
    }
  };
  const itemAt = (ids: string[]) => {
    let item = explorer.controller.items.get(ids[0]);
    for (const id of ids.slice(1)) {
      item = item?.children.get(id);
    }
    return item;
  };
  // The suite commands are in the palette while the workspace has a suite.
  const hasSuites = () => void vscode.commands.executeCommand('setContext', 'crewRuns.hasSuites', explorer.list().length > 0);
  const listening = explorer.onDidChange(hasSuites);
  const commands = suiteCommands({ services, core, explorer, history, summaries, last, runSuites: (files) => runItems(files.map((file) => file.item)) });

  // Runs of suite cases still awaited long after they ended: their suite run was lost with its window. Let the
  // history cap take them again.
  const now = Date.now();
  for (const run of services.runs.list()) {
    if (run.batch?.suite && run.batch.awaitingEnd && isFinished(run) && (run.finishedAt ?? now) < now - ABANDONED_AFTER_MS) {
      void services.runs.batchEndRecorded(run.id).catch((error: unknown) => services.log.warn(`Could not release run ${run.id}: ${errorText(error)}`));
    }
  }

  inspect?.({
    items: async () => {
      await explorer.settled();
      const walk = (collection: vscode.TestItemCollection) => {
        const items: vscode.TestItem[] = [];
        collection.forEach((item) => items.push(item));
        return items
          .sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label))
          .map((item): Awaited<ReturnType<SuitesInspection['items']>>[number] => ({
            id: item.id,
            label: item.label,
            description: item.description,
            lines: item.range && [item.range.start.line, item.range.end.line],
            error: typeof item.error === 'string' ? item.error : item.error?.value,
            children: walk(item.children),
          }));
      };
      return walk(explorer.controller.items);
    },
    results: () => [...results],
    runOutput: () => [...runOutput],
    item: itemAt,
    run: async (paths) => {
      await explorer.settled();
      const items = paths.map((ids) => {
        const item = itemAt(ids);
        if (!item) {
          throw new Error(`No test item at ${ids.join(' › ')}`);
        }
        return item;
      });
      await runItems(items);
    },
    cancel: () => running.forEach((source) => source.cancel()),
    setJudge: (model) => (judge = model),
    lastSummary: () => lastSummary,
    suiteRunIds: () => [...keptIds],
  });

  return {
    commands,
    dispose: () => {
      listening.dispose();
      profile.dispose();
      explorer.dispose();
      summaries.dispose();
      void parser.dispose();
    },
  };
}
