// Runs INSIDE the VS Code extension host (extensionTestsPath of the bench harness, ./run.ts).
// Each page load is one round: it times `activate()` of the empty extension and of Crew Runs (the
// order alternates between rounds). The last round also measures the tree with 2,000 runs and the
// run view. Results go to the runner as one `BENCH_RESULT {json}` console line.
import * as fs from 'fs';
import * as inspector from 'inspector';
import * as path from 'path';
import { performance } from 'perf_hooks';
import * as v8 from 'v8';
import * as vm from 'vm';
import * as vscode from 'vscode';
import { normaliseStatus } from '../../src/api/normalize';
import { CORE_STARTED_MARK } from '../../src/util/marks';
import type { CrewRunsTestApi } from '../../src/testApi';
import { measureHostBatch } from './hostBatch';
import { EMPTY_ID, FLOOR_ID, HISTORY_CREW_URL, type HostBatchPlan, REAL_ID, RESULT_PREFIX } from './protocol';
import { measureTrace } from './traceBench';
import { measureViews } from './viewsBench';
import { yardstick } from '../lib/yardstick';


interface Control {
  round: number;
  /** Activate with CREW_RUNS_TEST_HOOKS=1 (views or a batch are measured through the test API). */
  testHooks: boolean;
  measureViews: boolean;
  historyRuns: number;
  /** Rounds of Open Run and Show All (and their references); default 7. */
  runViewRounds?: number;
  /** Only the run view's Open Run and Show All (the `runview` part of the bench). */
  runViewOnly?: boolean;
  /** Also the run view's trace (item 10), in `runViewRounds` rounds. */
  measureTrace?: boolean;
  /** Write a CPU profile of this host during one more open of the 10,000-event trace here (CREW_RUNS_BENCH_PROFILE=1). */
  traceProfileFile?: string;
  /** Also a batch in this host (the last round; issue 18). */
  hostBatch?: HostBatchPlan;
  /** Write a CPU profile of Crew Runs' load + activate() here (CREW_RUNS_BENCH_PROFILE=1; its time is then not comparable). */
  profileFile?: string;
}

/** A CPU profile of `work` in this very host (the inspector of this thread), written to `file`. */
async function profiled<T>(file: string, work: () => Promise<T>): Promise<T> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

function forceGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

const KEYS: Record<string, 'empty' | 'floor' | 'real'> = { [EMPTY_ID]: 'empty', [FLOOR_ID]: 'floor', [REAL_ID]: 'real' };

async function timeActivation(id: string): Promise<{ activateMs: number; coreStartedMs?: number }> {
  const extension = vscode.extensions.getExtension(id);
  if (!extension) {
    const loaded = vscode.extensions.all.filter((e) => !e.id.startsWith('vscode.')).map((e) => e.id);
    throw new Error(`extension ${id} is not loaded (loaded: ${loaded.join(', ')})`);
  }
  if (extension.isActive) {
    throw new Error(`extension ${id} was already active: its activation cannot be timed`);
  }
  const started = performance.now();
  await extension.activate();
  const activateMs = performance.now() - started;
  // Crew Runs marks its object graph built at the end of activate(): reported too (it is the same moment now).
  const coreStartedMs =
    id === REAL_ID ? (await waitFor(() => performance.getEntriesByName(CORE_STARTED_MARK).find((entry) => entry.startTime >= started), 'the core started mark', 10_000)).startTime - started : undefined;
  await settle();
  return { activateMs, coreStartedMs };
}

/**
 * The same pause after every extension's activation, before the next is timed: what it sent the workbench
 * (registrations, tree views, context keys) and its first file reads are done by then, so none of it lands in
 * the next one's timing. The next activation waits for the workbench's answer (its storage) before calling
 * activate(); a pause after Crew Runs only left the floor's backlog in Crew Runs' time in six hosts of nine.
 */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 500));
}

