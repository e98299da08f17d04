// Runs INSIDE the VS Code extension host (the bench harness's last round; item "10 Trace", issue 49): the run view's
// trace. Opening the trace of a run that keeps 10,000 events against one that keeps 100, rounds interleaved, each
// after Close All, to the page's first report with the trace drawn; then the bytes of the `trace` messages one poll
// adding 50 events sends the page of a 10,000-event run against the same poll on an empty trace. Runs are seeded
// through the store (api.runs.applyPolled: the very fold and event append a poll does, no network).
import { performance } from 'perf_hooks';
import * as vscode from 'vscode';
import { normaliseStatus } from '../../src/api/normalize';
import type { CrewRunsTestApi } from '../../src/testApi';
import { longRunEvents } from '../lib/traceEvents';
import { HISTORY_CREW_URL } from './protocol';

export interface TraceBench {
  bigEvents: number;
  smallEvents: number;
  rounds: number;
  /** Open Run → the page's first report with the trace drawn, median of `rounds` (each after Close All). */
  bigOpenMs: number;
  bigOpensMs: number[];
  smallOpenMs: number;
  smallOpensMs: number[];
  /** The session's first Open Run (the small run): also loads the command host. */
  coldOpenMs: number;
  bigSpans: number;
  smallSpans: number;
  /** Bytes of the `trace` message(s) of the median open. */
  bigTraceBytes: number;
  smallTraceBytes: number;
  /** The page's handling of the message that drew the trace (PageReport.renderMs), median open. */
  bigPageRenderMs: number;
  smallPageRenderMs: number;
  /** ms after the command: `init` posted, the trace posted (seen within 5 ms), the page's first report, the trace drawn. */
  bigPhases: { init: number; trace: number; report: number; drawn: number };
  smallPhases: { init: number; trace: number; report: number; drawn: number };
  addedEvents: number;
  /** Bytes of the `trace` messages one poll sent, median and per round. */
  bigPollBytes: number;
  bigPollsBytes: number[];
  emptyPollBytes: number;
  emptyPollsBytes: number[];
  bigSpansAfter: number;
}

type WaitFor = <T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs?: number) => Promise<T>;

