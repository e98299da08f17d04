// Runs INSIDE the bench's extension host (see suite.ts): a batch through the real extension (its batch
// store, runner, kickoff path, poller and client) against the simulator the runner started in its own
// process, with the extension host's heap before and after.
import * as fs from 'fs';
import * as path from 'path';
import { performance } from 'perf_hooks';
import * as v8 from 'v8';
import * as vscode from 'vscode';
import { batchProgress } from '../../src/batches/core/model';
import type { CrewRunsTestApi } from '../../src/testApi';
import type { HostBatchPlan, HostBatchResult } from './protocol';

/** A heap snapshot of this host, when the bench asks for them (to see what a batch leaves behind). */
function snapshot(plan: HostBatchPlan, name: string): void {
  if (plan.heapSnapshotDir) {
    fs.mkdirSync(plan.heapSnapshotDir, { recursive: true });
    v8.writeHeapSnapshot(path.join(plan.heapSnapshotDir, `batch-${name}.heapsnapshot`));
  }
}

export async function measureHostBatch(
  api: CrewRunsTestApi,
  plan: HostBatchPlan,
  gc: () => void,
  waitFor: <T>(check: () => T | undefined, what: string, timeoutMs?: number) => Promise<T>,
): Promise<HostBatchResult> {
  // As a user running big batches would: no notification per run, and a history that holds every row's run.
  const settings = vscode.workspace.getConfiguration('crewRuns');
  await settings.update('notifications', 'off', vscode.ConfigurationTarget.Global);
  await settings.update('maxRunsPerCrew', 2000, vscode.ConfigurationTarget.Global);
  await waitFor(() => api.runs.maxRunsPerCrew === 2000 || undefined, 'the history cap of 2000');
  await api.addCrew({ url: plan.crewUrl, name: 'Bench batch crew', token: plan.token }); // The palette's Add Crew asks for its token; the test API takes it.
  const crew = await waitFor(() => api.crews.get(plan.crewUrl), 'the batch crew');
  let peak = 0;
  let batchId: string | undefined;
  const watching = api.batches.store.onDidChange((ids) => {
    const batch = batchId !== undefined && ids.includes(batchId) ? api.batches.store.get(batchId) : undefined;
    if (batch) {
      peak = Math.max(peak, batch.rows.filter((r) => r.status === 'sending' || (r.status === 'sent' && !r.result)).length);
    }
  });
  try {
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    snapshot(plan, 'before');
    const started = performance.now();
    const batch = await api.batches.store.create({
      crewUrl: crew.url,
      crewName: crew.name,
      source: 'bench.jsonl',
      concurrency: plan.concurrency,
      rows: Array.from({ length: plan.rows }, (_, index) => ({ index, inputs: { topic: `row ${index}` }, status: 'queued' as const })),
    });
    batchId = batch.id;
    await api.batches.runner.start(batch.id);
    const done = await waitFor(() => {
      const current = api.batches.store.get(batch.id);
      return current && batchProgress(current).finished ? current : undefined;
    }, `the ${plan.rows}-row batch to finish`, 30 * 60_000);
    const seconds = (performance.now() - started) / 1000;
    await api.runs.flush();
    gc();
    const heapAfter = process.memoryUsage().heapUsed;
    snapshot(plan, 'after');
    return {
      rows: plan.rows,
      concurrency: plan.concurrency,
      peakRowsInFlight: peak,
      distinctKickoffIds: new Set(done.rows.filter((r) => r.kickoffId).map((r) => r.kickoffId)).size,
      lostRows: done.rows.filter((r) => r.status !== 'sent' || !r.result).length,
      heapGrowthBytes: heapAfter - heapBefore,
      seconds,
    };
  } finally {
    watching.dispose();
  }
}
