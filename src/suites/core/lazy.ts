// What the extension loads on first use of suites (dist/suites.js, esbuild.js lazyModules): `yaml`, `ajv` and every
// function of the suite core. Outside src/suites/core/ and the terminal runner, only `import()` it (or import types):
// the main bundle must never carry these (.dependency-cruiser.cjs `suite-core-is-lazy`).
export { isSuiteFileName, parseSuite, SUITE_FILE_GLOB } from './suiteFile';
export { parseTextMatcher, patternProblem, PatternRunner } from './pattern';
export { caseOutcome, evaluateChecks, evaluateDeterministic } from './checks';
export { buildJudgePrompt, parseJudgeAnswer, runJudge } from './judge';
export { outcomeLine, suiteItems, suiteRunFailed, tallySuiteRun } from './suiteRun';
export { compareSuiteRuns, comparisonSummary, DEFAULT_THRESHOLDS, hasRegressions } from './baseline';
export { junitXml, markdownSummary } from './reports';
export { factsFromSnapshot } from './facts';
export { CHECK_LIMITS, JUDGE_LIMITS, SUITE_LIMITS } from './limits';
