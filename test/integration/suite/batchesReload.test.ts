// @crew-runs-reload-session — the runner gives this file a VS Code of its own and reloads its window.
//
// Batches › a window reload mid-batch loses and duplicates nothing: rows whose kickoff was in flight
// become "unknown — check before re-running", the others go on in the reloaded window, and the
// simulator's request log proves every row was kicked off exactly once.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { batchProgress } from '../../../src/batches/core/model';
import type { CrewConfig } from '../../../src/simulator/server';
import { executeCommand, reload, reloadSuite, waitFor } from '../helpers';
import { type Api, pressInQuickInput, testApi, waitForQuickInput } from './support/kit';
import { phaseSimulator, type RemoteSimulator } from './support/reloadSim';

const SIM = 'batches';
const ROWS = 15;

const crew: CrewConfig = {
  id: 'rows',
  name: 'Rows',
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 300,
  tasks: [{ name: 'only_task', agent: 'Worker', durationMs: 1500, output: 'Done: {topic}' }],
  // Every answer takes a while: kickoffs are in flight when the window goes.
  faults: { latencyMs: 2000 },
};

reloadSuite('Batches (reload)', function (s) {
  this.timeout(240_000);
  let api: Api;
  let sim: RemoteSimulator;

  before(async () => {
    api = await testApi();
    sim = await phaseSimulator(s.phase, SIM, { timeScale: 1, seed: 5, crews: [crew] }, 'Reload');
  });

  after(async () => {
    if (s.phase === 1) {
      for (const b of api?.batches.store.list() ?? []) {
        await api.batches.store.remove(b.id);
      }
      await sim?.close();
    }
  });

  s.step('starts a batch and has rows in flight', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crew-batch-reload-')), 'rows.jsonl');
    fs.writeFileSync(file, Array.from({ length: ROWS }, (_, i) => JSON.stringify({ topic: `row ${i}` })).join('\n'));
    const started = executeCommand<string>('crewRuns.kickOffBatch', { crew: sim.crew('rows').url, file });
    await waitForQuickInput(`Kick Off ${ROWS} Rows`);
    await pressInQuickInput('Enter', { when: `Kick Off ${ROWS} Rows`, activeItem: `Kick Off ${ROWS} Rows` });
    const batchId = await started;
    assert.ok(batchId);
    // Some rows sent, and a kickoff in flight right now.
    await waitFor(
      () => {
        const rows = api.batches.store.get(batchId)!.rows;
        return rows.filter((r) => r.status === 'sent').length >= 3 && rows.some((r) => r.status === 'sending');
      },
      { message: 'rows sent and one in flight', timeoutMs: 60_000, intervalMs: 20 },
    );
    await api.batches.store.flush();
    reload.set('batchId', batchId);
  });

  s.reload('reloads the window mid-batch');

  s.step('goes on in the reloaded window; every row kicked off exactly once; none lost', async () => {
    const batchId = reload.get<string>('batchId')!;
    await waitFor(() => api.batches.store.get(batchId), { message: 'the batch after the reload', timeoutMs: 30_000 });
    const done = await waitFor(() => batchProgress(api.batches.store.get(batchId)!).finished && api.batches.store.get(batchId), {
      message: `the batch finishes (${JSON.stringify(api.batches.store.get(batchId)?.rows.map((r) => r.status))})`,
      timeoutMs: 180_000,
      intervalMs: 500,
    });
    const runs = (await sim.listRuns()).filter((r) => r.crewId === 'rows');
    const kickoffs = (await sim.requests()).filter((r) => r.crewId === 'rows' && r.endpoint === 'kickoff');
    const unknown = done.rows.filter((r) => r.status === 'unknown');
    const perTopic = new Map<string, number>();
    for (const run of runs) {
      perTopic.set(String(run.inputs.topic), (perTopic.get(String(run.inputs.topic)) ?? 0) + 1);
    }
    console.log(`      ${kickoffs.length} kickoff requests, ${runs.length} runs at the crew, rows: ${JSON.stringify(done.rows.map((r) => r.status))}`);
    // One kickoff request per row, no more: the row in flight at the reload was not sent again. (Its
    // request may have reached the crew without making a run: the connection went mid-request.)
    assert.ok(kickoffs.length <= ROWS && kickoffs.length >= ROWS - unknown.length, `one kickoff request per row at most (${kickoffs.length} for ${ROWS} rows)`);
    assert.ok(runs.length <= kickoffs.length);
    assert.ok([...perTopic.values()].every((n) => n === 1), `no row kicked off twice: ${JSON.stringify([...perTopic])}`);
    // A kickoff in flight at the reload either finished before the old extension host ended (the row
    // says sent) or did not (unknown): never sent again, either way.
    for (const row of unknown) {
      assert.ok((perTopic.get(row.inputs.topic as string) ?? 0) <= 1, 'an unknown row went out at most once (before the reload)');
      assert.match(row.note ?? '', /check the crew before re-running/);
    }
    for (const row of done.rows.filter((r) => r.status !== 'unknown')) {
      assert.strictEqual(row.status, 'sent', `row ${row.index} was sent, not lost`);
      assert.strictEqual(perTopic.get(row.inputs.topic as string), 1, `row ${row.index} at the crew once`);
      assert.strictEqual(row.result?.state, 'succeeded', `row ${row.index} ends as the crew says`);
    }
    assert.strictEqual(perTopic.size, ROWS - unknown.length + unknown.filter((r) => perTopic.has(r.inputs.topic as string)).length);
  });
});
