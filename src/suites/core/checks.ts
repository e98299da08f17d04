// Evaluating a case's checks on a finished run's facts: pass, fail, skipped or error per check, each with a message
// a person reads (expected vs actual, a short diff for equals). Pure; the judge's model call is injected.
// Text checks read the output; a failed run without output has its error message read instead (a case that expects
// a failure can check why). A case without a `state` check expects its run to succeed.
import { isDeepStrictEqual } from 'node:util';
import * as l10n from '@vscode/l10n';
import { shortDiff } from './diff';
import { runJudge, type JudgeModel } from './judge';
import { CHECK_LIMITS } from './limits';
import { matcherLabel, type PatternRunner } from './pattern';
import { validateAgainstSchema } from './schemaCheck';
import type { CaseOutcome, Check, CheckResult, RunFacts, StateCheck, SuiteCase } from './types';

export interface CheckEnvironment {
  patterns: PatternRunner;
  /** The editor's language model; undefined: judge checks are skipped ("no language model"). */
  judge?: JudgeModel;
  /** The case's inputs, shown to the judge (bounded). */
  inputs?: unknown;
  signal?: AbortSignal;
}

type DeterministicCheck = Exclude<Check, { type: 'judge' }>;

/** Every check but the judge, synchronously (a judge check is left for `evaluateChecks`, which skips it without a model). */
export function evaluateDeterministic(check: DeterministicCheck, facts: RunFacts, patterns: PatternRunner): CheckResult {
  const result = (status: CheckResult['status'], message: string, extra: Partial<CheckResult> = {}): CheckResult => ({
    type: check.type,
    status,
    message,
    range: check.range,
    ...extra,
  });
  switch (check.type) {
    case 'state': {
      const passed = facts.state === check.expected;
      return result(
        passed ? 'passed' : 'failed',
        passed ? l10n.t('The run {0}, as expected.', stateWord(facts.state)) : l10n.t('Expected the run to have {0}; it {1}.', stateWord(check.expected), stateWord(facts.state)) + errorSuffix(facts),
        passed ? {} : { expected: check.expected, actual: facts.state },
      );
    }
    case 'contains':
    case 'notContains': {
      const text = checkedText(facts);
      if (text === undefined) {
        return result('failed', l10n.t('The run has no output to check.') + errorSuffix(facts));
      }
      const found = patterns.test(check.matcher, text);
      if ('error' in found) {
        return result('error', found.error);
      }
      const label = matcherLabel(check.matcher);
      const cutNote = found.cut ? ' ' + l10n.t('(Only the first {0} characters of the output were read.)', CHECK_LIMITS.matchInputChars) : '';
      const wanted = check.type === 'contains';
      if (found.matched === wanted) {
        return result('passed', (wanted ? l10n.t('The output contains {0}.', label) : l10n.t('The output does not contain {0}.', label)) + cutNote);
      }
      return result(
        'failed',
        (wanted ? l10n.t('Expected the output to contain {0}; it does not.', label) : l10n.t('Expected the output not to contain {0}; it does.', label)) + cutNote,
        { expected: wanted ? label : l10n.t('not {0}', label), actual: shown(text) },
      );
    }
    case 'equals':
      return equalsResult(check.expected, facts, result);
    case 'jsonSchema': {
      const json = outputJson(facts);
      if (!json.ok) {
        return result('failed', l10n.t('Expected the output to be JSON matching the schema; it is not JSON.'), { actual: shown(facts.output ?? '') });
      }
      const verdict = validateAgainstSchema(check.schema, json.value);
      if ('error' in verdict) {
        return result('error', verdict.error);
      }
      return verdict.valid
        ? result('passed', l10n.t('The output matches the schema.'))
        : result('failed', l10n.t('The output does not match the schema: {0}', verdict.message), { actual: shown(JSON.stringify(json.value, null, 2)) });
    }
    case 'maxSeconds':
      if (facts.durationSeconds === undefined) {
        return result('skipped', l10n.t("The run's duration is not known."));
      }
      return facts.durationSeconds <= check.seconds
        ? result('passed', l10n.t('The run took {0} s (at most {1} s).', round(facts.durationSeconds), check.seconds))
        : result('failed', l10n.t('Expected the run to take at most {0} s; it took {1} s.', check.seconds, round(facts.durationSeconds)), {
            expected: `≤ ${check.seconds} s`,
            actual: `${round(facts.durationSeconds)} s`,
          });
    case 'maxTokens':
      if (facts.totalTokens === undefined) {
        return result('skipped', l10n.t('The crew did not say how many tokens the run used.'));
      }
      return facts.totalTokens <= check.tokens
        ? result('passed', l10n.t('The run used {0} tokens (at most {1}).', facts.totalTokens, check.tokens))
        : result('failed', l10n.t('Expected the run to use at most {0} tokens; it used {1}.', check.tokens, facts.totalTokens), {
            expected: `≤ ${check.tokens}`,
            actual: String(facts.totalTokens),
          });
  }
}

/**
 * A case's results: each check the file wrote but could not be read is an error (the case never passes with it left
 * out unseen), then its checks evaluated. Never throws.
 */
