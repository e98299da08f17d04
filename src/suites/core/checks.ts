// Evaluating a case's checks on a finished run's facts: pass, fail, skipped or error per check, each with a message
// a person reads (expected vs actual, a short diff for equals). Pure; the judge's model call is injected.
import type { JudgeModel } from './judge';
import type { PatternRunner } from './pattern';
import type { CaseOutcome, Check, CheckResult, RunFacts } from './types';

export interface CheckEnvironment {
  patterns: PatternRunner;
  /** The editor's language model; undefined: judge checks are skipped ("no language model"). */
  judge?: JudgeModel;
  /** The case's inputs, shown to the judge (bounded). */
  inputs?: unknown;
  signal?: AbortSignal;
}

/** Every check but the judge, synchronously (a judge check is left for `evaluateChecks`, which skips it without a model). */
export function evaluateDeterministic(check: Exclude<Check, { type: 'judge' }>, facts: RunFacts, patterns: PatternRunner): CheckResult {
  void check;
  void facts;
  void patterns;
  throw new Error('evaluateDeterministic: not written yet');
}

/** Every check of a case, in order; judge checks ask the model (or are skipped without one). Never throws. */
export async function evaluateChecks(checks: readonly Check[], facts: RunFacts, env: CheckEnvironment): Promise<CheckResult[]> {
  void checks;
  void facts;
  void env;
  throw new Error('evaluateChecks: not written yet');
}

/**
 * A case run's verdict from its checks: failed if any failed, else error if any could not be evaluated, else skipped
 * if none passed, else passed. A case without checks passes when its run succeeded.
 */
export function caseOutcome(results: readonly CheckResult[], facts: RunFacts): CaseOutcome {
  void results;
  void facts;
  throw new Error('caseOutcome: not written yet');
}
