// Issue #31 §3: a crew paused for its token in one window must not keep its runs from the others. Two
// windows share the global storage folder (run records, leases) and a lagging globalState; each has its
// own poller and its own view of the crew's token (one refused, one working).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewApiError } from '../../src/api/errors';
import type { StatusSnapshot, StatusSource } from '../../src/api/types';
import { LeaseManager } from '../../src/runs/lease';
import type { Logger } from '../../src/runs/model';
import { RunPoller } from '../../src/runs/poller';
import { RunStore } from '../../src/runs/runStore';
import { FakeClock } from './helpers/fakeClock';
import { MementoHub } from './helpers/laggingMemento';

const CREW = 'https://crew-a.example.com';
const TTL = 30_000;
const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const realTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One window's view of the crew: its token is refused, or the run is running. */
class WindowSource implements StatusSource {
  calls = 0;
  constructor(public tokenWorks: boolean) {}
  async getStatus(): Promise<StatusSnapshot> {
    this.calls++;
    if (!this.tokenWorks) {
      throw new CrewApiError('unauthorized', 'Invalid or missing authentication credentials', { status: 401 });
    }
    return { state: 'running', tasks: [], raw: { state: 'running' } };
  }
}

interface Win {
  store: RunStore;
  lease: LeaseManager;
  poller: RunPoller;
  source: WindowSource;
}

describe('A crew paused for its token, across windows (issue #31)', () => {
  let dir: string;
  let clock: FakeClock;
  let hub: MementoHub;
  const wins: Win[] = [];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-paused-'));
    clock = new FakeClock(1_700_000_000_000);
    hub = new MementoHub();
    // Let each timer's work (polls, store writes, lease files) finish before time moves on.
    clock.settle = async () => {
      for (let quietTicks = 0; quietTicks < 3; ) {
        await realTick();
        await Promise.all(wins.map((w) => w.poller.whenIdle()));
        quietTicks = wins.every((w) => w.poller.pendingOperations === 0) ? quietTicks + 1 : 0;
      }
    };
  });

  afterEach(async () => {
    for (const w of wins.splice(0)) {
      w.poller.dispose();
      await w.lease.dispose();
      await w.store.flush();
      w.store.dispose();
    }
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function window(name: string, tokenWorks: boolean): Promise<Win> {
    const store = new RunStore(hub.window(), dir, quiet, { clock });
    await store.load();
    const lease = new LeaseManager(path.join(dir, 'leases'), name, quiet, { clock, ttlMs: TTL });
    const source = new WindowSource(tokenWorks);
    const poller = new RunPoller(store, source, clock, quiet, {
      canPoll: (id) => lease.canPoll(id),
      release: (id) => lease.release(id),
    }, { random: () => 0.5, firstDelayMs: 1_500, fastIntervalMs: 1_500, fastPhaseMs: 0, ownershipRecheckMs: 5_000 });
    const win = { store, lease, poller, source };
    wins.push(win);
    return win;
  }

  /** Time passes with both windows alive: each renews its leases, as startRenewing does. */
  async function live(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= 5_000) {
      await clock.advance(Math.min(5_000, left));
      for (const w of wins) {
        await w.lease.renew();
      }
    }
  }

  /** What the record watcher does when another window writes a run's file. */
  async function sees(w: Win, runId: string): Promise<void> {
    await w.store.refresh(runId);
    await clock.settle();
  }

  it('pausing releases the runs\u2019 leases: a run resumed in a window whose token works is polled there', async () => {
    const a = await window('window-a', false);
    const run = await a.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: {} });
    a.poller.start();
    await live(5_000);
    assert.equal(a.store.get(run.id)?.stopReason, 'unauthorized');
    assert.equal(a.lease.owns(run.id), false, 'window A paused the crew and kept the run\u2019s lease');

    const b = await window('window-b', true);
    b.poller.start();
    await b.poller.resumeWatching(run.id);
    await sees(a, run.id);
    await live(60_000);
    assert.ok(b.source.calls > 0, 'nobody polls the run resumed in window B');
    assert.equal(b.store.get(run.id)?.state, 'running');
    assert.equal(a.source.calls, 1, 'window A, whose token is refused, polled the run again');
  });

  it('a window that paused the crew takes the run over once the shared state says it is watched and nobody polls it', async () => {
    const a = await window('window-a', false);
    const run = await a.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: {} });
    a.poller.start();
    await live(5_000);
    assert.equal(a.store.get(run.id)?.stopReason, 'unauthorized');

    const b = await window('window-b', true);
    b.poller.start();
    await b.poller.resumeWatching(run.id);
    await sees(a, run.id);
    await live(10_000);
    assert.ok(b.source.calls > 0);
    // Window B closes; A's token was fixed meanwhile (e.g. a key rotated back at the crew: no token change here).
    wins.splice(wins.indexOf(b), 1);
    b.poller.dispose();
    await b.lease.dispose();
    await b.store.flush();
    b.store.dispose();
    a.source.tokenWorks = true;
    await live(60_000);
    assert.ok(a.source.calls > 1, 'the run, watched in the shared state, is polled by no window');
    assert.equal(a.store.get(run.id)?.watching, true);
    assert.equal(a.store.get(run.id)?.state, 'running');
  });
});
