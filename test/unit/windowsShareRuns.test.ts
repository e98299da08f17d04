// Issue #31: windows share runs through storage that lags (each window's copy of globalState reaches the
// others later, whole). A stale window must not undo another window's change, whatever key it writes.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunState, StatusSnapshot } from '../../src/api/types';
import type { Logger } from '../../src/util/logger';
import { watchRecords } from '../../src/runTracking/recordWatcher';
import { RunStore } from '../../src/runTracking/runStore';
import { FakeClock } from './helpers/fakeClock';
import { type LaggingMemento, MementoHub } from './helpers/laggingMemento';

const CREW = 'https://crew-a.example.com';
/** Any other key of the extension's global state (the demo port, input memory, crews without Stop). */
const OTHER_KEY = 'crewRuns.inputMemory';

function snap(state: RunState, extra: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return { state, tasks: [], raw: { state }, ...extra };
}

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Win {
  memento: LaggingMemento;
  store: RunStore;
}

describe('Runs across windows whose globalState lags (issue #31)', () => {
  let dir: string;
  let clock: FakeClock;
  let hub: MementoHub;
  const open: RunStore[] = [];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-lag-'));
    clock = new FakeClock(1_700_000_000_000);
    hub = new MementoHub();
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map(async (s) => {
      await s.flush();
      s.dispose();
    }));
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A window: its own lagging copy of globalState, the shared global storage folder. */
  async function window(): Promise<Win> {
    const memento = hub.window();
    const store = new RunStore(memento, dir, quiet, { clock });
    await store.load();
    open.push(store);
    return { memento, store };
  }

  /** Every window has received every write, and re-read what it shows. */
  async function settle(...wins: Win[]): Promise<void> {
    for (const w of wins) {
      w.memento.deliver();
      await w.store.reload();
    }
  }

  const waiting = (task = 'review') => snap('awaitingFeedback', { feedback: { taskId: 't1', taskName: task } });

  it('a run that ended in window A does not come back as running after window B writes anything, and its end is announced once', async () => {
    const a = await window();
    const run = await a.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    await a.store.applyPolled(run.id, undefined, snap('running'));
    const b = await window();
    assert.equal(b.store.get(run.id)?.state, 'running');

    assert.equal((await a.store.applyPolled(run.id, undefined, snap('succeeded'))).notice, 'ended');
    await b.memento.update(OTHER_KEY, { [CREW]: { presets: [] } }); // B has not received A's write yet.
    await settle(a, b);

    assert.equal(a.store.get(run.id)?.state, 'succeeded', 'the ended run came back in A');
    assert.equal(b.store.get(run.id)?.state, 'succeeded');
    assert.equal((await a.store.applyPolled(run.id, undefined, snap('succeeded'))).notice, undefined, '"succeeded" announced twice');
    assert.equal((await window()).store.get(run.id)?.state, 'succeeded', 'a new window sees it running');
  });

  it('a feedback round sent from window B (new kickoff id) is not overwritten by window A\u2019s poll', async () => {
    const a = await window();
    const run = await a.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    await a.store.applyPolled(run.id, undefined, waiting());
    const b = await window();
    const polled = { kickoffId: 'k1', revision: a.store.get(run.id)!.revision }; // A asks the service now...

    await b.store.addFeedbackRound(run.id, { at: clock.now(), approve: false, feedback: 'More', taskId: 't1' }, 'k2');
    // ...and its answer (still waiting, under the old id) lands after B's round, before A received it.
    await a.store.applyPolled(run.id, polled, waiting('review again'));

    for (const order of ['sent', 'reversed'] as const) {
      a.memento.deliver(order);
      b.memento.deliver(order);
      await a.store.reload();
      await b.store.reload();
      for (const [name, w] of [['A', a], ['B', b], ['a new window', await window()]] as const) {
        const r = w.store.get(run.id)!;
        assert.deepEqual([r.kickoffId, r.needsFeedback], ['k2', false], `${name} (${order}): the round was overwritten`);
      }
    }
  });

  it('Stop Watching in window B is not undone by window A\u2019s poll', async () => {
    const a = await window();
    const run = await a.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    const b = await window();
    const polled = { kickoffId: 'k1', revision: a.store.get(run.id)!.revision };

    await b.store.setWatching(run.id, false, 'user');
    await a.store.applyPolled(run.id, polled, snap('running'));
    await settle(a, b);

    for (const [name, w] of [['A', a], ['B', b], ['a new window', await window()]] as const) {
      assert.deepEqual([w.store.get(run.id)?.watching, w.store.get(run.id)?.stopReason], [false, 'user'], `${name}: Stop Watching was undone`);
    }
  });

  it('Remove in window B is not undone by window A writing anything', async () => {
    const a = await window();
    const run = await a.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    const b = await window();

    await b.store.remove(run.id);
    await a.memento.update(OTHER_KEY, { [CREW]: { presets: [] } }); // A has not received B's removal yet.
    await settle(b, a);

    for (const [name, w] of [['A', a], ['B', b], ['a new window', await window()]] as const) {
      assert.equal(w.store.get(run.id), undefined, `${name}: the removed run came back`);
    }
  });

  it('a window learns another window\'s change through the watcher on the record files, without a re-read of all of them', async () => {
    const a = await window();
    const run = await a.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    const b = await window();
    const watcher = watchRecords(b.store.recordsDir, (id) => b.store.refresh(id), quiet);
    try {
      const seen = (want: (state: string | undefined) => boolean) =>
        new Promise<void>((resolve) => {
          const listener = b.store.onDidChange(() => {
            if (want(b.store.get(run.id)?.state)) {
              listener.dispose();
              resolve();
            }
          });
        });
      const ended = seen((state) => state === 'succeeded');
      await a.store.applyPolled(run.id, undefined, snap('succeeded'));
      await ended;
      const removed = seen((state) => state === undefined);
      await a.store.remove(run.id);
      await removed;
      assert.deepEqual(b.store.list(), []);
    } finally {
      watcher.dispose();
    }
  });

  it('two windows writing one run at the same moment: every write lands, on the version the other wrote (the run\'s lock)', async () => {
    const a = await window();
    const run = await a.store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    const b = await window();
    const round = (from: string, i: number) => ({ at: clock.now(), approve: false, feedback: `${from} ${i}`, taskId: 't1' });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => [a.store.addFeedbackRound(run.id, round('A', i)), b.store.addFeedbackRound(run.id, round('B', i))]).flat(),
    );
    const fresh = await window();
    assert.equal(fresh.store.get(run.id)?.revision, 21, 'each of the 20 writes made one revision');
    const feedback = (await fresh.store.readDetails(run.id)).feedbackRounds.map((r) => r.feedback);
    assert.equal(feedback.length, 20, `a write was lost: ${feedback.join(', ')}`);
  });
});
