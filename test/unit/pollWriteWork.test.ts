// What a poll's write of a run costs the extension host's thread (issue 49, bench row 10): every round trip through
// Node's thread pool costs that thread more than a small file's call itself, so the write makes only the round trips
// that wait for the disk (a flush, a rename), counted here without a clock.
import * as assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { normaliseStatus } from '../../src/api/normalize';
import { RunStore } from '../../src/runTracking/runStore';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
/** The requests Node's file system makes through its thread pool (callbacks, promises, file handles). */
const THREAD_POOL_REQUESTS = new Set(['FSREQCALLBACK', 'FSREQPROMISE', 'FILEHANDLE', 'FILEHANDLECLOSEREQ']);

async function roundTrips(work: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const hook = createHook({ init: (_id, type) => void (THREAD_POOL_REQUESTS.has(type) && count++) });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return count;
}

describe('A poll\'s write of a run', () => {
  let dir: string;
  beforeEach(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-poll-work-'))));
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const status = (end: number) =>
    normaliseStatus({
      state: 'RUNNING',
      current_task: `task ${end}`,
      events_count: end,
      events: Array.from({ length: 50 }, (_, i) => ({ type: 'task_started', event_id: `e-${end - 50 + i}`, timestamp: '2026-10-01T10:00:00Z' })),
    });

  it('goes through the thread pool only to flush and rename its two files (the lock, reads and the append are calls)', async () => {
    const store = new RunStore({ get: () => undefined, update: async () => undefined }, dir, quiet);
    await store.load();
    try {
      const run = await store.add({ crewUrl: 'https://crew.example.com', crewName: 'Crew', kickoffId: 'k', inputs: {} });
      await store.applyPolled(run.id, undefined, status(50));
      await store.knownEvents(run.id);
      const trips = await roundTrips(async () => {
        await store.knownEvents(run.id);
        await store.applyPolled(run.id, undefined, status(100));
      });
      assert.equal((await store.readDetails(run.id)).events?.kept, 100, 'the poll was written');
      // Each file: its temp file flushed, renamed over it, its folder flushed.
      assert.ok(trips <= 6, `${trips} round trips through the thread pool`);
    } finally {
      await store.flush();
      store.dispose();
    }
  });
});
