// POST /stop/{id} (hosted, not in the public reference; crew-api.md "Stopping a run"): what its
// answers mean. The client sends it (never retried); the run's end itself is left to polling.
import { CrewApiError } from './errors';

/** What POST /stop/{id} answered, when it answered in one of the ways the API notes list. */
export type StopResult =
  | { kind: 'stopped' }
  /** 400: the run had already ended; the server's words name its state. */
  | { kind: 'alreadyEnded'; serverMessage?: string }
  /** 404 `Execution not found`: the service does not know the run. */
  | { kind: 'unknownRun'; serverMessage?: string }
  /** Generic 404 or 405: the crew does not offer stopping. */
  | { kind: 'unsupported' };

/** The stop's failure read as an answer, or undefined when it is a real failure (the caller throws it). */
export function stopResultOf(e: unknown): StopResult | undefined {
  if (!(e instanceof CrewApiError)) {
    return undefined;
  }
  if (e.status === 400) {
    return { kind: 'alreadyEnded', serverMessage: e.serverMessage };
  }
  if (e.status === 404 && isExecutionNotFound(e.body)) {
    return { kind: 'unknownRun', serverMessage: e.serverMessage };
  }
  // A generic 404 (`{"detail":"Not Found"}`) or 405: this deployment has no stop route.
  if (e.status === 404 || e.status === 405) {
    return { kind: 'unsupported' };
  }
  return undefined;
}

/** The hosted service's 404 for a run it does not know, as opposed to a route it does not have. */
function isExecutionNotFound(body: unknown): boolean {
  return typeof body === 'object' && body !== null && /execution not found/i.test(String((body as { error?: unknown }).error ?? ''));
}