export async function evaluateCase(suiteCase: Pick<SuiteCase, 'checks' | 'leftOut' | 'inputs'>, facts: RunFacts, env: Omit<CheckEnvironment, 'inputs'>): Promise<CheckResult[]> {
  const unreadable = (suiteCase.leftOut ?? []).map(
    (check): CheckResult => ({ type: 'unreadable', status: 'error', message: l10n.t('The check "{0}" was not run: {1}', check.written, check.message), range: check.range }),
  );
  return [...unreadable, ...(await evaluateChecks(suiteCase.checks, facts, { ...env, inputs: suiteCase.inputs }))];
}

/** Every check of a case, in order; judge checks ask the model (or are skipped without one). Never throws. */
export async function evaluateChecks(checks: readonly Check[], facts: RunFacts, env: CheckEnvironment): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  if (!checks.some((check) => check.type === 'state')) {
    const implicit: StateCheck = { type: 'state', expected: 'succeeded', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
    const result = evaluateDeterministic(implicit, facts, env.patterns);
    delete result.range; // Not written in the file.
    results.push({ ...result, implicit: true });
  }
  for (const check of checks) {
    try {
      results.push(check.type === 'judge' ? await runJudge(check, facts, env.judge, env.inputs, env.signal) : evaluateDeterministic(check, facts, env.patterns));
    } catch (error) {
      results.push({ type: check.type, status: 'error', message: l10n.t('The check could not be evaluated: {0}', error instanceof Error ? error.message : String(error)), range: check.range });
    }
  }
  return results;
}

/**
 * A case run's verdict from its checks: failed if any failed, else error if any could not be evaluated, else skipped
 * if every check written in the file was skipped (the implicit state check does not pass a case on its own then),
 * else passed. Without results, passed when its run succeeded.
 */
export function caseOutcome(results: readonly CheckResult[], facts: RunFacts): CaseOutcome {
  if (results.length === 0) {
    return facts.state === 'succeeded' ? 'passed' : 'failed';
  }
  if (results.some((r) => r.status === 'failed')) {
    return 'failed';
  }
  if (results.some((r) => r.status === 'error')) {
    return 'error';
  }
  const written = results.filter((r) => !r.implicit);
  if (written.length > 0 && written.every((r) => r.status === 'skipped')) {
    return 'skipped';
  }
  return results.some((r) => r.status === 'passed') ? 'passed' : 'skipped';
}

function equalsResult(expected: unknown, facts: RunFacts, result: (status: CheckResult['status'], message: string, extra?: Partial<CheckResult>) => CheckResult): CheckResult {
  if (typeof expected === 'string') {
    const actual = checkedText(facts);
    if (actual === undefined) {
      return result('failed', l10n.t('The run has no output to compare.') + errorSuffix(facts), { expected: shown(expected) });
    }
    const want = normaliseText(expected);
    const got = normaliseText(actual);
    if (want === got) {
      return result('passed', l10n.t('The output equals the expected text.'));
    }
    return result('failed', l10n.t('The output differs from the expected text.'), { expected: shown(want), actual: shown(got), diff: shortDiff(shown(want), shown(got)) });
  }
  const json = outputJson(facts);
  const want = JSON.stringify(expected, null, 2);
  if (!json.ok) {
    return result('failed', l10n.t('Expected the output to be JSON equal to the expected value; it is not JSON.'), { expected: shown(want), actual: shown(facts.output ?? '') });
  }
  if (isDeepStrictEqual(json.value, expected)) {
    return result('passed', l10n.t('The output equals the expected value.'));
  }
  const got = JSON.stringify(json.value, null, 2);
  return result('failed', l10n.t('The output differs from the expected value.'), { expected: shown(want), actual: shown(got), diff: shortDiff(shown(want), shown(got)) });
}

/** The text that text checks read: the output, else a failed run's error. */
function checkedText(facts: RunFacts): string | undefined {
  return facts.output ?? (facts.state === 'succeeded' ? undefined : facts.error);
}

/** The output as JSON: the crew's own JSON, else its text parsed (alone, or alone in a ```json fence). */
export function outputJson(facts: RunFacts): { ok: true; value: unknown } | { ok: false } {
  if (facts.outputJson !== undefined) {
    return { ok: true, value: facts.outputJson };
  }
  const text = facts.output?.trim();
  if (!text) {
    return { ok: false };
  }
  const fenced = /^```(?:json)?[ \t]*\n([\s\S]*)\n```$/.exec(text);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1] : text) as unknown };
  } catch {
    return { ok: false };
  }
}

function normaliseText(text: string): string {
  return text.replace(/\r\n?/g, '\n').trim();
}

function shown(text: string): string {
  return text.length > CHECK_LIMITS.shownValueChars ? `${text.slice(0, CHECK_LIMITS.shownValueChars)}\n… (${text.length - CHECK_LIMITS.shownValueChars} more characters)` : text;
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

function stateWord(state: RunFacts['state']): string {
  switch (state) {
    case 'succeeded':
      return l10n.t('succeeded');
    case 'failed':
      return l10n.t('failed');
    case 'cancelled':
      return l10n.t('was stopped');
    case 'notFound':
      return l10n.t('was not found');
    case 'timedOut':
      return l10n.t('was still running at the deadline');
  }
}

function errorSuffix(facts: RunFacts): string {
  if (!facts.error) {
    return '';
  }
  const oneLine = facts.error.replace(/\s+/g, ' ').trim();
  return ` (${oneLine.length > 200 ? `${oneLine.slice(0, 199)}…` : oneLine})`;
}