const BIG = 10_000;
const SMALL = 100;
const ADDED = 50;
/** The polls of the bytes row: the figure is a count of bytes, the same every round but for a few digits. */
const POLL_ROUNDS = 3;
/** What a status lists (CREWAI_STATUS_MAX_EVENTS), as in the plain-Node row. */
const WINDOW = 10_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `profile`: runs one more open of the 10,000-event trace, untimed, under a CPU profile of this host. */
export async function measureTrace(api: CrewRunsTestApi, waitFor: WaitFor, rounds: number, profile?: (work: () => Promise<unknown>) => Promise<unknown>): Promise<TraceBench> {
  const panels = api.panels;
  panels.scanOutputs = false; // As users' pages run: without the tests' DOM security scan.
  const report = (id: string) => panels.inspect(id)?.pageReport;
  const traceBytes = (id: string) => panels.inspect(id)?.bytesByType.trace ?? 0;
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const events = longRunEvents(BIG + POLL_ROUNDS * ADDED);
  /** A status whose log has emitted the first `end` events and lists the newest WINDOW. */
  const status = (end: number) => normaliseStatus({ state: 'RUNNING', status: 'Task is Running', events_count: end, events: events.slice(Math.max(0, end - WINDOW), end) });
  const newRun = async (name: string) => {
    const run = await api.runs.add({ crewUrl: HISTORY_CREW_URL, crewName: 'Trace bench crew', kickoffId: `trace-${name}-${Date.now()}`, inputs: { topic: name } });
    await api.runs.setWatching(run.id, false, 'user'); // Driven here, not polled.
    return run;
  };
  /** A running run that keeps the first `count` events (a reply is read up to its newest 5,000: a poll per 5,000). */
  const seeded = async (count: number) => {
    const run = await newRun(`${count}`);
    for (let end = Math.min(count, 5_000); ; end = Math.min(count, end + 5_000)) {
      await api.runs.applyPolled(run.id, undefined, status(end));
      if (end === count) {
        break;
      }
    }
    await api.runs.flush();
    const kept = (await api.runs.readDetails(run.id)).events?.kept;
    if (kept !== count) {
      throw new Error(`the ${count}-event run keeps ${kept} events`);
    }
    return run;
  };
  const openTimed = async (runId: string) => {
    const opened = performance.now();
    let tracePosted: number | undefined;
    await vscode.commands.executeCommand('crewRuns.openRun', { runId });
    const drawn = await waitFor(() => {
      tracePosted ??= traceBytes(runId) > 0 ? performance.now() : undefined;
      const r = report(runId);
      return r && r.traceSpans > 0 ? r : undefined;
    }, 'the trace drawn', 120_000);
    const ms = performance.now() - opened;
    const inspection = panels.inspect(runId)!;
    const since = (t: number | undefined) => (t === undefined ? -1 : Math.round(t - opened));
    return { ms, drawn, bytes: traceBytes(runId), phases: { init: since(inspection.times.firstInit), trace: since(tracePosted), report: since(inspection.times.firstReport), drawn: Math.round(ms) } };
  };
  /** The `trace` bytes the run's open page is sent after one status is applied (waits for the messages to stop). */
  const pollBytes = async (runId: string, end: number) => {
    const before = traceBytes(runId);
    await api.runs.applyPolled(runId, undefined, status(end));
    await waitFor(() => traceBytes(runId) > before || undefined, 'the trace message of a poll', 30_000);
    for (let last = -1; last !== traceBytes(runId); ) {
      last = traceBytes(runId);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return traceBytes(runId) - before;
  };

  const small = await seeded(SMALL);
  const big = await seeded(BIG);
  await closeAll();
  const cold = await openTimed(small.id);
  const smallOpens: Awaited<ReturnType<typeof openTimed>>[] = [];
  const bigOpens: Awaited<ReturnType<typeof openTimed>>[] = [];
  for (let i = 0; i < rounds; i++) {
    await closeAll();
    smallOpens.push(await openTimed(small.id));
    await closeAll();
    bigOpens.push(await openTimed(big.id));
  }
  const smallOpen = [...smallOpens].sort((a, b) => a.ms - b.ms)[Math.floor(rounds / 2)];
  const bigOpen = [...bigOpens].sort((a, b) => a.ms - b.ms)[Math.floor(rounds / 2)];

  if (profile) {
    await closeAll();
    await profile(() => openTimed(big.id));
  }

  // Polls of 50 events to the big run, its page open (the last round's), then the same to empty traces.
  const bigPolls: number[] = [];
  for (let i = 1; i <= POLL_ROUNDS; i++) {
    bigPolls.push(await pollBytes(big.id, BIG + i * ADDED));
  }
  const bigSpansAfter = await waitFor(() => {
    const r = report(big.id);
    return r && r.traceSpans > bigOpen.drawn.traceSpans ? r.traceSpans : undefined;
  }, 'the added spans drawn');
  const emptyPolls: number[] = [];
  for (let i = 0; i < POLL_ROUNDS; i++) {
    await closeAll();
    const empty = await newRun(`empty-${i}`);
    // Running, its log on and empty: the measured poll differs from the big run's only by the trace it adds to.
    await api.runs.applyPolled(empty.id, undefined, status(0));
    await vscode.commands.executeCommand('crewRuns.openRun', { runId: empty.id });
    await waitFor(() => (report(empty.id) && traceBytes(empty.id) > 0 ? true : undefined), 'the empty trace sent');
    emptyPolls.push(await pollBytes(empty.id, ADDED));
  }
  await closeAll();
  return {
    bigEvents: BIG,
    smallEvents: SMALL,
    rounds,
    bigOpenMs: bigOpen.ms,
    bigOpensMs: bigOpens.map((o) => Math.round(o.ms)),
    smallOpenMs: smallOpen.ms,
    smallOpensMs: smallOpens.map((o) => Math.round(o.ms)),
    coldOpenMs: cold.ms,
    bigSpans: bigOpen.drawn.traceSpans,
    smallSpans: smallOpen.drawn.traceSpans,
    bigTraceBytes: bigOpen.bytes,
    smallTraceBytes: smallOpen.bytes,
    bigPageRenderMs: bigOpen.drawn.renderMs,
    smallPageRenderMs: smallOpen.drawn.renderMs,
    bigPhases: bigOpen.phases,
    smallPhases: smallOpen.phases,
    addedEvents: ADDED,
    bigPollBytes: median(bigPolls),
    bigPollsBytes: bigPolls,
    emptyPollBytes: median(emptyPolls),
    emptyPollsBytes: emptyPolls,
    bigSpansAfter,
  };
}
