// A suite's items (a case per repeat) and a suite run's record: the results of its items, and what they add up to.
import type { CaseOutcome, Suite, SuiteItem, SuiteItemResult, SuiteRunRecord } from './types';

/** The runs a suite (or the chosen cases of it) makes, in file order: one per case and repeat. */
export function suiteItems(suite: Suite, caseNames?: ReadonlySet<string>): SuiteItem[] {
  void suite;
  void caseNames;
  throw new Error('suiteItems: not written yet');
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
  void record;
  throw new Error('tallySuiteRun: not written yet');
}

/** Whether a suite run should fail a CI step: any item failed or could not be evaluated. */
export function suiteRunFailed(record: SuiteRunRecord): boolean {
  void record;
  throw new Error('suiteRunFailed: not written yet');
}

/** Counts of outcomes as a short line, `3 passed, 1 failed, 2 skipped`. */
export function outcomeLine(counts: Readonly<Record<CaseOutcome, number>>): string {
  void counts;
  throw new Error('outcomeLine: not written yet');
}

export type { SuiteItemResult };
