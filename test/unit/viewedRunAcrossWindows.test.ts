// Issue #31 §3: a run viewed in a window that does not own it (another window polls it, in the background)
// must show its end there within the viewed pace, and "succeeded" is said once, where the user looks.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunState, StatusSnapshot, StatusSource } from '../../src/api/types';
import { LeaseManager } from '../../src/runs/lease';
import type { Logger } from '../../src/runs/model';
import { RunPoller } from '../../src/runs/poller';
import { RunStore } from '../../src/runs/runStore';
import { FakeClock } from './helpers/fakeClock';
import { MementoHub } from './helpers/laggingMemento';

const CREW = 'https://crew-a.example.com';
const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const realTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The crew, as every window sees it. */
const service: { state: RunState } = { state: 'running' };

class CountingSource implements StatusSource {
  calls = 0;
  async getStatus(): Promise<StatusSnapshot> {
    this.calls++;
    return { state: service.state, tasks: [], raw: { state: service.state } };
  }
}

interface Win {
  name: string;
  store: RunStore;
  lease: LeaseManager;
  poller: RunPoller;
  source: CountingSource;
  notices: string[];
}

describe('A run viewed in a window that does not poll it (issue #31)', () => {
  let dir: string;
  let clock: FakeClock;
  let hub: MementoHub;
  const wins: Win[] = [];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-viewed-'));
    clock = new FakeClock(1_700_000_000_000);
    hub = new MementoHub();
    service.state = 'running';
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

  async function window(name: string): Promise<Win> {
    const store = new RunStore(hub.window(), dir, quiet, { clock });
    await store.load();
    const lease = new LeaseManager(path.join(dir, 'leases'), name, quiet, { clock, ttlMs: 60_000 });
    const source = new CountingSource();
    const poller = new RunPoller(store, source, clock, quiet, { canPoll: (id) => lease.canPoll(id), release: (id) => lease.release(id) }, { random: () => 0.5 });
    const win: Win = { name, store, lease, poller, source, notices: [] };
    poller.onDidPoll((result) => result.notice && win.notices.push(result.notice));
    wins.push(win);
    return win;
  }

  /** Time passes; each window renews its leases and learns the other's writes, as the watcher tells it. */
  async function live(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= 500) {
      await clock.advance(Math.min(500, left));
      for (const w of wins) {
        await w.lease.renew();
        await w.store.reload();
      }
      await clock.settle();
    }
  }

  it('the viewing window polls it at the viewed pace; its end shows there within 3 s and is announced once, there', async () => {
    const owner = await window('window-a');
    const run = await owner.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: {} });
    owner.poller.start();
    owner.poller.setFocused(false); // The user went to the other window.
    await live(60_000);
    assert.ok(owner.lease.owns(run.id), 'window A polls the run');

    const viewer = await window('window-b');
    viewer.poller.start();
    viewer.poller.setViewed([run.id]);
    await live(10_000);
    assert.equal(viewer.lease.owns(run.id), false, 'the lease stays with window A');

    // The run ends just after window A's poll: A, unfocused, asks again only in 30 s or so.
    const polls = owner.source.calls;
    while (owner.source.calls === polls) {
      await live(500);
    }
    service.state = 'succeeded';
    const ended = clock.now();
    await live(3_000);
    assert.equal(viewer.store.get(run.id)?.state, 'succeeded', 'the viewed run\u2019s end does not show in the window viewing it within 3 s');
    await live(120_000);
    assert.deepEqual(
      wins.map((w) => [w.name, w.notices]),
      [['window-a', []], ['window-b', ['ended']]],
      `"succeeded" said once, in the window viewing the run (ended at +${clock.now() - ended} ms)`,
    );
    assert.equal(owner.store.get(run.id)?.state, 'succeeded');
  });
});
