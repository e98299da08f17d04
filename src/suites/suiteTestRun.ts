// One test run of the Crew Suites controller: the chosen cases of each suite run against the crew the suite names,
// through the one kickoff path (suiteSending.ts), a few at a time (suiteRunner.ts); each run's end awaited through
// the run store (runEnd.ts), then its checks evaluated by the core — the judge through the editor's language model —
// and reported on its test item with why it failed. Every suite run is kept (suiteHistory.ts) and compared with the
// previous run or the pinned baseline.
import * as vscode from 'vscode';
import type { Crew } from '../crews/crewConfig';
import { estimateCost, type CostItem } from '../runTracking/trace/cost';
import type { RunDetails } from '../runTracking/model';
import { readTraceSettings } from '../runView/traceSettings';
import type { Services } from '../services';
import { confirmAction, showError, showWarning } from '../ui/notify';
import { errorText } from '../util/errorText';
import { stripControls } from '../util/inertText';
import type { SuiteRunComparison } from './core/baseline';
import type { JudgeModel } from './core/judge';
import type { CheckResult, SuiteCase, SuiteItem, SuiteItemResult, SuiteRunRecord } from './core/types';
import { factsOfRun, recentTokensPerRun, waitForRunEnd } from './runEnd';
import { resolveSuiteCrew } from './suiteCrew';
import { newSuiteRunId, type SuiteHistory } from './suiteHistory';
import type { InspectedResult } from './suiteInspection';
import { runSuiteItems } from './suiteRunner';
import { chooseItems, type ItemChoice } from './suiteSelection';
import { sendSuiteItem } from './suiteSending';
import { type SuiteCore, type SuiteExplorer, type SuiteFile, toRange } from './testExplorer';

/** A test run that starts more runs than this asks first, saying how many and roughly how many tokens. */
export const COSTLY_RUNS = 5;
/** The context value of a result's messages: their "Open Run" button (package.json testing/message/content). */
export const RESULT_MESSAGE_CONTEXT = 'crewRuns.suiteResult';
/** A paused suite (the crew unreachable) tries again after this long, doubling up to PAUSE_MAX_MS. */
const PAUSE_FIRST_MS = 15_000;
const PAUSE_MAX_MS = 120_000;
/** The start of the output a failed check's message shows (the whole is in the run). */
const SHOWN_OUTPUT_CHARS = 2000;

export interface SuiteRunContext {
  readonly services: Services;
  readonly core: SuiteCore;
  readonly explorer: SuiteExplorer;
  readonly history: SuiteHistory;
  /** The judge for a test run: the editor's language model unless a test set another. */
  judge(): Promise<JudgeModel | undefined>;
  /** A suite run is over: kept, compared (when there was something to compare with). */
  finished(file: SuiteFile, record: SuiteRunRecord, comparison: SuiteRunComparison | undefined, pinned: boolean): void;
  /** Tests only: what was reported. */
  readonly recorder?: { result(result: InspectedResult): void; output(line: string): void };
}

interface Selection {
  file: SuiteFile;
  items: SuiteItem[];
}

