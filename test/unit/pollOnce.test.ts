// One retry policy: under the poller a status check is one request. The poller owns the backoff
// (and Retry-After); the client does not retry a status read behind its back. Counted at the real
// simulator, with its fault injection.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewClient } from '../../src/api/client';
import type { Logger } from '../../src/util/logger';
import { type PollerInspection, type PollResult, RunPoller } from '../../src/runTracking/poller';
import { type KeyValueStore, RunStore } from '../../src/runTracking/runStore';
import { startSimulator, type Simulator } from '../../src/simulator/server';
import type { CrewConfig, ReadFaultKind } from '../../src/simulator/types';
import { systemClock } from '../../src/util/clock';

const crew: CrewConfig = {
  id: 'slow',
  name: 'Slow',
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 0,
  tasks: [{ name: 'long_task', agent: 'A', durationMs: 600_000, output: 'long {topic}' }],
};

function memoryKv(): KeyValueStore {
  const data = new Map<string, string>();
  return {
    get: <T>(key: string) => (data.has(key) ? (JSON.parse(data.get(key)!) as T) : undefined),
    update: async (key, value) => void data.set(key, JSON.stringify(value)),
  };
}

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.ok(check(), what);
}

describe('One retry policy: the poller reads once', () => {
  let sim: Simulator;
  let dir: string;
  let store: RunStore;
  let client: CrewClient;
  let poller: RunPoller | undefined;
  const clientSleeps: number[] = [];

  before(async () => {
    sim = await startSimulator({ crews: [crew], seed: 3 });
  });
  after(() => sim.close());

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-poll-once-'));
    store = new RunStore(memoryKv(), dir, quiet);
    await store.load();
    clientSleeps.length = 0;
    // A client wait (if any) returns at once: hidden retries would show as extra requests, not as time.
    client = new CrewClient({ getToken: async () => sim.crews[0].orgToken, sleep: async (ms) => void clientSleeps.push(ms) });
  });

  afterEach(async () => {
    poller?.dispose();
    poller = undefined;
    sim.setFaults({});
    await store.flush();
    store.dispose();
    await client.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });

  // The server's own words for each fault, as the simulator sends them.
  const faults: [ReadFaultKind, RegExp][] = [
    ['503', /Service Unavailable/],
    ['429', /Too Many Requests/],
    ['502html', /502 Bad Gateway/],
    ['reset', /./],
  ];
  for (const [kind, words] of faults) {
    it(`a failing poll is sent once per poll (no hidden retries under the poller): ${kind}`, async () => {
      const kickoffId = await client.kickoff(sim.crewUrl('slow'), { inputs: { topic: 'x' } });
      const run = await store.add({ crewUrl: sim.crewUrl('slow'), crewName: 'Slow', kickoffId, inputs: { topic: 'x' } });
      sim.setFaults({ readFaultRate: 1, readFaultKinds: [kind], retryAfterSeconds: 0 });
      sim.requestLog.clear();
      // Polled at once, then not again within the test: exactly one poll happens.
      let polling!: PollerInspection;
      poller = new RunPoller(store, client, systemClock, quiet, undefined, { firstDelayMs: 0, fastIntervalMs: 600_000, maxIntervalMs: 600_000, inspect: (i) => (polling = i) });
      const polled = new Promise<PollResult>((resolve) => poller!.onDidPoll(resolve));
      poller.start();
      const result = await polled;
      await polling.whenIdle();
      assert.equal(result.ok, false);
      await until(() => sim.requestLog.counts('slow').status >= 1, 'the status request reached the simulator');
      assert.equal(sim.requestLog.counts('slow').status, 1, 'one request for one poll');
      assert.deepEqual(clientSleeps, [], 'the client did not wait to retry');
      // Said in plain words, with the server's own words; polling goes on (the run is not failed).
      const after = store.get(run.id)!;
      assert.match(after.warning ?? '', words);
      assert.doesNotMatch(after.warning ?? '', /^(server|rateLimited|network), HTTP/);
      assert.equal(after.state, run.state);
      assert.deepEqual(polling.scheduledRunIds(), [run.id], 'still polled');
    });
  }

  it('a Retry-After is waited out by the poller\u2019s next check, not by the client under it', async () => {
    const kickoffId = await client.kickoff(sim.crewUrl('slow'), { inputs: { topic: 'y' } });
    const run = await store.add({ crewUrl: sim.crewUrl('slow'), crewName: 'Slow', kickoffId, inputs: { topic: 'y' } });
    sim.setFaults({ readFaultRate: 1, readFaultKinds: ['429'], retryAfterSeconds: 30 });
    sim.requestLog.clear();
    // Left alone, the poller would check again after 1 ms: only the crew's Retry-After holds it back.
    let polling!: PollerInspection;
    poller = new RunPoller(store, client, systemClock, quiet, undefined, { firstDelayMs: 0, fastIntervalMs: 1, maxIntervalMs: 1, jitter: 0, inspect: (i) => (polling = i) });
    const polled = new Promise<PollResult>((resolve) => poller!.onDidPoll(resolve));
    poller.start();
    await polled;
    await polling.whenIdle();
    const wait = polling.nextPollAt(run.id)! - Date.now();
    assert.ok(wait > 25_000 && wait <= 30_000, `next check in ${wait} ms`);
    await until(() => sim.requestLog.counts('slow').status >= 1, 'the status request reached the simulator');
    assert.equal(sim.requestLog.counts('slow').status, 1);
    assert.deepEqual(clientSleeps, []);
    assert.match(store.get(run.id)?.warning ?? '', /limiting requests \(429\): Too Many Requests\. Trying again in 30 s\./);
  });
});
