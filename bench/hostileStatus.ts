// Issue #32: what one hostile status costs the extension host's thread per poll, through the product's own path:
// CrewClient.getStatus over the real transport (HTTP from a crew on another thread; the request made, the token
// redacted, the body read within READ_LIMITS and normalised on the status reader's thread, api/statusReader.ts),
// then the store (fold, the run's file written). The main thread's busy time during the poll is measured with
// performance.eventLoopUtilization (what the editor feels), the wall time beside it. The references, in the same
// round: the same poll with the request made on the main thread (the path before the status reader), an ordinary
// status, and JSON.parse of the same text. Plain Node; each body polled a few times, its current task changed
// every time so that every poll is a change the store must write.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { CrewClient } from '../src/api/client';
import { createTransport } from '../src/api/transport';
import { DEFAULT_NETWORK_SETTINGS } from '../src/api/transportTypes';
import type { RunStore } from '../src/runTracking/runStore';
import { BENCH_TOKEN, openStore, tempDir } from './lib/fixtures';
import { median } from './lib/stats';

export interface HostileStatusResult {
  bodyMb: number;
  polls: number;
  /** Median ms of the main thread busy per hostile poll, the product's path: request and read on the reader's thread, then the store. */
  hostileMainMs: number;
  /**
   * Median CPU ms of the main thread per hostile poll (Linux: its schedstat), undefined elsewhere. Busy time counts
   * the moments the thread waits for a core on a loaded machine; this counts only what it ran.
   */
  hostileMainCpuMs?: number;
  /** …of which the store (fold, write). */
  hostileStoreMs: number;
  /** Median wall ms of that poll (the reader's thread works meanwhile; the editor does not wait for it). */
  hostileWallMs: number;
  /** The first poll's main-thread ms (it starts the reader's thread). */
  hostileFirstMainMs: number;
  /** Median main-thread ms per hostile poll with the request made and read on the main thread (the path before). */
  inPlaceMainMs: number;
  /** …its CPU ms (Linux), as hostileMainCpuMs. */
  inPlaceMainCpuMs?: number;
  /** Median main-thread ms per poll of an ordinary status, the product's path. */
  ordinaryMainMs: number;
  /** Median ms of plain JSON.parse on the same body text: what reading it naively costs on this machine. */
  jsonParseMs: number;
  /** Issue #47: a 60 MB escape-dense error status (500): its size, and the main thread's busy and CPU ms per poll. */
  errorBodyMb: number;
  errorMainMs: number;
  errorMainCpuMs?: number;
  /** Median ms of JSON.parse of that error body's text. */
  errorJsonParseMs: number;
  /** The run's file after the last hostile poll. */
  fileKb: number;
  /** Main-thread ms of getStatus alone (no store) for statuses of about this many KiB: on this thread, and through the reader. */
  sizes: { kib: number; inPlaceMs: number; readerMs: number }[];
  /** The machine's 1-minute load average at the end: busy-time figures grow with it on a shared machine. */
  loadAverage: number;
}

/** 10⁶ usage keys, two 10 MB strings, 10,000 nesting levels, 200,000 tasks; `{TASK}` is the current task. */
const HOSTILE = `(() => {
  const usage = '{' + Array.from({ length: 1000000 }, (_, i) => '"metric_' + i + '":' + i).join(',') + '}';
  const tasks = '[' + Array.from({ length: 200000 }, (_, i) => '{"task_id":"t' + i + '","name":"task ' + i + '","output":"out ' + i + '"}').join(',') + ']';
  const big = JSON.stringify('x'.repeat(10 * 1024 * 1024));
  const deep = '{"a":'.repeat(10000) + '1' + '}'.repeat(10000);
  return '{"state":"RUNNING","status":' + big + ',"current_task":"{TASK}","last_step":{"thought":' + big + ',"tool_input":' + deep + '},"usage_metrics":' + usage + ',"tasks_output":' + tasks + '}';
})()`;

/** Issue #47: a 60 MB error whose every character is an escape (what costs a redactor and a reader the most). */
const HOSTILE_ERROR = `'{"detail":"' + '\\\\u0041'.repeat(10 * 1024 * 1024) + '"}'`;

