// Item "Suites" (issue #50), the run: a suite of 200 cases against a fast simulated crew finishes within 1.2× of a
// batch of the same 200 rows. Both go through the same machinery, as in the extension: each item kicked off by
// startRun (send-once mark, record, watch) into one RunStore, one RunPoller polling the crew, at the same
// concurrency (the per-crew cap). The batch is driven by its BatchRunner; the suite by runSuiteItems, each item's
// end awaited on the store's changes and its checks evaluated (finishItem's non-UI part). Plain Node, the simulator
// in a process of its own; rounds alternate which goes first.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CrewClient } from '../src/api/client';
import { CrewApiError } from '../src/api/errors';
import { BatchRunner, batchRowKey, type SendOutcome } from '../src/batches/core/batchRunner';
import { BatchStore } from '../src/batches/core/batchStore';
import { batchProgress } from '../src/batches/core/model';
import { isFinished } from '../src/runTracking/model';
import { POLLER_DEFAULTS, RunPoller } from '../src/runTracking/poller';
import { SendOnce } from '../src/runTracking/sendOnce';
import { startRun, type RunStarting } from '../src/runTracking/startRun';
import { evaluateCase } from '../src/suites/core/checks';
import { factsFromSnapshot } from '../src/suites/core/facts';
import { PatternRunner } from '../src/suites/core/pattern';
import { parseSuite } from '../src/suites/core/suiteFile';
import { suiteItemResult, suiteItems } from '../src/suites/core/suiteRun';
import { factsOfRun, waitForRunEnd } from '../src/suites/runEnd';
import { runSuiteItems } from '../src/suites/suiteRunner';
import { systemClock } from '../src/util/clock';
import { BENCH_TOKEN, crewConfig, openStore, quietLogger, tempDir } from './lib/fixtures';
import { median, round } from './lib/stats';
import { SimProcess } from './lib/simProcess';

export interface SuiteRunBenchResult {
  items: number;
  concurrency: number;
  rounds: number;
  suiteMs: number;
  batchMs: number;
  /** Items of the suite that did not pass (each case's checks should hold against the echo crew). */
  suiteNotPassed: number;
  /** Batch rows without an end recorded. */
  batchLost: number;
}

const ITEMS = 200;
const CONCURRENCY = POLLER_DEFAULTS.maxConcurrentPerCrew;
const NO_CANCEL = () => ({ dispose: () => undefined });

/** A team's suite of `cases` cases, each checked on its state, text and time. */
function suiteText(crewUrl: string, cases: number): string {
  const lines = ['name: Bench suite', `crew: ${crewUrl}`, `concurrency: ${CONCURRENCY}`, 'cases:'];
  for (let i = 0; i < cases; i++) {
    lines.push(`  - name: case ${i}`, `    inputs: { topic: "topic ${i}" }`, '    checks:', '      state: succeeded', `      contains: "about topic ${i}"`, '      maxSeconds: 120');
  }
  return lines.join('\n') + '\n';
}

async function machinery(dir: string) {
  const runs = await openStore(path.join(dir, 'runs'));
  const client = new CrewClient({ getToken: async () => BENCH_TOKEN, userAgent: 'crew-runs-bench' });
  const poller = new RunPoller(runs, client, systemClock, quietLogger, undefined, { firstDelayMs: 300, fastIntervalMs: 300 });
  const sends = new SendOnce(path.join(dir, 'sending'), 'bench');
  const starting: RunStarting = { client, runs, poller, presets: { rememberLastUsed: async () => undefined }, log: quietLogger, sends };
  poller.start();
  const close = async () => {
    poller.dispose();
    await runs.flush();
    runs.dispose();
    await client.dispose();
  };
  return { runs, starting, sends, close };
}

function refusal(error: unknown): { kind: 'retryLater'; delayMs: number; message: string } | { kind: 'uncertain'; message: string } {
  return error instanceof CrewApiError && error.kind === 'rateLimited' ? { kind: 'retryLater', delayMs: error.retryAfterMs ?? 1000, message: error.message } : { kind: 'uncertain', message: String(error) };
}

async function batchOf(crew: { url: string; name: string }, dir: string): Promise<{ ms: number; lost: number }> {
  const m = await machinery(dir);
  const store = new BatchStore(path.join(dir, 'batches'), quietLogger);
  const owned = new Set<string>();
  const runner = new BatchRunner({
    store,
    send: async (batch, row): Promise<SendOutcome> => {
      try {
        const run = await startRun(m.starting, crew, row.inputs, undefined, { rememberInputs: false, batch: { source: batch.source, row: row.index + 1 }, heldMark: batchRowKey(batch.id, row.index) });
        return { kind: 'sent', runId: run.id, kickoffId: run.kickoffId };
      } catch (error) {
        return refusal(error);
      }
    },
    runEnd: async (runId) => {
      const run = m.runs.get(runId);
      return !run ? { kind: 'gone' } : isFinished(run) ? { kind: 'ended', result: { state: run.state, finishedAt: run.finishedAt } } : undefined;
    },
    endRecorded: (runId) => m.runs.batchEndRecorded(runId),
    lease: { tryAcquire: async (id) => (owned.add(id), true), owns: (id) => owned.has(id), release: async (id) => void owned.delete(id) },
    clock: systemClock,
    logger: quietLogger,
    maxPerCrew: CONCURRENCY,
    sends: m.sends,
  });
  const changes = m.runs.onDidChange(({ runIds }) => void runner.runsChanged(runIds));
  try {
    const started = performance.now();
    const batch = await store.create({
      crewUrl: crew.url,
      crewName: crew.name,
      source: 'bench.csv',
      concurrency: CONCURRENCY,
      rows: Array.from({ length: ITEMS }, (_, index) => ({ index, inputs: { topic: `topic ${index}` }, status: 'queued' as const })),
    });
    const finished = new Promise<void>((resolve) => {
      const watch = store.onDidChange(() => {
        if (batchProgress(store.get(batch.id)!).finished) {
          watch.dispose();
          resolve();
        }
      });
    });
    await runner.start(batch.id);
    await finished;
    const ms = performance.now() - started;
    return { ms, lost: store.get(batch.id)!.rows.filter((r) => r.status !== 'sent' || !r.result).length };
  } finally {
    changes.dispose();
    await runner.stop();
    await store.flush();
    await m.close();
  }
}

