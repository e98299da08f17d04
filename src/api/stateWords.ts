// The state words crew servers send ("SUCCESS", "in progress", "Not-Found"…) and the run states they mean. Pure and
// tiny: the run view reads it too, without the status normaliser.
import type { RunState } from './types';

const STATE_BY_WORD: ReadonlyMap<string, RunState> = new Map<string, RunState>([
  ['PENDING', 'queued'],
  ['QUEUED', 'queued'],
  ['RECEIVED', 'queued'],
  ['STARTED', 'running'],
  ['RUNNING', 'running'],
  ['RETRY', 'running'],
  ['PAUSED', 'awaitingFeedback'],
  ['PENDING_HUMAN_INPUT', 'awaitingFeedback'],
  ['AWAITING_HUMAN_INPUT', 'awaitingFeedback'],
  ['SUCCESS', 'succeeded'],
  ['COMPLETED', 'succeeded'],
  ['SUCCEEDED', 'succeeded'],
  ['DONE', 'succeeded'],
  ['FINISHED', 'succeeded'],
  ['FAILED', 'failed'],
  ['FAILURE', 'failed'],
  ['ERROR', 'failed'],
  ['REVOKED', 'cancelled'],
  ['CANCELLED', 'cancelled'],
  ['CANCELED', 'cancelled'],
  ['STOPPED', 'cancelled'],
  ['NOT_FOUND', 'notFound'],
]);

/** "not found", "Not-Found", " NOT FOUND " → 'notFound'; any word outside the table → 'unknown'. */
export function normaliseStateWord(word: string): RunState {
  if (typeof word !== 'string') {
    return 'unknown';
  }
  const key = word.trim().toUpperCase().replace(/[\s-]+/g, '_');
  return STATE_BY_WORD.get(key) ?? 'unknown';
}

/** Words around a state in a server's sentence ("Task is Running", "The crew has completed.") that add nothing. */
const FILLER = new Set(['the', 'a', 'task', 'tasks', 'crew', 'run', 'job', 'flow', 'kickoff', 'execution', 'is', 'has', 'been', 'now', 'currently', 'status', 'state']);

/** Whether a server's message only repeats the run's state ("Task is Running" on a running run): shown, it is noise. */
export function messageRepeatsState(message: string | undefined, state: RunState): boolean {
  if (message === undefined || state === 'unknown') {
    return false;
  }
  const words = message.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, ' ').split(/\s+/).filter((w) => w && !FILLER.has(w));
  return words.length > 0 && words.length <= 2 && normaliseStateWord(words.join('_')) === state;
}
