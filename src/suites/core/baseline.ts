// A suite run compared with an earlier one (the previous run, or a pinned baseline): what regressed, what was
// fixed, scores that dropped, items that got slower or costlier past a threshold, items new or gone. Pure.
import type { CaseOutcome, SuiteRunRecord } from './types';

export interface ComparisonThresholds {
  /** A judge score that dropped by at least this much (0–1). */
  scoreDrop: number;
  /** Slower: took at least this factor of the baseline's time… */
  slowerFactor: number;
  /** …and at least this many seconds more (so a 1 s run taking 2 s is not a regression). */
  slowerSeconds: number;
  /** Costlier: at least this factor of the baseline's tokens (or cost, when both are known)… */
  costlierFactor: number;
  /** …and at least this many tokens more. */
  costlierTokens: number;
}

export const DEFAULT_THRESHOLDS: ComparisonThresholds = { scoreDrop: 0.1, slowerFactor: 1.5, slowerSeconds: 5, costlierFactor: 1.5, costlierTokens: 500 };

export interface OutcomeChange {
  itemId: string;
  from: CaseOutcome;
  to: CaseOutcome;
}

export interface ScoreDrop {
  itemId: string;
  /** The judge check's position among the item's checks (an item may have several judges). */
  check: number;
  from: number;
  to: number;
}

export interface MeasureChange {
  itemId: string;
  from: number;
  to: number;
}

export interface SuiteRunComparison {
  baselineId: string;
  baselineStartedAt: number;
  /** Passed before, failed or error now. */
  regressions: OutcomeChange[];
  /** Failed or error before, passed now. */
  fixed: OutcomeChange[];
  scoreDrops: ScoreDrop[];
  slower: MeasureChange[];
  /** In tokens, or in estimated USD when both runs know their cost. */
  costlier: (MeasureChange & { unit: 'tokens' | 'usd' })[];
  added: string[];
  removed: string[];
}

/** Compares `current` with `baseline`, item by item (items matched by id). */
export function compareSuiteRuns(current: SuiteRunRecord, baseline: SuiteRunRecord, thresholds: ComparisonThresholds = DEFAULT_THRESHOLDS): SuiteRunComparison {
  void current;
  void baseline;
  void thresholds;
  throw new Error('compareSuiteRuns: not written yet');
}

/** Whether a comparison names anything worse (a regression, a score drop, slower, costlier). */
export function hasRegressions(comparison: SuiteRunComparison): boolean {
  return comparison.regressions.length + comparison.scoreDrops.length + comparison.slower.length + comparison.costlier.length > 0;
}

/** The comparison in one short paragraph for a person (a notification, the top of the Markdown summary). */
export function comparisonSummary(comparison: SuiteRunComparison): string {
  void comparison;
  throw new Error('comparisonSummary: not written yet');
}
