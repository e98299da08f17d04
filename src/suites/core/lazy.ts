// What the extension loads on first use of suites (dist/suites.js, esbuild.js lazyModules): `yaml`, `ajv` and every
// function of the suite core. Outside src/suites/core/ and the terminal runner, only `import()` it (or import types):
// the main bundle must never carry these (.dependency-cruiser.cjs `suite-core-is-lazy`). The bundle is also the suite
// reader's worker (parseThread.ts), so it has no `vscode`: call useTranslations(vscode.l10n.bundle) once after loading
// it, and hand the same to SuiteParser ({ l10nContents }).
//
// A suite run, as the terminal runner does it (../terminal/runSuite.ts) and the Test Explorer can:
//   const suites = await import('./core/lazy'); suites.useTranslations(vscode.l10n.bundle);
//   const parser = new suites.SuiteParser({ l10nContents: vscode.l10n.bundle });   // off the host's thread
//   const { suite, problems } = await parser.parse(text, name);                     // problems → diagnostics
//   for (const item of suites.suiteItems(suite, chosenCaseNames)) { … kick off item's case, wait for its end …
//     const facts = suites.factsFromSnapshot(lastStatus, seconds);                    // or from the run's record
//     const checks = await suites.evaluateCase(suiteCase, facts, { patterns, judge });
//     results.push(suites.suiteItemResult(item, checks, facts, runId, estimatedCostUsd)); }
//   record → compareSuiteRuns(record, baseline), junitXml(record), markdownSummary(record, comparison)
// One PatternRunner per suite run (it remembers patterns that ran out of time); judge: a JudgeModel or undefined.
import * as l10n from '@vscode/l10n';

/** Gives this bundle's words the extension's translations (`vscode.l10n.bundle`; undefined: English). */
export function useTranslations(contents: Record<string, string> | undefined): void {
  if (contents) {
    l10n.config({ contents });
  }
}

export { CHECK_TYPES, isSuiteFileName, parseSuite, SUITE_FILE_GLOB } from './suiteFile';
export { SuiteParser } from './parseThread';
export { matcherLabel, parseTextMatcher, patternProblem, PatternRunner } from './pattern';
export { caseOutcome, evaluateCase, evaluateChecks, evaluateDeterministic, outputJson } from './checks';
export { buildJudgePrompt, parseJudgeAnswer, runJudge } from './judge';
export { outcomeLine, suiteItemError, suiteItemId, suiteItemResult, suiteItems, suiteRunFailed, tallySuiteRun } from './suiteRun';
export { compareSuiteRuns, comparisonSummary, DEFAULT_THRESHOLDS, hasRegressions } from './baseline';
export { junitXml, markdownSummary } from './reports';
export { factsFromSnapshot, totalTokens } from './facts';
export { CHECK_LIMITS, JUDGE_LIMITS, SUITE_LIMITS } from './limits';
