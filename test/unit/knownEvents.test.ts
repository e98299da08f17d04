// A poll hands the host only the events a run does not keep yet: the store tells the status reader (on its own
// thread) which events it keeps, and the reader leaves them out of the snapshot. Against the simulator's real log.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewClient } from '../../src/api/client';
import { normaliseStatus } from '../../src/api/normalize';
import { eventKeyHash } from '../../src/api/statusEvents';
import { RunStore } from '../../src/runTracking/runStore';
import { startSimulator, type Simulator } from '../../src/simulator/server';
import type { CrewConfig } from '../../src/simulator/types';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const crew: CrewConfig = {
  id: 'evented',
  name: 'Evented',
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 0,
  tasks: [
    { name: 'first', agent: 'A', durationMs: 150, output: 'one' },
    { name: 'second', agent: 'B', durationMs: 150, output: 'two' },
  ],
};

describe('Known events stay on the status reader\'s thread', () => {
  let sim: Simulator;
  let dir: string;
  before(async () => {
    sim = await startSimulator({ crews: [crew], seed: 5, dialect: 'live' });
  });
  after(() => sim.close());
  beforeEach(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-known-events-'))));
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('a status read with the events a body lists already known leaves them out and counts them', () => {
    const events = [{ type: 'task_started', event_id: 'a' }, { type: 'task_completed', event_id: 'b' }, { type: 'crew_kickoff_completed', event_id: 'c' }];
    const known = Float64Array.from(['id:a', 'id:b'].map(eventKeyHash));
    const log = normaliseStatus({ state: 'RUNNING', events, events_count: 3, last_event: events[2] }, 200, known).eventLog;
    assert.deepEqual(log?.events.map((e) => e.id), ['c']);
    assert.equal(log?.known, 2);
    assert.equal(log?.notRead, undefined, 'known events are not "not read"');
  });

  it('the second poll of a run brings the host only the events it did not keep', async () => {
    const client = new CrewClient({ getToken: async () => sim.crews[0].orgToken });
    const store = new RunStore({ get: () => undefined, update: async () => undefined }, dir, quiet);
    await store.load();
    try {
      const url = sim.crewUrl('evented');
      const kickoffId = await client.kickoff(url, { inputs: { topic: 'known' } });
      const run = await store.add({ crewUrl: url, crewName: 'Evented', kickoffId, inputs: { topic: 'known' } });
      const first = await client.getStatus(url, kickoffId, undefined, await store.knownEvents(run.id));
      await store.applyPolled(run.id, undefined, first);
      const keptFirst = (await store.readDetails(run.id)).events?.kept ?? 0;
      assert.ok(keptFirst > 0, 'the first poll kept events');
      // Until the run has ended: its log is whole.
      for (let i = 0; i < 200 && sim.getRun(kickoffId)?.phase !== 'succeeded'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const known = await store.knownEvents(run.id);
      assert.equal(known.length, keptFirst);
      const second = await client.getStatus(url, kickoffId, undefined, known);
      assert.equal(second.eventLog?.known, keptFirst, 'every kept event left out');
      assert.ok(second.eventLog!.events.every((e) => !known.includes(eventKeyHash(e.key))), 'only new events came back');
      await store.applyPolled(run.id, undefined, second);
      const details = await store.readDetails(run.id);
      assert.equal(details.events?.kept, details.lastSnapshot?.eventLog?.count, 'together, every event the run emitted');
    } finally {
      await store.flush();
      store.dispose();
      await client.dispose();
    }
  });
});