/** Runs what a request chose; resolves when the test run ended. */
export async function runSuiteTests(context: SuiteRunContext, request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
  const run = context.explorer.controller.createTestRun(request);
  const cancelled = () => token.isCancellationRequested || run.token.isCancellationRequested;
  const say = (line: string) => {
    run.appendOutput(`${stripControls(line).replace(/\r?\n/g, '\r\n')}\r\n`);
    context.recorder?.output(line);
  };
  try {
    await context.explorer.settled();
    const selections = select(context, request);
    const leaves = (selection: Selection) => selection.items.map((item) => context.explorer.leafItem(selection.file, item.caseName, item.id)).filter((item) => item !== undefined);
    if (!vscode.workspace.isTrusted) {
      const why = vscode.l10n.t('Suites run only in a trusted workspace: a suite decides which of your crews run, with which inputs, on your tokens.');
      for (const selection of selections) {
        for (const item of leaves(selection)) {
          run.skipped(item);
          context.recorder?.result({ path: pathOf(selection.file, item), state: 'skipped', messages: [], output: [why] });
        }
      }
      say(why);
      const manage = vscode.l10n.t('Manage Workspace Trust');
      void showWarning(why, manage).then((choice) => choice === manage && vscode.commands.executeCommand('workbench.trust.manage'));
      return;
    }

    const runnable: { selection: Selection; crew: Crew }[] = [];
    const missing: string[] = [];
    for (const selection of selections) {
      const crew = resolveSuiteCrew(context.services.crews, selection.file.parsed.suite.crew);
      if ('crew' in crew) {
        runnable.push({ selection, crew: crew.crew });
        continue;
      }
      missing.push(crew.problem);
      const message = new vscode.TestMessage(crew.problem);
      message.location = new vscode.Location(selection.file.uri, toRange(selection.file.parsed.suite.range));
      for (const item of leaves(selection)) {
        run.errored(item, message);
        context.recorder?.result({ path: pathOf(selection.file, item), state: 'errored', messages: [{ text: crew.problem, line: message.location.range.start.line }], output: [] });
      }
    }
    if (missing.length > 0) {
      const add = vscode.l10n.t('Add Crew…');
      const more = missing.length > 1 ? ` ${vscode.l10n.t('({0} more suites name crews that are not yours.)', missing.length - 1)}` : '';
      void showError(missing[0] + more, add).then((choice) => choice === add && vscode.commands.executeCommand('crewRuns.addCrew'));
    }

    const total = runnable.reduce((sum, r) => sum + r.selection.items.length, 0);
    if (total > COSTLY_RUNS && !cancelled() && !(await confirmCostly(context, runnable, total))) {
      const why = vscode.l10n.t('Not run: you chose not to start {0} runs.', total);
      for (const { selection } of runnable) {
        for (const item of leaves(selection)) {
          run.skipped(item);
          context.recorder?.result({ path: pathOf(selection.file, item), state: 'skipped', messages: [], output: [why] });
        }
      }
      say(why);
      return;
    }
    const needsJudge = runnable.some(({ selection }) => selection.file.parsed.suite.cases.some((c) => c.checks.some((check) => check.type === 'judge')));
    const judge = needsJudge ? await context.judge() : undefined;
    if (needsJudge && !judge) {
      say(vscode.l10n.t('No language model: the judge checks are skipped (never passed or failed). A chat model in the editor (GitHub Copilot, or another) scores them.'));
    }
    for (const { selection, crew } of runnable) {
      if (cancelled()) {
        break;
      }
      await runSuite(context, run, selection, crew, judge, cancelled, say);
    }
  } catch (error) {
    context.services.log.error(`A suite run failed: ${errorText(error)}`);
    say(vscode.l10n.t('The suite run failed: {0}', errorText(error)));
  } finally {
    run.end();
  }
}

/** The items a request chose, per suite, in file order; excluded ones left out. */
function select(context: SuiteRunContext, request: vscode.TestRunRequest): Selection[] {
  const { explorer, core } = context;
  const choices = (items: readonly vscode.TestItem[]): ItemChoice[] =>
    items.map((item) => explorer.refOf(item)).filter((ref) => ref !== undefined).map((ref) => ({ suiteKey: ref.file.key, caseName: ref.caseName, itemId: ref.itemId }));
  const files = explorer.list();
  const chosen = chooseItems(
    files.map((file) => ({ key: file.key, items: core.suiteItems(file.parsed.suite) })),
    request.include && choices(request.include),
    choices(request.exclude ?? []),
  );
  return files.filter((file) => chosen.has(file.key)).map((file) => ({ file, items: chosen.get(file.key)! }));
}