const ORDINARY = '{"state":"RUNNING","status":"Task is Running","current_task":"{TASK}","progress":{"completed":1,"total":3},"last_step":{"thought":"Looking for sources","tool":"search"}}';

/** A plausible larger status: `n` finished tasks of about 1 KiB of output each. */
function tasksBody(n: number): string {
  const output = JSON.stringify('A paragraph of findings. '.repeat(40));
  const tasks = Array.from({ length: n }, (_, i) => `{"task_id":"t${i}","name":"task ${i}","agent":"Researcher","output":${output}}`).join(',');
  return `{"state":"RUNNING","status":"Task is Running","current_task":"{TASK}","tasks_output":[${tasks}]}`;
}

/**
 * The crew: an HTTP server on a thread of its own (its work must not count as the extension host's). GET
 * /status/<name> answers body <name> with its `{TASK}` numbered per request; the hostile body is built there.
 */
async function startCrew(bodies: Record<string, string>): Promise<{ url: string; hostileLength: number; stop(): Promise<void> }> {
  const source = `
    const http = require('node:http');
    const { parentPort, workerData } = require('node:worker_threads');
    const bodies = workerData.bodies;
    bodies.hostile = ${HOSTILE};
    bodies['hostile-error'] = ${HOSTILE_ERROR};
    let served = 0;
    const server = http.createServer((req, res) => {
      const name = decodeURIComponent(req.url.split('/').pop());
      const body = Buffer.from(bodies[name].replace('{TASK}', 'task ' + served++));
      res.writeHead(name === 'hostile-error' ? 500 : 200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port, hostileLength: bodies.hostile.length }));
  `;
  const worker = new Worker(source, { eval: true, workerData: { bodies } });
  const started = await new Promise<{ port: number; hostileLength: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { url: `http://127.0.0.1:${started.port}`, hostileLength: started.hostileLength, stop: async () => void (await worker.terminate()) };
}

/** CPU ms the main thread has run so far (Linux), else undefined. */
export function mainThreadCpuMs(): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** The main thread's busy ms of one poll (and of its store part), its CPU ms, and its wall ms. */
export async function poll(client: CrewClient, store: RunStore | undefined, crewUrl: string, body: string, runId: string): Promise<{ mainMs: number; cpuMs?: number; storeMs: number; wallMs: number }> {
  const elu = performance.eventLoopUtilization();
  const cpu = mainThreadCpuMs();
  const started = performance.now();
  // As the poller asks (statusCheck.ts): with the events the run keeps, which the reader leaves out.
  const known = store ? await store.knownEvents(runId) : undefined;
  const snapshot = await client.getStatus(crewUrl, body, undefined, known);
  const stored = performance.eventLoopUtilization();
  await store?.applyPolled(runId, undefined, snapshot);
  const cpuAfter = mainThreadCpuMs();
  return {
    mainMs: performance.eventLoopUtilization(elu).active,
    cpuMs: cpu === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpu,
    storeMs: performance.eventLoopUtilization(stored).active,
    wallMs: performance.now() - started,
  };
}

/** The product's client; `statusOnThisThread`: requests made and read on this thread (the path before the status reader). */
export function client(statusOnThisThread: boolean): CrewClient {
  return new CrewClient({
    getToken: async () => BENCH_TOKEN,
    createTransport: (settings) => createTransport(settings, process.env, { statusOnThisThread }),
    getNetworkSettings: () => DEFAULT_NETWORK_SETTINGS,
  });
}

export async function hostileStatusBench(polls = 5): Promise<HostileStatusResult> {
  const dir = tempDir('hostile');
  const sizesKib = [16, 64, 256, 1024];
  const bodies: Record<string, string> = { ordinary: ORDINARY };
  for (const kib of sizesKib) {
    bodies[`tasks${kib}`] = tasksBody(Math.round(kib * 0.93));
  }
  const crew = await startCrew(bodies);
  const product = client(false);
  const inPlace = client(true);
  try {
    const store = await openStore(dir);
    const run = async (name: string) => (await store.add({ crewUrl: `${crew.url}/${name}`, crewName: name, kickoffId: name, inputs: {} })).id;
    const ordinaryRun = await run('ordinary');
    const hostileRun = await run('hostile');
    const inPlaceRun = await run('hostile-in-place');
    const ordinary: number[] = [];
    const main: number[] = [];
    const cpu: number[] = [];
    const storeMs: number[] = [];
    const wall: number[] = [];
    const before: number[] = [];
    const beforeCpu: number[] = [];
    const naive: number[] = [];
    let hostileText = '';
    const errorMain: number[] = [];
    const errorCpu: number[] = [];
    const errorNaive: number[] = [];
    let errorText = '';
    for (let i = 0; i < polls; i++) {
      ordinary.push((await poll(product, store, crew.url, 'ordinary', ordinaryRun)).mainMs);
      const hostile = await poll(product, store, crew.url, 'hostile', hostileRun);
      main.push(hostile.mainMs);
      if (hostile.cpuMs !== undefined) {
        cpu.push(hostile.cpuMs);
      }
      storeMs.push(hostile.storeMs);
      wall.push(hostile.wallMs);
      const inPlacePoll = await poll(inPlace, store, crew.url, 'hostile', inPlaceRun);
      before.push(inPlacePoll.mainMs);
      if (inPlacePoll.cpuMs !== undefined) {
        beforeCpu.push(inPlacePoll.cpuMs);
      }
      // The reference, in the same round (the same load): the whole text read the naive way, every key kept.
      hostileText ||= await (await fetch(`${crew.url}/status/hostile`)).text();
      const started = performance.now();
      JSON.parse(hostileText);
      naive.push(performance.now() - started);
      // Issue #47: the 60 MB error status, as the poller meets it (getStatus fails), and JSON.parse of its text.
      const elu = performance.eventLoopUtilization();
      const errorCpuBefore = mainThreadCpuMs();
      await product.getStatus(crew.url, 'hostile-error').catch(() => undefined);
      const errorCpuAfter = mainThreadCpuMs();
      errorMain.push(performance.eventLoopUtilization(elu).active);
      if (errorCpuBefore !== undefined && errorCpuAfter !== undefined) {
        errorCpu.push(errorCpuAfter - errorCpuBefore);
      }
      errorText ||= await (await fetch(`${crew.url}/status/hostile-error`)).text();
      const parseStarted = performance.now();
      JSON.parse(errorText);
      errorNaive.push(performance.now() - parseStarted);
    }
    // Whether a round trip to the reader costs the main thread more than a small status read in place.
    const sizes: HostileStatusResult['sizes'] = [];
    for (const kib of [0, ...sizesKib]) {
      const name = kib === 0 ? 'ordinary' : `tasks${kib}`;
      const measure = async (c: CrewClient) => {
        const times: number[] = [];
        for (let i = 0; i < 9; i++) {
          times.push((await poll(c, undefined, crew.url, name, '')).mainMs);
        }
        return median(times);
      };
      sizes.push({ kib: kib === 0 ? ORDINARY.length / 1024 : kib, inPlaceMs: await measure(inPlace), readerMs: await measure(product) });
    }
    await store.flush();
    const fileKb = fs.statSync(`${dir}/runs/${hostileRun}.json`).size / 1024;
    store.dispose();
    return {
      bodyMb: crew.hostileLength / 1048576,
      polls,
      hostileMainMs: median(main.slice(1)),
      hostileMainCpuMs: cpu.length === polls ? median(cpu.slice(1)) : undefined,
      hostileStoreMs: median(storeMs.slice(1)),
      hostileWallMs: median(wall.slice(1)),
      hostileFirstMainMs: main[0],
      inPlaceMainMs: median(before),
      inPlaceMainCpuMs: beforeCpu.length === polls ? median(beforeCpu) : undefined,
      ordinaryMainMs: median(ordinary),
      jsonParseMs: median(naive),
      fileKb,
      errorBodyMb: errorText.length / 1048576,
      errorMainMs: median(errorMain),
      errorMainCpuMs: errorCpu.length === polls ? median(errorCpu) : undefined,
      errorJsonParseMs: median(errorNaive),
      sizes,
      loadAverage: os.loadavg()[0],
    };
  } finally {
    await Promise.all([product.dispose(), inPlace.dispose(), crew.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void hostileStatusBench(Number(process.argv[2] ?? 5)).then((result) => console.log(JSON.stringify(result)));
}
