// What the extension loads on first use of suites (dist/suites.js, esbuild.js lazyModules): `yaml`, `ajv` and every
// function of the suite core. Outside src/suites/core/ and the terminal runner, only `import()` it (or import types):
// the main bundle must never carry these (.dependency-cruiser.cjs `suite-core-is-lazy`). The bundle is also the suite
// reader's worker (parseThread.ts), so it has no `vscode`: call useTranslations(vscode.l10n.bundle) once after loading
// it, and hand the same to SuiteParser ({ l10nContents }).
import * as l10n from '@vscode/l10n';

/** Gives this bundle's words the extension's translations (`vscode.l10n.bundle`; undefined: English). */
export function useTranslations(contents: Record<string, string> | undefined): void {
  if (contents) {
    l10n.config({ contents });
  }
}

export { CHECK_TYPES, isSuiteFileName, parseSuite, SUITE_FILE_GLOB } from './suiteFile';
export { SuiteParser } from './parseThread';
export { parseTextMatcher, patternProblem, PatternRunner } from './pattern';
export { caseOutcome, evaluateChecks, evaluateDeterministic } from './checks';
export { buildJudgePrompt, parseJudgeAnswer, runJudge } from './judge';
export { outcomeLine, suiteItems, suiteRunFailed, tallySuiteRun } from './suiteRun';
export { compareSuiteRuns, comparisonSummary, DEFAULT_THRESHOLDS, hasRegressions } from './baseline';
export { junitXml, markdownSummary } from './reports';
export { factsFromSnapshot } from './facts';
export { CHECK_LIMITS, JUDGE_LIMITS, SUITE_LIMITS } from './limits';
