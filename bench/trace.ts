// Item "10 Trace" (issue 49): what a run's trace costs. In plain Node (this file, run in its own process by main.ts):
// the extension host's thread per poll of a status whose event log lists 10,000 events, 50 of them new, through the
// product's own path (CrewClient.getStatus over the real transport: the request made, the body read and its events
// normalised on the status reader's thread; then RunStore.applyPolled: the fold and the new events appended to the
// run's event file), against JSON.parse of the same body on this thread, round by round. In VS Code
// (harness/traceBench.ts): opening the trace of a 10,000-event run against a 100-event one, and the bytes a poll
// sends the page. This file also makes the table's rows of both.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { EVENT_LIMITS } from '../src/api/statusEvents';
import type { TraceBench } from './harness/traceBench';
import { client, poll } from './hostileStatus';
import { openStore, tempDir } from './lib/fixtures';
import { median, round } from './lib/stats';
import { longRunEvents } from './lib/traceEvents';

/** Events a status lists (CREWAI_STATUS_MAX_EVENTS), and the new ones per poll in the steady state. */
export const TRACE_WINDOW = 10_000;
export const TRACE_NEW_PER_POLL = 50;
/** Issue 49's targets, each against its reference measured in the same run. */
export const TRACE_POLL_MAX_SHARE = 0.1;
export const TRACE_OPEN_MAX_RATIO = 2;
export const TRACE_BYTES_MAX_RATIO = 2;

export interface TracePollResult {
  /** Events the measured statuses list, and the new ones each brings. */
  window: number;
  newPerPoll: number;
  /** Of those, the newest the status reader reads from one reply (EVENT_LIMITS.perReply). */
  readPerReply: number;
  bodyMb: number;
  polls: number;
  /** The extension host's thread per poll: CPU ms (Linux, else undefined) and busy ms (event loop utilisation), median. */
  hostCpuMs?: number;
  hostBusyMs: number;
  /** …of which the store (fold, details written, new events appended), busy ms, median. */
  storeBusyMs: number;
  wallMs: number;
  hostCpuRoundsMs: number[];
  /** JSON.parse of the same body text on this thread, right after each poll, median. */
  jsonParseMs: number;
  jsonParseRoundsMs: number[];
  /** The same polls of the same status with an empty event list (another run), the host's CPU (else busy) ms, median. */
  withoutListMs: number;
  /** The first poll (starts the status reader's thread, appends 5,000 events), busy ms. */
  firstBusyMs: number;
  /** Events the run's file holds at the end, and its size. */
  kept: number;
  eventsFileKb: number;
  loadAverage: number;
}

/**
 * The crew: an HTTP server on a thread of its own (its work is not the extension host's). GET /status/e<n> answers a
 * RUNNING status whose log has emitted the first n events and lists the newest TRACE_WINDOW; /status/n<n> the same
 * status with an empty list (what the poll costs without the events).
 */