async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== (false as unknown)) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measureTree(api: CrewRunsTestApi, historyRuns: number) {
  const gc = forceGc();
  const settings = vscode.workspace.getConfiguration('crewRuns');
  await settings.update('notifications', 'off', vscode.ConfigurationTarget.Global);
  await settings.update('maxRunsPerCrew', 2000, vscode.ConfigurationTarget.Global);
  await settings.update('crews', [{ name: 'History crew', url: HISTORY_CREW_URL }], vscode.ConfigurationTarget.Global);
  const crew = await waitFor(() => api.crews.list().find((c) => c.name === 'History crew'), 'the history crew');
  await waitFor(() => api.runs.maxRunsPerCrew === 2000 || undefined, 'the history cap of 2000');

  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const paragraph = 'The crew found that llamas are social animals and hum to each other. ';
  const seedStarted = performance.now();
  // Through the real store API: each run is added, then finishes with a ~3 KB output.
  const batch = 100;
  for (let start = 0; start < historyRuns; start += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, historyRuns - start) }, async (_, j) => {
        const i = start + j;
        const run = await api.runs.add({ crewUrl: crew.url, crewName: crew.name, kickoffId: `history-${i}-${Date.now()}`, inputs: { topic: `topic ${i}` } });
        await api.runs.applyPolled(
          run.id, undefined,
          normaliseStatus({ state: 'SUCCESS', status: null, result: `# Report ${i}\n\n${paragraph.repeat(43)}` }),
        );
      }),
    );
  }
  await api.runs.flush();
  const seedMs = performance.now() - seedStarted;
  await new Promise((resolve) => setTimeout(resolve, 500)); // let change events and view refreshes settle
  const stick = yardstick(); // before the collection: its garbage is not in the heap figure nor in the tree's time
  gc();
  const heapAfter = process.memoryUsage().heapUsed;

  const roots = await api.tree.getChildren();
  const crewNode = roots.find((n) => n.type === 'crew' && n.crew.url === crew.url);
  if (!crewNode) {
    throw new Error('the history crew is not in the tree');
  }
  const rounds: number[] = [];
  let count = 0;
  for (let round = 0; round < 6; round++) {
    const started = performance.now();
    const children = await api.tree.getChildren(crewNode);
    await Promise.all(children.map((child) => api.tree.getTreeItem(child)));
    rounds.push(performance.now() - started);
    count = children.length;
  }
  return { runs: api.runs.list(crew.url).length, children: count, yardstickMs: stick.ms, firstChildrenMs: rounds[0], medianChildrenMs: median(rounds.slice(1)), heapGrowthBytes: heapAfter - heapBefore, seedMs, crewUrl: crew.url };
}

export async function run(): Promise<void> {
  const controlFile = path.join(process.env.CREW_RUNS_BENCH_CONTROL_DIR ?? '', 'control.json');
  const control = JSON.parse(fs.readFileSync(controlFile, 'utf8')) as Control;
  const result: Record<string, unknown> = { round: control.round, testHooks: control.testHooks };
  try {
    // Read by activate(): the activation rounds time the extension as users get it.
    process.env.CREW_RUNS_TEST_HOOKS = control.testHooks ? '1' : '';
    // The workbench is still starting up around a fresh host (2 cores): let it settle first.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // Each extension goes first, second and third in turn: no place in the order favours one.
    const ids = [EMPTY_ID, FLOOR_ID, REAL_ID];
    const order = ids.map((_, i) => ids[(i + control.round) % ids.length]);
    result.order = order.map((id) => KEYS[id]);
    for (const id of order) {
      const time = () => timeActivation(id);
      const timed = await (id === REAL_ID && control.profileFile ? profiled(control.profileFile, time) : time());
      result[`${KEYS[id]}ActivateMs`] = timed.activateMs;
      if (timed.coreStartedMs !== undefined) {
        result.realCoreStartedMs = timed.coreStartedMs;
      }
    }
    if (control.measureViews || control.hostBatch || control.measureTrace) {
      const api = (await vscode.extensions.getExtension(REAL_ID)!.activate()) as CrewRunsTestApi | undefined;
      if (!api?.runs) {
        throw new Error('no test API: CREW_RUNS_TEST_HOOKS=1 must reach the extension host');
      }
      await waitFor(() => (api.poller ? true : undefined), 'the api');
      if (control.measureViews) {
        const tree = await measureTree(api, control.historyRuns);
        result.tree = tree;
        result.runView = await measureViews(api, tree.crewUrl, waitFor, { rounds: control.runViewRounds ?? 7, only: control.runViewOnly === true });
      }
      if (control.measureTrace) {
        const file = control.traceProfileFile;
        result.trace = await measureTrace(api, waitFor, control.runViewRounds ?? 7, file ? (work) => profiled(file, work) : undefined);
      }
      if (control.hostBatch) {
        result.hostBatch = await measureHostBatch(api, control.hostBatch, forceGc(), waitFor);
      }
    }
  } catch (error) {
    result.error = error instanceof Error ? error.stack ?? error.message : String(error);
  }
  console.log(RESULT_PREFIX + JSON.stringify(result));
}