async function confirmCostly(context: SuiteRunContext, runnable: { selection: Selection; crew: Crew }[], total: number): Promise<boolean> {
  const lines: string[] = [];
  for (const { selection, crew } of runnable.slice(0, 5)) {
    const n = selection.items.length;
    const perRun = await recentTokensPerRun(context.services.runs, crew.url).catch(() => undefined);
    lines.push(
      perRun === undefined
        ? vscode.l10n.t('Suite "{0}": {1} runs of {2} (its recent runs do not say how many tokens they use).', selection.file.parsed.suite.name, n, crew.name)
        : vscode.l10n.t('Suite "{0}": {1} runs of {2}, about {3} tokens (its recent runs used about {4} each).', selection.file.parsed.suite.name, n, crew.name, (perRun * n).toLocaleString('en-US'), perRun.toLocaleString('en-US')),
    );
  }
  if (runnable.length > 5) {
    lines.push(vscode.l10n.t('… and {0} more suites.', runnable.length - 5));
  }
  return confirmAction(vscode.l10n.t('This test run starts {0} runs of your crews.', total), lines.join('\n'), vscode.l10n.t('Start {0} Runs', total));
}

async function runSuite(
  context: SuiteRunContext,
  run: vscode.TestRun,
  { file, items }: Selection,
  crew: Crew,
  judge: JudgeModel | undefined,
  cancelled: () => boolean,
  say: (line: string) => void,
): Promise<void> {
  const { services, core, explorer } = context;
  const suite = file.parsed.suite;
  const cases = new Map(suite.cases.map((c) => [c.name, c]));
  const places = new Map(items.map((item, index) => [item.id, index + 1]));
  const leaf = (item: { caseName: string; itemId?: string; id?: string }) => explorer.leafItem(file, item.caseName, item.itemId ?? item.id ?? item.caseName);
  for (const item of items) {
    const test = leaf(item);
    if (test) {
      run.enqueued(test);
    }
  }
  const startedAt = Date.now();
  const patterns = new core.PatternRunner();
  const abort = new AbortController();
  const onCancel = run.token.onCancellationRequested(() => abort.abort());
  let pauses = 0;
  say(vscode.l10n.t('Suite "{0}": {1} run(s) of {2}, {3} at a time.', suite.name, items.length, crew.name, suite.concurrency));
  try {
    const outcome = await runSuiteItems(items, suite.concurrency, {
      send: (item) => sendSuiteItem(services, crew, suite.name, cases.get(item.caseName)!, item, places.get(item.id) ?? 0),
      onSent: (item) => {
        const test = leaf(item);
        if (test) {
          run.started(test);
        }
      },
      finish: (item, runId) => finishItem(context, crew, cases.get(item.caseName)!, item, runId, { patterns, judge, signal: abort.signal, cancelled: (listener) => run.token.onCancellationRequested(listener) }),
      onResult: (result) => report(context, run, file, cases.get(result.caseName), result, crew),
      waitForCrew: (reason) => {
        pauses++;
        say(vscode.l10n.t('Paused: {0} The cases not sent yet wait: {1}', reason.message, reason.final ? vscode.l10n.t('they go on once the crew has a token it takes.') : vscode.l10n.t('the crew is tried again in a while.')));
        if (reason.final) {
          const setToken = vscode.l10n.t('Set Token…');
          void showWarning(vscode.l10n.t('Suite "{0}" is paused: {1} Its cases not sent yet wait and go on once the token is set; stop the test run to leave them.', suite.name, reason.message), setToken).then(
            (choice) => choice === setToken && vscode.commands.executeCommand('crewRuns.setToken', crew.url),
          );
        }
        return waitForCrew(services, crew, reason.final, Math.min(PAUSE_MAX_MS, PAUSE_FIRST_MS * 2 ** (pauses - 1)), run.token);
      },
      sleep: (ms) => sleep(ms, run.token),
      cancelled,
    });
    const why = outcome.pausedBecause ? vscode.l10n.t('Not run: {0}', outcome.pausedBecause) : vscode.l10n.t('Not run: the test run was stopped.');
    for (const item of outcome.notRun) {
      const result: SuiteItemResult = { itemId: item.id, caseName: item.caseName, repeat: item.repeat, outcome: 'skipped', checks: [], error: why };
      outcome.results[(places.get(item.id) ?? 0) - 1] = result;
      report(context, run, file, cases.get(item.caseName), result, crew);
    }
    const record: SuiteRunRecord = {
      version: 1,
      id: newSuiteRunId(startedAt),
      suiteName: suite.name,
      suiteFile: vscode.workspace.asRelativePath(file.uri, false),
      crewUrl: crew.url,
      startedAt,
      finishedAt: Date.now(),
      items: outcome.results.filter((result) => result !== undefined),
    };
    await conclude(context, file, record, say);
  } finally {
    onCancel.dispose();
  }
}

