// The caps of a suite and of its checks: each keeps the extension host responsive on a hostile or mistaken suite
// file or crew output. What passes a cap is said (a problem at its line, or a check's message), never silently cut.

export const SUITE_LIMITS = {
  /** A larger suite file is refused whole (the parser holds it in memory twice). */
  fileBytes: 16 * 1024 * 1024,
  /** Cases past this many are left out, with a warning at the first one left out. */
  cases: 10_000,
  /** A case's `repeat` is clamped to this. */
  repeat: 100,
  /** Runs at a time: `concurrency` is clamped to 1…this. */
  concurrency: 16,
  defaultConcurrency: 4,
  /** A case name (one line; longer is cut and said). */
  nameChars: 200,
  /** An `equals` expected value (as text or JSON text): longer is refused and said. */
  expectedChars: 5 * 1024 * 1024,
  /** A `/pattern/`'s source. */
  patternChars: 1000,
  /** A JSON Schema, as JSON text. */
  schemaChars: 256 * 1024,
  /** A judge's criteria. */
  criteriaChars: 4000,
} as const;

export const CHECK_LIMITS = {
  /** The output a text or pattern check reads: past this it reads the start and says so. */
  matchInputChars: 1024 * 1024,
  /** How long one pattern may run on one output before it is stopped (a backtracking pattern) and refused from then on. */
  patternTimeoutMs: 250,
  /** Expected and actual values a result carries for a diff view. */
  shownValueChars: 64 * 1024,
  /** Lines of a short diff. */
  diffLines: 20,
  /** One diff line. */
  diffLineChars: 200,
} as const;

export const JUDGE_LIMITS = {
  /** The crew's output the judge is shown: the start, and how much was left out. */
  outputChars: 24_000,
  /** The case's inputs the judge is shown (JSON text). */
  inputsChars: 4000,
  /** A longer answer is not a score. */
  answerChars: 4000,
  /** A reason kept from an answer. */
  reasonChars: 500,
  /** Asks per judge check: a bad answer is asked again until this many. */
  attempts: 3,
} as const;