async function startCrew(eventTexts: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const source = `
    const http = require('node:http');
    const { parentPort, workerData } = require('node:worker_threads');
    const { eventStatusText } = require(${JSON.stringify(require.resolve('./lib/traceEvents'))});
    const server = http.createServer((req, res) => {
      const name = req.url.split('/').pop();
      const body = Buffer.from(eventStatusText(workerData.texts, Number(name.slice(1)), name[0] === 'e' ? workerData.window : 0));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
  `;
  const worker = new Worker(source, { eval: true, workerData: { texts: eventTexts, window: TRACE_WINDOW } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { url: `http://127.0.0.1:${port}`, stop: async () => void (await worker.terminate()) };
}

export async function tracePollBench(polls = 9): Promise<TracePollResult> {
  const dir = tempDir('trace');
  const events = longRunEvents(TRACE_WINDOW + polls * TRACE_NEW_PER_POLL);
  const crew = await startCrew(events.map((e) => JSON.stringify(e)));
  const product = client(false);
  try {
    const store = await openStore(dir);
    const runId = (await store.add({ crewUrl: crew.url, crewName: 'Trace bench crew', kickoffId: 'trace-bench', inputs: { topic: 'llamas' } })).id;
    // The run has been polled before: its file keeps the window's 10,000 events (a reply is read up to its newest
    // 5,000, so two polls bring them). The first starts the status reader's thread.
    const first = await poll(product, store, crew.url, `e${TRACE_WINDOW / 2}`, runId);
    await poll(product, store, crew.url, `e${TRACE_WINDOW}`, runId);
    const bareRunId = (await store.add({ crewUrl: crew.url, crewName: 'Trace bench crew', kickoffId: 'trace-bench-bare', inputs: { topic: 'llamas' } })).id;
    await poll(product, store, crew.url, `n${TRACE_WINDOW}`, bareRunId);
    if ((await store.readDetails(runId)).events?.kept !== TRACE_WINDOW) {
      throw new Error(`the run keeps ${(await store.readDetails(runId)).events?.kept} events before the measured polls, not ${TRACE_WINDOW}`);
    }
    const busy: number[] = [];
    const cpu: number[] = [];
    const storeBusy: number[] = [];
    const wall: number[] = [];
    const parse: number[] = [];
    const bare: number[] = [];
    let bodyBytes = 0;
    for (let i = 1; i <= polls; i++) {
      const end = TRACE_WINDOW + i * TRACE_NEW_PER_POLL;
      const measured = await poll(product, store, crew.url, `e${end}`, runId);
      busy.push(measured.mainMs);
      if (measured.cpuMs !== undefined) {
        cpu.push(measured.cpuMs);
      }
      storeBusy.push(measured.storeMs);
      wall.push(measured.wallMs);
      // The reference, in the same round: the same body read the naive way, on this thread.
      const text = await (await fetch(`${crew.url}/status/e${end}`)).text();
      bodyBytes = Buffer.byteLength(text);
      const started = performance.now();
      JSON.parse(text);
      parse.push(performance.now() - started);
      const withoutList = await poll(product, store, crew.url, `n${end}`, bareRunId);
      bare.push(withoutList.cpuMs ?? withoutList.mainMs);
    }
    await store.flush();
    const kept = (await store.readDetails(runId)).events?.kept ?? 0;
    const eventsFileKb = fs.statSync(path.join(dir, 'runs', `${runId}.events.jsonl`)).size / 1024;
    store.dispose();
    return {
      window: TRACE_WINDOW,
      newPerPoll: TRACE_NEW_PER_POLL,
      readPerReply: EVENT_LIMITS.perReply,
      bodyMb: bodyBytes / 1048576,
      polls,
      hostCpuMs: cpu.length === polls ? median(cpu) : undefined,
      hostBusyMs: median(busy),
      storeBusyMs: median(storeBusy),
      wallMs: median(wall),
      hostCpuRoundsMs: (cpu.length === polls ? cpu : busy).map((ms) => round(ms, 1)),
      jsonParseMs: median(parse),
      jsonParseRoundsMs: parse.map((ms) => round(ms, 1)),
      withoutListMs: median(bare),
      firstBusyMs: first.mainMs,
      kept,
      eventsFileKb,
      loadAverage: os.loadavg()[0],
    };
  } finally {
    await Promise.all([product.dispose(), crew.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** main.ts runs this file in its own process: the last line of output is the result. */
if (require.main === module) {
  void tracePollBench(Number(process.argv[2] ?? 9)).then((result) => console.log(JSON.stringify(result)));
}

const item = '10 Trace';
const kb = (bytes: number) => round(bytes / 1024, 1);
const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 2) : undefined);
/** "median (min–max) of n". */
const spread = (xs: number[]) => `${round(median(xs), 1)} (${round(Math.min(...xs), 1)}–${round(Math.max(...xs), 1)}) of ${xs.length}`;

/** The poll's row (same shape as main.ts's rows). */
export function tracePollRows(r: TracePollResult) {
  // The thread's CPU time where the machine says it (Linux), else its busy time, as item 7's row.
  const hostMs = r.hostCpuMs ?? r.hostBusyMs;
  return [
    {
      item,
      figure: `a poll of a status listing ${r.window.toLocaleString('en')} events, ${r.newPerPoll} new: extension host's thread, ${r.hostCpuMs === undefined ? 'busy' : 'CPU'} time (snapshot received, fold, new events appended; median of ${r.polls})`,
      value: round(hostMs, 1),
      unit: 'ms',
      target: `≤ ${TRACE_POLL_MAX_SHARE}× JSON.parse of the body`,
      met: hostMs <= TRACE_POLL_MAX_SHARE * r.jsonParseMs,
      reference: `JSON.parse of the same ${round(r.bodyMb, 1)} MB body on that thread, round by round`,
      referenceValue: round(r.jsonParseMs, 1),
      ratio: ratio(hostMs, r.jsonParseMs),
      note:
        `rounds ${r.hostCpuRoundsMs.join('/')} ms against JSON.parse ${r.jsonParseRoundsMs.join('/')} ms; busy time (waits for a core included) ${round(r.hostBusyMs, 1)} ms, of which the store ${round(r.storeBusyMs, 1)} ms; ` +
        `the same status with an empty event list, same path: ${round(r.withoutListMs, 1)} ms; ` +
        `wall time ${round(r.wallMs, 1)} ms (the status reader's thread requests and reads the body meanwhile; it reads the newest ${r.readPerReply.toLocaleString('en')} of a reply); ` +
        `the first poll (starts that thread, appends ${(r.window / 2).toLocaleString('en')} events), busy: ${round(r.firstBusyMs, 1)} ms; the run's event file after: ${r.kept.toLocaleString('en')} events, ${kb(r.eventsFileKb * 1024)} KB; load average ${round(r.loadAverage, 1)} on ${os.cpus().length} cores`,
    },
  ];
}

/** The run view's rows, from what the harness measured in VS Code. */
export function traceHostRows(t: TraceBench) {
  return [
    {
      item,
      figure: `Open Run → the trace of a ${t.bigEvents.toLocaleString('en')}-event run drawn (${t.bigSpans.toLocaleString('en')} spans; median of ${t.rounds}, no editor open)`,
      value: round(t.bigOpenMs, 0),
      unit: 'ms',
      target: `≤ ${TRACE_OPEN_MAX_RATIO}× reference`,
      met: t.bigOpenMs <= TRACE_OPEN_MAX_RATIO * t.smallOpenMs,
      reference: `the same for a ${t.smallEvents}-event run (${t.smallSpans} spans), rounds interleaved`,
      referenceValue: round(t.smallOpenMs, 0),
      ratio: ratio(t.bigOpenMs, t.smallOpenMs),
      note:
        `${t.bigEvents.toLocaleString('en')} events: ${spread(t.bigOpensMs)} ms, ${t.smallEvents}: ${spread(t.smallOpensMs)} ms; the trace message ${kb(t.bigTraceBytes)} KB (${t.smallEvents} events: ${kb(t.smallTraceBytes)} KB); ` +
        `the page's handling of it (build, settle, draw) ${t.bigPageRenderMs} ms (${t.smallPageRenderMs} ms); after the command, median open: init sent ${t.bigPhases.init} ms, trace sent ${t.bigPhases.trace} ms, the page's first report ${t.bigPhases.report} ms, the trace drawn ${t.bigPhases.drawn} ms (${t.smallEvents} events: ${t.smallPhases.init} / ${t.smallPhases.trace} / ${t.smallPhases.report} / ${t.smallPhases.drawn} ms); ` +
        `the session's first Open Run ${round(t.coldOpenMs, 0)} ms`,
    },
    {
      item,
      figure: `trace bytes sent to the page by a poll adding ${t.addedEvents} events to a ${t.bigEvents.toLocaleString('en')}-event trace (median of ${t.bigPollsBytes.length})`,
      value: kb(t.bigPollBytes),
      unit: 'KB',
      target: `≤ ${TRACE_BYTES_MAX_RATIO}× reference`,
      met: t.bigPollBytes <= TRACE_BYTES_MAX_RATIO * t.emptyPollBytes,
      reference: `the same poll's ${t.addedEvents} events added to an empty trace (median of ${t.emptyPollsBytes.length})`,
      referenceValue: kb(t.emptyPollBytes),
      ratio: ratio(t.bigPollBytes, t.emptyPollBytes),
      note: `bytes of the \`trace\` messages posted per poll: ${t.bigPollsBytes.join('/')} against ${t.emptyPollsBytes.join('/')}; the page then showed ${t.bigSpansAfter.toLocaleString('en')} spans`,
    },
  ];
}