/** The suite run is kept and compared with its baseline; the summary goes to the test output, a regression to a notice. */
async function conclude(context: SuiteRunContext, file: SuiteFile, record: SuiteRunRecord, say: (line: string) => void): Promise<void> {
  const { core, history, services } = context;
  let comparison: SuiteRunComparison | undefined;
  let pinned = false;
  try {
    await history.add(file.key, record);
    const baseline = await history.baselineFor(file.key, record);
    if (baseline) {
      const ran = new Set(record.items.map((item) => item.itemId));
      // Only the items this run chose: a run of two cases does not make the others "gone".
      comparison = core.compareSuiteRuns(record, { ...baseline.record, items: baseline.record.items.filter((item) => ran.has(item.itemId)) });
      pinned = baseline.pinned;
    }
  } catch (error) {
    services.log.warn(`Suite ${record.suiteName}: could not keep or compare its run: ${errorText(error)}`);
  }
  const tally = core.tallySuiteRun(record);
  say(vscode.l10n.t('Suite "{0}": {1} ({2} s).', record.suiteName, core.outcomeLine(tally), Math.round(((record.finishedAt ?? record.startedAt) - record.startedAt) / 1000)));
  if (comparison) {
    const against = pinned ? vscode.l10n.t('the pinned baseline of {0}', new Date(comparison.baselineStartedAt).toLocaleString()) : vscode.l10n.t('the previous run, of {0}', new Date(comparison.baselineStartedAt).toLocaleString());
    say(vscode.l10n.t('Compared with {0}: {1}', against, core.comparisonSummary(comparison)));
  }
  context.finished(file, record, comparison, pinned);
  if (comparison && core.hasRegressions(comparison)) {
    const show = vscode.l10n.t('Show Summary');
    void showWarning(vscode.l10n.t('Suite "{0}": {1}', record.suiteName, core.comparisonSummary(comparison)), show).then(
      (choice) => choice === show && vscode.commands.executeCommand('crewRuns.suites.showSummary', file.item),
    );
  }
}

interface EvaluationContext {
  patterns: InstanceType<SuiteCore['PatternRunner']>;
  judge: JudgeModel | undefined;
  signal: AbortSignal;
  cancelled(listener: () => void): vscode.Disposable;
}

/** An item whose run started: its end awaited, its facts read, its checks evaluated. Never rejects. */
async function finishItem(context: SuiteRunContext, crew: Crew, suiteCase: SuiteCase, item: SuiteItem, runId: string, evaluation: EvaluationContext): Promise<SuiteItemResult> {
  const { services, core } = context;
  const base = { itemId: item.id, caseName: item.caseName, repeat: item.repeat, runId };
  try {
    const end = await waitForRunEnd(services.runs, runId, evaluation.cancelled);
    switch (end.kind) {
      case 'gone':
        return { ...base, outcome: 'error', checks: [], error: vscode.l10n.t('The run was removed from the history before it ended.') };
      case 'cancelled':
        return { ...base, outcome: 'skipped', checks: [], error: vscode.l10n.t('Not checked: the test run was stopped. The run goes on in the Crew Runs view.') };
      case 'stopped':
        return { ...base, outcome: 'error', checks: [], error: end.reason };
      case 'ended': {
        const details = await services.runs.readDetails(runId);
        const facts = factsOfRun(end.run, details, core.factsFromSnapshot);
        const checks = await core.evaluateCase(suiteCase, facts, { patterns: evaluation.patterns, judge: evaluation.judge, signal: evaluation.signal });
        return core.suiteItemResult(item, checks, facts, runId, costOf(details, crew));
      }
    }
  } catch (error) {
    return { ...base, outcome: 'error', checks: [], error: vscode.l10n.t('The run could not be checked: {0}', errorText(error)) };
  } finally {
    // Read: the history cap may take the run from now on.
    await services.runs.batchEndRecorded(runId).catch(() => undefined);
  }
}

