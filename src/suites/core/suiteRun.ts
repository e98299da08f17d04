// A suite's items (a case per repeat) and a suite run's record: the results of its items, and what they add up to.
import * as l10n from '@vscode/l10n';
import { caseOutcome } from './checks';
import type { CaseOutcome, CheckResult, RunFacts, Suite, SuiteItem, SuiteItemResult, SuiteRunRecord } from './types';

/** The id of a case's `repeat`-th run (1-based) among `of`: the case's name when it runs once. */
export function suiteItemId(caseName: string, repeat: number, of: number): string {
  return of > 1 ? `${caseName} #${repeat}` : caseName;
}

/** The runs a suite (or the chosen cases of it) makes, in file order: one per case and repeat. */
export function suiteItems(suite: Suite, caseNames?: ReadonlySet<string>): SuiteItem[] {
  const items: SuiteItem[] = [];
  for (const suiteCase of suite.cases) {
    if (caseNames && !caseNames.has(suiteCase.name)) {
      continue;
    }
    for (let repeat = 1; repeat <= suiteCase.repeat; repeat++) {
      items.push({ id: suiteItemId(suiteCase.name, repeat, suiteCase.repeat), caseName: suiteCase.name, repeat });
    }
  }
  return items;
}

/** An item's result from its run's facts and its checks' results (the outcome decided by caseOutcome). */
export function suiteItemResult(item: SuiteItem, checks: CheckResult[], facts: RunFacts, runId?: string, estimatedCostUsd?: number): SuiteItemResult {
  const result: SuiteItemResult = { itemId: item.id, caseName: item.caseName, repeat: item.repeat, outcome: caseOutcome(checks, facts), checks };
  if (facts.durationSeconds !== undefined) {
    result.durationSeconds = facts.durationSeconds;
  }
  if (facts.totalTokens !== undefined) {
    result.totalTokens = facts.totalTokens;
  }
  if (estimatedCostUsd !== undefined) {
    result.estimatedCostUsd = estimatedCostUsd;
  }
  if (runId !== undefined) {
    result.runId = runId;
  }
  return result;
}

/** An item that has no run to check (its kickoff failed, the crew went away): an error, with why. */
export function suiteItemError(item: SuiteItem, error: string, runId?: string): SuiteItemResult {
  return { itemId: item.id, caseName: item.caseName, repeat: item.repeat, outcome: 'error', checks: [], error, ...(runId !== undefined ? { runId } : {}) };
}

export interface SuiteTally {
  passed: number;
  failed: number;
  skipped: number;
  error: number;
  total: number;
  durationSeconds: number;
  totalTokens: number;
  /** Undefined when no item's cost is known. */
  estimatedCostUsd?: number;
}

export function tallySuiteRun(record: SuiteRunRecord): SuiteTally {
  const tally: SuiteTally = { passed: 0, failed: 0, skipped: 0, error: 0, total: record.items.length, durationSeconds: 0, totalTokens: 0 };
  for (const item of record.items) {
    tally[item.outcome]++;
    tally.durationSeconds += item.durationSeconds ?? 0;
    tally.totalTokens += item.totalTokens ?? 0;
    if (item.estimatedCostUsd !== undefined) {
      tally.estimatedCostUsd = (tally.estimatedCostUsd ?? 0) + item.estimatedCostUsd;
    }
  }
  return tally;
}

/** Whether a suite run should fail a CI step: any item failed or could not be evaluated. */
export function suiteRunFailed(record: SuiteRunRecord): boolean {
  return record.items.some((item) => item.outcome === 'failed' || item.outcome === 'error');
}

/** Counts of outcomes as a short line, `3 passed, 1 failed, 2 skipped` (zero counts but passed and failed left out). */
export function outcomeLine(counts: Readonly<Record<CaseOutcome, number>>): string {
  const parts = [l10n.t('{0} passed', counts.passed), l10n.t('{0} failed', counts.failed)];
  if (counts.error > 0) {
    parts.push(l10n.t('{0} errors', counts.error));
  }
  if (counts.skipped > 0) {
    parts.push(l10n.t('{0} skipped', counts.skipped));
  }
  return parts.join(', ');
}

export type { SuiteItemResult };
