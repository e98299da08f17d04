// Issue #31 §3: a crew paused for its token in one window must not keep its runs from the others. Two
// windows share the global storage folder (run records, leases) and a lagging globalState; each has its
// own poller and its own view of the crew's token (one refused, one working).

import * as assert from 'node:assert/strict';
import { CrewApiError } from '../../src/api/errors';
import type { StatusSnapshot, StatusSource } from '../../src/api/types';
import { type PollingWindow, PollingWindows } from './helpers/pollingWindows';

const CREW = 'https://crew-a.example.com';
const TTL = 30_000;

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

describe('A crew paused for its token, across windows (issue #31)', () => {
  let windows: PollingWindows;
  let clock: PollingWindows['clock'];

  beforeEach(async () => {
    windows = await PollingWindows.create('crew-paused-');
    clock = windows.clock;
  });

  afterEach(async () => {
    await windows.dispose();
  });

  function window(name: string, tokenWorks: boolean): Promise<PollingWindow<WindowSource>> {
    return windows.window(name, new WindowSource(tokenWorks), {
      ttlMs: TTL,
      random: () => 0.5,
      firstDelayMs: 1_500,
      fastIntervalMs: 1_500,
      fastPhaseMs: 0,
      ownershipRecheckMs: 5_000,
    });
  }

  /** Time passes with both windows alive: each renews its leases, as startRenewing does. */
  async function live(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= 5_000) {
      await clock.advance(Math.min(5_000, left));
      for (const w of windows.windows) {
        await w.lease.renew();
      }
    }
  }

  /** What the record watcher does when another window writes a run's file. */
  async function sees(w: PollingWindow<WindowSource>, runId: string): Promise<void> {
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
    await windows.close(b);
    a.source.tokenWorks = true;
    await live(60_000);
    assert.ok(a.source.calls > 1, 'the run, watched in the shared state, is polled by no window');
    assert.equal(a.store.get(run.id)?.watching, true);
    assert.equal(a.store.get(run.id)?.state, 'running');
  });
});