/** The run's estimated cost from its model calls (else its usage), at the trace's prices; undefined when unknown. */
function costOf(details: RunDetails, crew: Crew): number | undefined {
  const settings = readTraceSettings();
  const usage = details.lastSnapshot?.usage;
  const items: CostItem[] = details.events?.byModel
    ? Object.entries(details.events.byModel).map(([model, tokens]) => ({ kind: 'llm', model: model || undefined, usage: tokens }))
    : usage
      ? [{ kind: 'llm', usage: { promptTokens: usage['prompt_tokens'], completionTokens: usage['completion_tokens'], totalTokens: usage['total_tokens'] } }]
      : [];
  return items.length > 0 ? estimateCost(items, settings.prices, settings.modelFor(crew)).usd : undefined;
}

/** An item's result on its test item: passed, failed, errored or skipped, why, how long, and its run. */
function report(context: SuiteRunContext, run: vscode.TestRun, file: SuiteFile, suiteCase: SuiteCase | undefined, result: SuiteItemResult, crew: Crew): void {
  const test = context.explorer.leafItem(file, result.caseName, result.itemId);
  const lines = resultLines(context, result, crew);
  if (!test || !suiteCase) {
    for (const line of lines) {
      run.appendOutput(`${line}\r\n`);
    }
    return;
  }
  const messages = resultMessages(file, suiteCase, result);
  const duration = result.durationSeconds !== undefined ? Math.round(result.durationSeconds * 1000) : undefined;
  const state = result.outcome === 'error' ? 'errored' : result.outcome;
  switch (result.outcome) {
    case 'passed':
      run.passed(test, duration);
      break;
    case 'failed':
      run.failed(test, messages, duration);
      break;
    case 'error':
      run.errored(test, messages, duration);
      break;
    case 'skipped':
      run.skipped(test);
      break;
  }
  // With the test, not at a place: output with a place is drawn in the editor beside the case, over its verdict.
  for (const line of lines) {
    run.appendOutput(`${line}\r\n`, undefined, test);
  }
  context.recorder?.result({
    path: pathOf(file, test),
    state,
    messages: messages.map((m) => ({ text: typeof m.message === 'string' ? m.message : m.message.value, expected: m.expectedOutput, actual: m.actualOutput, line: m.location?.range.start.line, contextValue: m.contextValue })),
    output: lines,
    durationMs: duration,
  });
}

