// The judge's pure parts: the prompt (the crew's output fenced and labelled untrusted, every part bounded), the
// strict reading of the answer (a score 0–1 and a reason, nothing else), and the bounded retries. The model call is
// the caller's (`JudgeModel`): the editor's language model in VS Code, none from a terminal.
import type { CheckResult, JudgeCheck, RunFacts } from './types';

/** What the model is sent: instructions (a system-like first message) and the material to judge. */
export interface JudgePrompt {
  instructions: string;
  material: string;
}

/** Asks the model once; resolves to its whole answer text. Throws when the model cannot be asked (then: error). */
export type JudgeModel = (prompt: JudgePrompt, signal?: AbortSignal) => Promise<string>;

export interface JudgeVerdict {
  score: number;
  reason: string;
}

/** The prompt for one judge check of one run's output. */
export function buildJudgePrompt(criteria: string, output: string, inputs?: unknown): JudgePrompt {
  void criteria;
  void output;
  void inputs;
  throw new Error('buildJudgePrompt: not written yet');
}

/**
 * Reads an answer strictly: one JSON object `{"score": <0…1>, "reason": "<text>"}` (alone, or alone in a ```json
 * fence); anything else (prose, a score out of range, extra text, too long) is undefined.
 */
export function parseJudgeAnswer(answer: string): JudgeVerdict | undefined {
  void answer;
  throw new Error('parseJudgeAnswer: not written yet');
}

/**
 * One judge check: skipped without a model ("no language model") or without output; asked up to
 * JUDGE_LIMITS.attempts times until the answer is a score; then passed/failed against the threshold, or error
 * ("the judge's answer was not a score").
 */
export async function runJudge(check: JudgeCheck, facts: RunFacts, model: JudgeModel | undefined, inputs?: unknown, signal?: AbortSignal): Promise<CheckResult> {
  void check;
  void facts;
  void model;
  void inputs;
  void signal;
  throw new Error('runJudge: not written yet');
}
