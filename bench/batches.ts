// Item "Batches": a 500-row batch against a rate-limited simulator (its own process) with the real
// BatchRunner + BatchStore + RunStore + RunPoller + CrewClient. Plain Node, no VS Code: the kickoff
// here is the non-UI part of recordKickoff (POST, record, watch), which needs no `vscode`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CrewClient } from '../src/api/client';
import { CrewApiError } from '../src/api/errors';
import { BatchRunner, type SendOutcome } from '../src/batches/core/batchRunner';
import { BatchStore } from '../src/batches/core/batchStore';
import { batchProgress, type Batch, type BatchRow } from '../src/batches/core/model';
import { isFinished } from '../src/runTracking/model';
import { POLLER_DEFAULTS, RunPoller } from '../src/runTracking/poller';
import { SendOnce } from '../src/runTracking/sendOnce';
import { systemClock } from '../src/util/clock';
import { BENCH_TOKEN, crewConfig, openStore, quietLogger, tempDir } from './lib/fixtures';
import { SimProcess } from './lib/simProcess';

export interface BatchBenchResult {
  rows: number;
  requestedConcurrency: number;
  effectiveConcurrency: number;
  peakRowsInFlight: number;
  kickoffRequests: number;
  rateLimitedKickoffs: number;
  duplicateKickoffs: number;
  lostRows: number;
  heapGrowthMb: number;
  realSeconds: number;
}

export async function batchScenario(rows = 500, concurrency = 10, rateLimitPerSecond = 20): Promise<BatchBenchResult> {
  const started = Date.now();
  // Runs of about a second, so 500 rows finish in minutes.
  const sim = await SimProcess.start({ timeScale: 1, crews: [crewConfig('batch', 1200, { pendingMs: 300, rateLimitPerSecond })], seed: 3 }, 1, started);
  const crewUrl = sim.crews[0].url;
  const dir = tempDir('batches');
  const runs = await openStore(path.join(dir, 'runs'));
  const client = new CrewClient({ getToken: async () => BENCH_TOKEN, userAgent: 'crew-runs-bench' });
  const poller = new RunPoller(runs, client, systemClock, quietLogger, undefined, { firstDelayMs: 300, fastIntervalMs: 300 });
  const store = new BatchStore(path.join(dir, 'batches'), quietLogger);
  const owned = new Set<string>();
  const send = async (_batch: Batch, row: BatchRow): Promise<SendOutcome> => {
    try {
      const kickoffId = await client.kickoff(crewUrl, { inputs: row.inputs });
      const run = await runs.add({ crewUrl, crewName: 'Bench', kickoffId, inputs: row.inputs });
      poller.watch(run.id);
      return { kind: 'sent', runId: run.id, kickoffId };
    } catch (e) {
      if (e instanceof CrewApiError && e.kind === 'rateLimited') {
        return { kind: 'retryLater', delayMs: e.retryAfterMs ?? 1000, message: e.message };
      }
      return { kind: 'uncertain', message: String(e) };
    }
  };
  const runner = new BatchRunner({
    store,
    send,
    runEnd: async (runId) => {
      const run = runs.get(runId);
      if (!run) {
        return { kind: 'gone' };
      }
      return isFinished(run) ? { kind: 'ended', result: { state: run.state, finishedAt: run.finishedAt } } : undefined;
    },
    endRecorded: (runId) => runs.batchEndRecorded(runId),
    lease: { tryAcquire: async (id) => (owned.add(id), true), owns: (id) => owned.has(id), release: async (id) => void owned.delete(id) },
    clock: systemClock,
    logger: quietLogger,
    maxPerCrew: POLLER_DEFAULTS.maxConcurrentPerCrew,
    // Real marks on disk, as the extension keeps them: their cost is part of a row's send.
    sends: new SendOnce(path.join(dir, 'sending'), 'bench'),
  });
  let peak = 0;
  const subscriptions = [
    runs.onDidChange(({ runIds }) => void runner.runsChanged(runIds)),
    store.onDidChange(() => {
      for (const b of store.list()) {
        peak = Math.max(peak, b.rows.filter((r) => r.status === 'sending' || (r.status === 'sent' && !r.result)).length);
      }
    }),
  ];
  try {
    poller.start();
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const batch = await store.create({
      crewUrl,
      crewName: 'Bench',
      source: 'bench.jsonl',
      concurrency,
      rows: Array.from({ length: rows }, (_, index) => ({ index, inputs: { topic: `row ${index}` }, status: 'queued' as const })),
    });
    await runner.start(batch.id);
    const deadline = Date.now() + 20 * 60_000;
    while (!batchProgress(store.get(batch.id)!).finished && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
    }
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    const done = store.get(batch.id)!;
    const log = (await sim.log()).filter((e) => e.endpoint === 'kickoff');
    const simRuns = await sim.runs();
    return {
      rows,
      requestedConcurrency: concurrency,
      effectiveConcurrency: Math.min(concurrency, POLLER_DEFAULTS.maxConcurrentPerCrew),
      peakRowsInFlight: peak,
      kickoffRequests: log.length,
      rateLimitedKickoffs: log.filter((e) => e.status === 429).length,
      // Accepted kickoffs beyond one per row.
      duplicateKickoffs: simRuns.length - new Set(done.rows.filter((r) => r.kickoffId).map((r) => r.kickoffId)).size,
      lostRows: done.rows.filter((r) => r.status !== 'sent' || !r.result).length,
      heapGrowthMb: Math.round(((heapAfter - heapBefore) / 1024 / 1024) * 10) / 10,
      realSeconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    subscriptions.forEach((s) => s.dispose());
    await runner.stop();
    poller.dispose();
    await store.flush();
    await runs.flush();
    runs.dispose();
    await client.dispose();
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Quick manual run: node --expose-gc out-bench/bench/batches.js [rows] */
if (require.main === module) {
  void batchScenario(Number(process.argv[2] ?? 500)).then((r) => console.log(r));
}

/** The bench table's rows for this item (same shape as main.ts's rows). */
export function batchBenchRows(r: BatchBenchResult) {
  const item = '6 Batches';
  return [
    {
      item,
      figure: `rows kicking off or running at once (${r.rows} rows, concurrency ${r.requestedConcurrency} asked, capped at ${r.effectiveConcurrency})`,
      value: r.peakRowsInFlight,
      unit: 'rows',
      target: `≤ ${r.effectiveConcurrency}`,
      met: r.peakRowsInFlight <= r.effectiveConcurrency,
      note: 'the concurrency setting never goes above the per-crew request cap (4)',
    },
    { item, figure: 'duplicate kickoffs (runs at the crew beyond one per row)', value: r.duplicateKickoffs, unit: '', target: '0', met: r.duplicateKickoffs === 0 },
    { item, figure: 'lost rows (not sent, or no end recorded)', value: r.lostRows, unit: '', target: '0', met: r.lostRows === 0 },
    {
      item,
      figure: `kickoffs refused with 429 and sent again later (${r.kickoffRequests} requests)`,
      value: r.rateLimitedKickoffs,
      unit: '',
      target: 'any',
      note: `${r.realSeconds} s in all`,
    },
    {
      item,
      figure: 'heap growth over the batch (plain Node with runner, stores, poller, client; not an extension host)',
      value: r.heapGrowthMb,
      unit: 'MB',
      target: '< 50 MB',
      met: r.heapGrowthMb < 50,
      note: global.gc ? 'after gc' : 'without --expose-gc: an upper bound',
    },
  ];
}