/** Why an item failed or could not be checked: a message per such check, at the check's place, with a diff where one helps. */
function resultMessages(file: SuiteFile, suiteCase: SuiteCase, result: SuiteItemResult): vscode.TestMessage[] {
  const at = (check?: CheckResult) => new vscode.Location(file.uri, toRange(check?.range ?? suiteCase.range));
  const messages: vscode.TestMessage[] = [];
  const add = (message: vscode.TestMessage, check?: CheckResult) => {
    message.location = at(check);
    message.contextValue = RESULT_MESSAGE_CONTEXT;
    messages.push(message);
  };
  if (result.error) {
    add(new vscode.TestMessage(stripControls(result.error)));
  }
  for (const check of result.checks) {
    if (check.status !== 'failed' && check.status !== 'error') {
      continue;
    }
    const text = stripControls(`${check.type}: ${check.message}`);
    // A diff view where the two sides are values to compare (equals); elsewhere the words say it better.
    if (check.type === 'equals' && check.expected !== undefined && check.actual !== undefined) {
      add(vscode.TestMessage.diff(text, stripControls(check.expected), stripControls(check.actual)), check);
      continue;
    }
    const parts = [text];
    if (check.diff) {
      parts.push(stripControls(check.diff));
    }
    if (check.actual !== undefined && check.type !== 'judge') {
      const shown = check.actual.length > SHOWN_OUTPUT_CHARS ? `${check.actual.slice(0, SHOWN_OUTPUT_CHARS)}…` : check.actual;
      parts.push(`${vscode.l10n.t('The output:')}\n${stripControls(shown)}`);
    }
    add(new vscode.TestMessage(parts.join('\n\n')), check);
  }
  return messages;
}

/** The item's lines in the test output: the verdict with time, tokens and cost, its run, then every check. */
function resultLines(context: SuiteRunContext, result: SuiteItemResult, crew: Crew): string[] {
  const mark = { passed: '✔', failed: '✘', error: '!', skipped: '–' }[result.outcome];
  const measures = [
    result.durationSeconds !== undefined ? vscode.l10n.t('{0} s', result.durationSeconds.toFixed(1)) : undefined,
    result.totalTokens !== undefined ? vscode.l10n.t('{0} tokens', result.totalTokens.toLocaleString('en-US')) : undefined,
    result.estimatedCostUsd !== undefined ? vscode.l10n.t('about ${0}', result.estimatedCostUsd.toFixed(4)) : undefined,
  ].filter((m) => m !== undefined);
  const lines = [`${mark} ${result.itemId} — ${outcomeWord(result.outcome)}${measures.length > 0 ? ` · ${measures.join(' · ')}` : ''}`];
  if (result.error) {
    lines.push(`    ${result.error}`);
  }
  if (result.runId) {
    const run = context.services.runs.get(result.runId);
    lines.push(`    ${vscode.l10n.t('Run "{0}" of {1}: Open Run from the case\'s menu, or find it in the Crew Runs view.', run?.label ?? result.runId, crew.name)}`);
  }
  for (const check of result.checks) {
    lines.push(`    [${check.status}] ${check.type}: ${check.message.split('\n', 1)[0]}`);
  }
  return lines.map((line) => stripControls(line).replace(/\r?\n/g, ' '));
}

function outcomeWord(outcome: SuiteItemResult['outcome']): string {
  switch (outcome) {
    case 'passed':
      return vscode.l10n.t('passed');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'error':
      return vscode.l10n.t('error');
    case 'skipped':
      return vscode.l10n.t('skipped');
  }
}

function pathOf(file: SuiteFile, test: vscode.TestItem): string[] {
  const path: string[] = [];
  for (let item: vscode.TestItem | undefined = test; item; item = item.parent) {
    path.unshift(item.id);
  }
  return path[0] === file.key ? path : [file.key, ...path];
}

/** A paused suite: true when the crew may be tried again (its token changed; a while passed), false when stopped. */
function waitForCrew(services: Services, crew: Crew, forToken: boolean, retryMs: number, token: vscode.CancellationToken): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const done = (goOn: boolean) => {
      clearTimeout(timer);
      subscriptions.dispose();
      resolve(goOn);
    };
    const timer = forToken ? undefined : setTimeout(() => done(true), retryMs);
    const subscriptions = vscode.Disposable.from(
      token.onCancellationRequested(() => done(false)),
      services.tokens.onDidChange((url) => url === crew.url && done(true)),
    );
    if (token.isCancellationRequested) {
      done(false);
    }
  });
}

function sleep(ms: number, token: vscode.CancellationToken): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      resolve();
    }, ms);
    const subscription = token.onCancellationRequested(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
