// The trace rows' events (issue 49): the event summaries of one long crew run, drawn by the simulator's own event
// log (src/simulator/eventLog.ts: task and agent scopes, model calls with usage, tool calls, ids and parents as
// the service's replies carry them), and status bodies listing a window of them as a newer runtime does
// (status-events.md). Built once before anything is timed.
import { runEvents } from '../../src/simulator/eventLog';
import { SimRun } from '../../src/simulator/runEngine';

/** The simulated run starts here (a fixed day: the same trace in every bench). */
export const TRACE_T0 = Date.parse('2026-10-01T10:00:00Z');

/** The first `count` events of a run of a crew with enough tasks (about ten events each), oldest first. */
export function longRunEvents(count: number): Record<string, unknown>[] {
  const tasks = Array.from({ length: Math.ceil(count / 6) }, (_, i) => ({ name: `task_${i}`, agent: `Agent ${i % 5}`, durationMs: 20_000, output: `Output of task ${i}.` }));
  const run = new SimRun({ crewId: 'trace-bench', crewName: 'Trace bench crew', kind: 'crew', tasks, inputs: { topic: 'llamas' }, scenario: 'ok', timeScale: 1, pendingMs: 0, notFoundForMs: 0, now: TRACE_T0 });
  const end = TRACE_T0 + tasks.length * 20_000 + 1;
  run.advance(end);
  const events = runEvents(run, end).map((logged) => logged.event);
  if (events.length < count) {
    throw new Error(`the simulated run has ${events.length} events, not ${count}`);
  }
  return events.slice(0, count);
}

/**
 * A RUNNING status whose event log has emitted the first `end` of `events` and lists the newest `window` of them
 * (CREWAI_STATUS_MAX_EVENTS), as JSON text; `eventTexts` are the events' own JSON texts.
 */
export function eventStatusText(eventTexts: readonly string[], end: number, window: number): string {
  const listed = eventTexts.slice(Math.max(0, end - window), end);
  return `{"state":"RUNNING","status":"Task is Running","current_task":"task ${end}","events_count":${end},"events":[${listed.join(',')}],"last_event":${listed.at(-1) ?? 'null'}}`;
}
