// The data of a test suite of a deployed crew (issue #50): the suite file as read, the facts of one finished run,
// what each check made of them, and a suite run as kept. Data only: the Test Explorer, the terminal runner and the
// reports all read these shapes. Pure, no `vscode`.
import type { Inputs } from '../../api/inputValues';

/** A position in the suite file, 0-based like VS Code's (`line`, `character`); the CLI prints them 1-based. */
export interface SourcePosition {
  line: number;
  character: number;
}

export interface SourceRange {
  start: SourcePosition;
  end: SourcePosition;
}

/** Something wrong in a suite file, at its place: the rest of the suite stays usable. */
export interface SuiteProblem {
  range: SourceRange;
  /** `error`: that part was left out (a case, a check); `warning`: read, but not as written (a cap, a clamp). */
  severity: 'error' | 'warning';
  message: string;
}

/** A text to look for: literal text, or a `/pattern/flags` regular expression (never `g` or `y`). */
export type TextMatcher = { kind: 'text'; text: string } | { kind: 'pattern'; source: string; flags: string };

interface CheckBase {
  /** Where the check is written (its value), for a result's location. */
  range: SourceRange;
}

/** The run's end state: a case may expect its run to fail. */
export interface StateCheck extends CheckBase {
  type: 'state';
  expected: 'succeeded' | 'failed';
}

/** The output contains (or, `notContains`, does not contain) a text or a pattern. */
export interface ContainsCheck extends CheckBase {
  type: 'contains' | 'notContains';
  matcher: TextMatcher;
}

/**
 * The output equals an expected value: a string is compared with the output's text (line endings made `\n`, ends
 * trimmed); any other JSON value with the output read as JSON (deep equality).
 */
export interface EqualsCheck extends CheckBase {
  type: 'equals';
  expected: unknown;
}

/** The output is JSON that matches a JSON Schema (draft 2020-12 keywords the validator knows; formats not checked). */
export interface JsonSchemaCheck extends CheckBase {
  type: 'jsonSchema';
  schema: Record<string, unknown> | boolean;
}

export interface MaxSecondsCheck extends CheckBase {
  type: 'maxSeconds';
  seconds: number;
}

export interface MaxTokensCheck extends CheckBase {
  type: 'maxTokens';
  tokens: number;
}

/** The editor's language model scores the output 0–1 against the criteria; it passes at `threshold` or above. */
export interface JudgeCheck extends CheckBase {
  type: 'judge';
  criteria: string;
  threshold: number;
}

export type Check = StateCheck | ContainsCheck | EqualsCheck | JsonSchemaCheck | MaxSecondsCheck | MaxTokensCheck | JudgeCheck;
export type CheckType = Check['type'];

export interface SuiteCase {
  /** Unique within the suite (a duplicate is renamed `name (2)` and said): a case's id in the Test Explorer. */
  name: string;
  /** What the kickoff sends: input name → any JSON value. */
  inputs: Inputs;
  /** How many runs the case makes (1 unless said); each is a result of its own. */
  repeat: number;
  checks: Check[];
  /**
   * Checks written for the case that could not be read (an unknown type, a wrong value, a bad pattern or schema):
   * each is an error in the case's result, so a case whose checks were left out never passes unseen.
   */
  leftOut?: LeftOutCheck[];
  /** The case's item in the file (its `- name: …` mapping), for the gutter's ▶ and results. */
  range: SourceRange;
}

export interface LeftOutCheck {
  /** The check's key as written ("contains", or an unknown "smells"). */
  written: string;
  /** Why it was left out: the problem the Problems panel shows. */
  message: string;
  range: SourceRange;
}

/** Which crew a suite runs against: a URL, or the name of a crew configured in the editor. */
export type CrewReference = { kind: 'url'; url: string } | { kind: 'name'; name: string };

export interface Suite {
  name: string;
  crew?: CrewReference;
  /** How many runs at a time (SUITE_LIMITS.defaultConcurrency unless said). */
  concurrency: number;
  cases: SuiteCase[];
  /** The `name:` line, else the file's start: where the suite's ▶ goes. */
  range: SourceRange;
}

export interface ParsedSuite {
  suite: Suite;
  problems: SuiteProblem[];
}

/** One run of one case: a case with `repeat: 3` has three, `#1`…`#3`. */
export interface SuiteItem {
  /** `<case name>` when the case runs once, else `<case name> #<n>`: stable across edits that keep the name. */
  id: string;
  caseName: string;
  /** 1-based. */
  repeat: number;
}

/** What is known of a finished run, from its status: what the checks read. */
export interface RunFacts {
  /** `succeeded` or `failed` are ends; anything else (cancelled, not found, still running at a deadline) fails a state check. */
  state: 'succeeded' | 'failed' | 'cancelled' | 'notFound' | 'timedOut';
  /** The final output's text (a JSON output's pretty print). */
  output?: string;
  /** The final output as JSON, when the crew's output was JSON. */
  outputJson?: unknown;
  durationSeconds?: number;
  totalTokens?: number;
  /** The crew's failure message, for the result's text. */
  error?: string;
}

export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'error';

export interface CheckResult {
  /** The check's type; `unreadable` for a check left out of the case (SuiteCase.leftOut). */
  type: CheckType | 'unreadable';
  status: CheckStatus;
  /** One line for a person: what was expected and what came (or why it was skipped, or what went wrong). */
  message: string;
  /** For a diff view (Test Explorer's expected/actual), bounded. */
  expected?: string;
  actual?: string;
  /** A short unified-style diff of expected and actual (equals checks). */
  diff?: string;
  /** The judge's score, 0–1. */
  score?: number;
  range?: SourceRange;
  /** The `state: succeeded` a case without a state check gets: not written in the file. */
  implicit?: true;
}

/** A case run's verdict: failed if any check failed; error if one could not be evaluated; skipped if all were. */
export type CaseOutcome = 'passed' | 'failed' | 'skipped' | 'error';

export interface SuiteItemResult {
  itemId: string;
  caseName: string;
  repeat: number;
  outcome: CaseOutcome;
  checks: CheckResult[];
  durationSeconds?: number;
  totalTokens?: number;
  /** Estimated from token counts and a price table; undefined when not known. */
  estimatedCostUsd?: number;
  /** The extension's run id (or, from a terminal, the kickoff id): a link to the run. */
  runId?: string;
  /** Why the item has no run (kickoff refused, crew unreachable…). */
  error?: string;
}

/** A suite run as kept: compared with the previous run or a pinned baseline, written as JUnit or Markdown. */
export interface SuiteRunRecord {
  version: 1;
  id: string;
  suiteName: string;
  /** The suite file, relative to the workspace (or as given on the command line). */
  suiteFile?: string;
  crewUrl: string;
  startedAt: number;
  finishedAt?: number;
  items: SuiteItemResult[];
}
