// Stop Run against the simulator: POST /stop/{id} in both hosted families, and a crew without the route.
import * as assert from 'node:assert/strict';
import { CrewClient } from '../../src/api/client';
import { startSimulator, type Simulator } from '../../src/simulator/server';
import type { CrewConfig, Dialect } from '../../src/simulator/types';

const crew = (id: string, extra: Partial<CrewConfig> = {}): CrewConfig => ({
  id,
  name: id,
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 0,
  tasks: [
    { name: 'quick_task', agent: 'A', durationMs: 0, output: 'quick' },
    { name: 'long_task', agent: 'B', durationMs: 60_000, output: 'long {topic}' },
  ],
  ...extra,
});

function clientOf(sim: Simulator): CrewClient {
  return new CrewClient({ getToken: async (url) => sim.crews.find((c) => c.url === url)?.orgToken });
}

async function waitForPhase(sim: Simulator, id: string, phase: string): Promise<void> {
  for (let i = 0; i < 200 && sim.getRun(id)?.phase !== phase; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(sim.getRun(id)?.phase, phase);
}

for (const dialect of ['live', 'docs'] as Dialect[]) {
  describe(`Stop Run (${dialect} dialect)`, () => {
    let sim: Simulator;
    let client: CrewClient;
    before(async () => {
      sim = await startSimulator({
        dialect,
        crews: [crew('long'), crew('quick', { tasks: [{ name: 't', agent: 'A', durationMs: 0, output: 'done' }] }), crew('noStop', { stopRoute: false }), crew('stop405', { stopRoute: false, stopAnswers405: true })],
      });
      client = clientOf(sim);
    });
    after(() => sim.close());

    it('stops a running run; its status then reads cancelled', async () => {
      const id = await client.kickoff(sim.crewUrl('long'), { inputs: { topic: 'x' } });
      await waitForPhase(sim, id, 'running');
      assert.deepEqual(await client.stop(sim.crewUrl('long'), id), { kind: 'stopped' });
      assert.equal(sim.getRun(id)?.phase, 'stopped');
      assert.equal((await client.getStatus(sim.crewUrl('long'), id)).state, 'cancelled');
      assert.equal(sim.requestLog.counts('long').stop, 1);
    });

    it('says a finished run already ended, in the server\'s words', async () => {
      const id = await client.kickoff(sim.crewUrl('quick'), { inputs: { topic: 'x' } });
      await waitForPhase(sim, id, 'succeeded');
      const result = await client.stop(sim.crewUrl('quick'), id);
      assert.equal(result.kind, 'alreadyEnded');
      assert.match(result.kind === 'alreadyEnded' ? (result.serverMessage ?? '') : '', /Current state: SUCCESS/);
      assert.equal(sim.getRun(id)?.phase, 'succeeded');
    });

    it('tells an unknown run from a crew without the route', async () => {
      const unknown = await client.stop(sim.crewUrl('long'), 'no-such-run');
      assert.equal(unknown.kind, 'unknownRun');
      assert.deepEqual(await client.stop(sim.crewUrl('noStop'), 'any'), { kind: 'unsupported' });
      assert.deepEqual(await client.stop(sim.crewUrl('stop405'), 'any'), { kind: 'unsupported' });
    });
  });
}

describe('Stop Run (selfhosted dialect)', () => {
  let sim: Simulator;
  let client: CrewClient;
  before(async () => {
    sim = await startSimulator({ dialect: 'selfhosted', crews: [crew('plain'), crew('withStop', { stopRoute: true })] });
    client = clientOf(sim);
  });
  after(() => sim.close());

  it('has no stop route by default: a generic FastAPI 404, so the extension hides Stop Run', async () => {
    const id = await client.kickoff(sim.crewUrl('plain'), { inputs: { topic: 'x' } });
    await waitForPhase(sim, id, 'running');
    const response = await fetch(`${sim.crewUrl('plain')}/stop/${id}`, { method: 'POST', headers: { Authorization: `Bearer ${sim.crews[0].orgToken}` } });
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { detail: 'Not Found' });
    assert.deepEqual(await client.stop(sim.crewUrl('plain'), id), { kind: 'unsupported' });
    assert.equal(sim.getRun(id)?.phase, 'running');
  });

  it('a crew given the route stops its run, and its status then reads cancelled', async () => {
    const id = await client.kickoff(sim.crewUrl('withStop'), { inputs: { topic: 'x' } });
    await waitForPhase(sim, id, 'running');
    assert.deepEqual(await client.stop(sim.crewUrl('withStop'), id), { kind: 'stopped' });
    assert.equal(sim.getRun(id)?.phase, 'stopped');
    assert.equal((await client.getStatus(sim.crewUrl('withStop'), id)).state, 'cancelled');
  });
});
