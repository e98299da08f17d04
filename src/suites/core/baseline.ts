// A suite run compared with an earlier one (the previous run, or a pinned baseline): what regressed, what was
// fixed, scores that dropped, items that got slower or costlier past a threshold, items new or gone. Pure.
import * as l10n from '@vscode/l10n';
import type { CaseOutcome, SuiteItemResult, SuiteRunRecord } from './types';

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

/** Compares `current` with `baseline`, item by item (items matched by id). Linear in the items. */
export function compareSuiteRuns(current: SuiteRunRecord, baseline: SuiteRunRecord, thresholds: ComparisonThresholds = DEFAULT_THRESHOLDS): SuiteRunComparison {
  const before = new Map(baseline.items.map((item) => [item.itemId, item]));
  const comparison: SuiteRunComparison = {
    baselineId: baseline.id,
    baselineStartedAt: baseline.startedAt,
    regressions: [],
    fixed: [],
    scoreDrops: [],
    slower: [],
    costlier: [],
    added: [],
    removed: [],
  };
  const seen = new Set<string>();
  for (const now of current.items) {
    seen.add(now.itemId);
    const then = before.get(now.itemId);
    if (!then) {
      comparison.added.push(now.itemId);
      continue;
    }
    const change = { itemId: now.itemId, from: then.outcome, to: now.outcome };
    if (then.outcome === 'passed' && (now.outcome === 'failed' || now.outcome === 'error')) {
      comparison.regressions.push(change);
    } else if ((then.outcome === 'failed' || then.outcome === 'error') && now.outcome === 'passed') {
      comparison.fixed.push(change);
    }
    const scoresThen = judgeScores(then);
    judgeScores(now).forEach((score, check) => {
      const earlier = scoresThen.get(check);
      if (earlier !== undefined && earlier - score >= thresholds.scoreDrop - 1e-9) {
        comparison.scoreDrops.push({ itemId: now.itemId, check, from: earlier, to: score });
      }
    });
    // Slower and costlier compare runs that both ended well: a failure's time or tokens say little.
    if (now.outcome === 'passed' && then.outcome === 'passed') {
      if (grew(then.durationSeconds, now.durationSeconds, thresholds.slowerFactor, thresholds.slowerSeconds)) {
        comparison.slower.push({ itemId: now.itemId, from: then.durationSeconds!, to: now.durationSeconds! });
      }
      if (then.estimatedCostUsd !== undefined && now.estimatedCostUsd !== undefined) {
        const minUsd = 0.0001;
        if (grew(then.estimatedCostUsd, now.estimatedCostUsd, thresholds.costlierFactor, minUsd)) {
          comparison.costlier.push({ itemId: now.itemId, from: then.estimatedCostUsd, to: now.estimatedCostUsd, unit: 'usd' });
        }
      } else if (grew(then.totalTokens, now.totalTokens, thresholds.costlierFactor, thresholds.costlierTokens)) {
        comparison.costlier.push({ itemId: now.itemId, from: then.totalTokens!, to: now.totalTokens!, unit: 'tokens' });
      }
    }
  }
  for (const item of baseline.items) {
    if (!seen.has(item.itemId)) {
      comparison.removed.push(item.itemId);
    }
  }
  return comparison;
}

/** The judge scores of an item, by the judge check's position among its checks. */
function judgeScores(item: SuiteItemResult): Map<number, number> {
  const scores = new Map<number, number>();
  item.checks.forEach((check, index) => {
    if (check.type === 'judge' && check.score !== undefined) {
      scores.set(index, check.score);
    }
  });
  return scores;
}

function grew(from: number | undefined, to: number | undefined, factor: number, by: number): boolean {
  return from !== undefined && to !== undefined && to >= from * factor && to - from >= by;
}

/** Whether a comparison names anything worse (a regression, a score drop, slower, costlier). */
export function hasRegressions(comparison: SuiteRunComparison): boolean {
  return comparison.regressions.length + comparison.scoreDrops.length + comparison.slower.length + comparison.costlier.length > 0;
}

/** The comparison in one short paragraph for a person (a notification, the top of the Markdown summary). */
export function comparisonSummary(comparison: SuiteRunComparison): string {
  const parts: string[] = [];
  const names = (ids: readonly string[]): string => {
    const shown = ids.slice(0, 3).map((id) => `"${id}"`).join(', ');
    return ids.length > 3 ? l10n.t('{0} and {1} more', shown, ids.length - 3) : shown;
  };
  if (comparison.regressions.length > 0) {
    parts.push(l10n.t('{0} went from pass to fail: {1}.', comparison.regressions.length, names(comparison.regressions.map((c) => c.itemId))));
  }
  if (comparison.scoreDrops.length > 0) {
    parts.push(l10n.t('{0} judge scores dropped: {1}.', comparison.scoreDrops.length, names(comparison.scoreDrops.map((c) => c.itemId))));
  }
  if (comparison.slower.length > 0) {
    parts.push(l10n.t('{0} slower: {1}.', comparison.slower.length, names(comparison.slower.map((c) => c.itemId))));
  }
  if (comparison.costlier.length > 0) {
    parts.push(l10n.t('{0} costlier: {1}.', comparison.costlier.length, names(comparison.costlier.map((c) => c.itemId))));
  }
  if (comparison.fixed.length > 0) {
    parts.push(l10n.t('{0} fixed: {1}.', comparison.fixed.length, names(comparison.fixed.map((c) => c.itemId))));
  }
  if (comparison.added.length + comparison.removed.length > 0) {
    parts.push(l10n.t('{0} new, {1} gone.', comparison.added.length, comparison.removed.length));
  }
  return parts.length > 0 ? parts.join(' ') : l10n.t('No change from the baseline.');
}
