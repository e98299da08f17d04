// A finished run's facts, for the checks, from what the crew's status said.
import type { StatusSnapshot } from '../../api/types';
import type { RunFacts } from './types';

/**
 * The facts of a run from its last status snapshot. `durationSeconds` is the caller's measure (kickoff to end) when
 * the status does not say; tokens are the status's `total_tokens` (else prompt + completion tokens).
 */
export function factsFromSnapshot(snapshot: StatusSnapshot, durationSeconds?: number): RunFacts {
  const state: RunFacts['state'] =
    snapshot.state === 'succeeded' || snapshot.state === 'failed' || snapshot.state === 'cancelled' || snapshot.state === 'notFound' ? snapshot.state : 'timedOut';
  const facts: RunFacts = { state };
  if (snapshot.finalOutput) {
    facts.output = snapshot.finalOutput.text;
    if (snapshot.finalOutput.kind === 'json' && snapshot.finalOutput.json !== undefined) {
      facts.outputJson = snapshot.finalOutput.json;
    }
  }
  const seconds = snapshot.executionTime ?? durationSeconds;
  if (seconds !== undefined) {
    facts.durationSeconds = seconds;
  }
  const tokens = totalTokens(snapshot.usage);
  if (tokens !== undefined) {
    facts.totalTokens = tokens;
  }
  const error = snapshot.error ?? (state === 'failed' ? snapshot.message : undefined);
  if (error) {
    facts.error = error;
  }
  return facts;
}

/** A usage's total: `total_tokens`, else prompt + completion tokens; undefined when it says neither. */
export function totalTokens(usage: Readonly<Record<string, number>> | undefined): number | undefined {
  if (!usage) {
    return undefined;
  }
  const total = usage['total_tokens'] ?? usage['totalTokens'];
  if (total !== undefined) {
    return total;
  }
  const prompt = usage['prompt_tokens'] ?? usage['promptTokens'];
  const completion = usage['completion_tokens'] ?? usage['completionTokens'];
  return prompt === undefined && completion === undefined ? undefined : (prompt ?? 0) + (completion ?? 0);
}
