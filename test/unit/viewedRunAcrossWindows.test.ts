// Issue #31 §3: a run viewed in a window that does not own it (another window polls it, in the background)
// must show its end there within the viewed pace, and "succeeded" is said once, where the user looks.

import * as assert from 'node:assert/strict';
import type { RunState, StatusSnapshot, StatusSource } from '../../src/api/types';
import { type PollingWindow, PollingWindows } from './helpers/pollingWindows';

const CREW = 'https://crew-a.example.com';

/** The crew, as every window sees it. */
const service: { state: RunState } = { state: 'running' };

class CountingSource implements StatusSource {
  calls = 0;
  async getStatus(): Promise<StatusSnapshot> {
    this.calls++;
    return { state: service.state, tasks: [], raw: { state: service.state } };
  }
}

describe('A run viewed in a window that does not poll it (issue #31)', () => {
  let windows: PollingWindows;
  const notices = new Map<string, string[]>();

  beforeEach(async () => {
    windows = await PollingWindows.create('crew-viewed-');
    service.state = 'running';
    notices.clear();
  });

  afterEach(async () => {
    await windows.dispose();
  });

  async function window(name: string): Promise<PollingWindow<CountingSource>> {
    const win = await windows.window(name, new CountingSource(), { ttlMs: 60_000, random: () => 0.5 });
    notices.set(name, []);
    win.poller.onDidPoll((result) => result.notice && notices.get(name)!.push(result.notice));
    return win;
  }

  /** Time passes; each window renews its leases and learns the other's writes, as the watcher tells it. */
  async function live(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= 500) {
      await windows.clock.advance(Math.min(500, left));
      for (const w of windows.windows) {
        await w.lease.renew();
        await w.store.reload();
      }
      await windows.clock.settle();
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
    const ended = windows.clock.now();
    await live(3_000);
    assert.equal(viewer.store.get(run.id)?.state, 'succeeded', 'the viewed run\u2019s end does not show in the window viewing it within 3 s');
    await live(120_000);
    assert.deepEqual(
      [...notices],
      [['window-a', []], ['window-b', ['ended']]],
      `"succeeded" said once, in the window viewing the run (ended at +${windows.clock.now() - ended} ms)`,
    );
    assert.equal(owner.store.get(run.id)?.state, 'succeeded');
  });
});