async function suiteOf(crew: { url: string; name: string }, dir: string): Promise<{ ms: number; notPassed: number }> {
  const m = await machinery(dir);
  const patterns = new PatternRunner();
  try {
    const started = performance.now();
    const { suite } = parseSuite(suiteText(crew.url, ITEMS), 'bench.crew-suite.yaml');
    const cases = new Map(suite.cases.map((c) => [c.name, c]));
    const items = suiteItems(suite);
    const outcome = await runSuiteItems(items, suite.concurrency, {
      send: async (item) => {
        try {
          const run = await startRun(m.starting, crew, cases.get(item.caseName)!.inputs, undefined, { rememberInputs: false, batch: { source: `${suite.name} › ${item.id}`, row: 0, suite: true } });
          return { kind: 'sent', runId: run.id };
        } catch (error) {
          return refusal(error);
        }
      },
      finish: async (item, runId) => {
        try {
          const end = await waitForRunEnd(m.runs, runId, NO_CANCEL);
          if (end.kind !== 'ended') {
            return { itemId: item.id, caseName: item.caseName, repeat: item.repeat, outcome: 'error', checks: [], error: end.kind };
          }
          const details = await m.runs.readDetails(runId);
          const facts = factsOfRun(end.run, details, factsFromSnapshot);
          const suiteCase = cases.get(item.caseName)!;
          return suiteItemResult(item, await evaluateCase(suiteCase, facts, { patterns }), facts, runId);
        } finally {
          await m.runs.batchEndRecorded(runId);
        }
      },
      waitForCrew: async () => false,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      cancelled: () => false,
    });
    const ms = performance.now() - started;
    return { ms, notPassed: outcome.results.filter((r) => r?.outcome !== 'passed').length };
  } finally {
    await m.close();
  }
}

export async function suiteRunBench(rounds = 3): Promise<SuiteRunBenchResult> {
  // Runs of under a second (0.2 s pending, three tasks of 0.2 s): the machinery's own time shows.
  const sim = await SimProcess.start({ timeScale: 1, crews: [crewConfig('echo', 800, { pendingMs: 200 })], seed: 5 }, 1, Date.now());
  const crew = { url: sim.crews[0].url, name: 'Bench' };
  const root = tempDir('suite-run');
  const suite: number[] = [];
  const batch: number[] = [];
  let suiteNotPassed = 0;
  let batchLost = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      // Alternating which goes first, so neither always meets a warmer simulator.
      const order = round % 2 === 0 ? (['batch', 'suite'] as const) : (['suite', 'batch'] as const);
      for (const which of order) {
        const dir = path.join(root, `${which}-${round}`);
        if (which === 'batch') {
          const r = await batchOf(crew, dir);
          batch.push(r.ms);
          batchLost += r.lost;
        } else {
          const r = await suiteOf(crew, dir);
          suite.push(r.ms);
          suiteNotPassed += r.notPassed;
        }
      }
    }
    return { items: ITEMS, concurrency: CONCURRENCY, rounds, suiteMs: median(suite), batchMs: median(batch), suiteNotPassed, batchLost };
  } finally {
    await sim.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export function suiteRunRows(r: SuiteRunBenchResult) {
  const ratio = r.batchMs > 0 ? round(r.suiteMs / r.batchMs, 2) : undefined;
  return [
    {
      item: '11 Suites',
      figure: `a suite of ${r.items} cases against a fast simulated crew, concurrency ${r.concurrency} (kickoff, wait for the end, checks; plain Node, median of ${r.rounds})`,
      value: round(r.suiteMs / 1000, 1),
      unit: 's',
      target: '≤ 1.2× a batch of the same rows',
      met: ratio !== undefined && ratio <= 1.2 && r.suiteNotPassed === 0 && r.batchLost === 0,
      reference: `a batch of the same ${r.items} rows through the batch runner`,
      referenceValue: round(r.batchMs / 1000, 1),
      ratio,
      note: `${r.suiteNotPassed} suite items not passed, ${r.batchLost} batch rows lost`,
    },
  ];
}

if (require.main === module) {
  suiteRunBench(Number(process.argv[2] ?? 3)).then(
    (result) => console.log(JSON.stringify(result)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
