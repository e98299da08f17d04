// A finished run's facts, for the checks, from what the crew's status said.
import type { StatusSnapshot } from '../../api/types';
import type { RunFacts } from './types';

/**
 * The facts of a run from its last status snapshot. `durationSeconds` is the caller's measure (kickoff to end) when
 * the status does not say; tokens are the status's `total_tokens` (else prompt + completion tokens).
 */
export function factsFromSnapshot(snapshot: StatusSnapshot, durationSeconds?: number): RunFacts {
  void snapshot;
  void durationSeconds;
  throw new Error('factsFromSnapshot: not written yet');
}
