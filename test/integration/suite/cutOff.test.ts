// @crew-runs-reload-session — the runner gives this file a VS Code of its own and reloads its window.
//
// A window cut off from its extension host without a goodbye (a crashed tab, a closed laptop, a
// dropped connection at the wrong moment of a reload) leaves that extension host running for the
// server's reconnection grace time: hours. It must not keep the runs it polled from the windows that
// are still there. Here the runner drops the page's connections, refuses its reconnection and
// reloads it: the new window must take the run in flight over within a lease period or so, and
// end it. (Found in CI: the Chaos suite's runs of the first phases never ended after a reload whose
// old extension host lived on.)
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { CrewConfig } from '../../../src/simulator/server';
import { readAllLogs, reload, reloadSuite, showCrewRunsView, waitFor, kickOffWithoutReview } from '../helpers';
import { type Api, testApi } from './support/kit';
import { phaseSimulator, type RemoteSimulator } from './support/reloadSim';

const SIM = 'cut-off';
/** The lease a window holds on a run lasts 30 s unless renewed (storage/lease.ts). */
const LEASE_TTL_MS = 30_000;

const slowCrew: CrewConfig = {
  id: 'slow',
  name: 'Slow',
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 500,
  tasks: [
    { name: 'research_task', agent: 'Researcher', durationMs: 15_000, output: 'Notes on {topic}.' },
    { name: 'writing_task', agent: 'Writer', durationMs: 15_000, output: '# Report on {topic}' },
  ],
};

interface Before {
  runId: string;
  owner: string;
}

function leaseOwner(api: Api, runId: string): string | undefined {
  try {
    const file = path.join(api.globalStorageUri.fsPath, 'leases', `${runId}.lease`);
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { owner?: string }).owner;
  } catch {
    return undefined;
  }
}

/** This window's log lines about the run (and its leases), for a failure message. */
function runLog(runId: string): string {
  return readAllLogs()
    .split('\n')
    .filter((line) => line.includes(runId) || /lease|answer/i.test(line))
    .slice(-30)
    .join('\n');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

reloadSuite('Reload (cut off)', function (s) {
  this.timeout(180_000);
  let api: Api;
  let sim: RemoteSimulator;

  before(async () => {
    api = await testApi();
    sim = await phaseSimulator(s.phase, SIM, { timeScale: 1, seed: 7, crews: [slowCrew] }, 'Cut Off');
    await showCrewRunsView();
  });

  after(async () => {
    await sim?.close();
  });

  s.step('has a run in flight, polled by this window', async () => {
    const runId = await kickOffWithoutReview<string>({ crew: sim.crew('slow').url, inputs: { topic: 'Cut off' } });
    assert.ok(runId, 'the kickoff returned a run id');
    await waitFor(() => api.runs.get(runId)?.state === 'running', { message: 'the run running', timeoutMs: 30_000 });
    const owner = await waitFor(() => leaseOwner(api, runId), { message: 'this window holding the run lease' });
    await api.runs.flush();
    reload.set('before', { runId, owner } satisfies Before);
  });

  s.reload('is cut off from its extension host and reloaded', { via: 'sever' });

  s.step('the cut-off extension host lives on, and this window takes the run over and ends it', async () => {
    const before = reload.get<Before>('before')!;
    const cutOff = reload.history().at(-1)!;
    assert.notStrictEqual(cutOff.pid, process.pid, 'a new extension host');
    // Otherwise this test would not test what it says: the old host got its goodbye after all.
    assert.ok(alive(cutOff.pid), `the cut-off extension host (pid ${cutOff.pid}) still runs`);
    assert.ok(api.runs.get(before.runId), 'the run is in the history');
    const ended = await waitFor(() => (api.runs.get(before.runId)?.state === 'succeeded' ? api.runs.get(before.runId) : undefined), {
      message: () => `the run ending here (now ${api.runs.get(before.runId)?.state}; lease owner ${leaseOwner(api, before.runId)}; log:\n${runLog(before.runId)})`,
      timeoutMs: 3 * LEASE_TTL_MS + 30_000,
      intervalMs: 250,
    });
    console.log(`      the run ended here ${((Date.now() - cutOff.at) / 1000).toFixed(1)} s after the cut`);
    assert.notStrictEqual(leaseOwner(api, before.runId), before.owner, 'the cut-off window no longer holds the run');
    const details = await api.runs.readDetails(ended.id);
    assert.strictEqual(details.finalOutput?.text, '# Report on Cut off');
    assert.ok(alive(cutOff.pid), 'the cut-off extension host still runs: it let go of the run while alive');
  });
});
