import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { BatchStore } from '../../src/batches/core/batchStore';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('BatchStore', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-store-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  // The window's 30 s refresh reloads the batches while this window sends one. A read of the file that began
  // before a change made here (a row sent, a run's end recorded) brought the older record back over it,
  // and a row whose run had ended stayed "running" for good (a full run's batch test, 120 s).
  it('a load that read a batch before a change made here does not undo the change', async () => {
    const store = new BatchStore(dir, quiet);
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 1, rows: [{ index: 0, inputs: { topic: 't' }, status: 'queued' }] });
    await store.flush();
    const file = path.join(dir, `${batch.id}.json`);
    // The load's read of this file returns what was on disk, but only after the change below is saved.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const modules = require('node:fs/promises') as { readFile: typeof fsp.readFile }; // The module itself: its functions can be replaced.
    const realReadFile = modules.readFile;
    let readTaken!: () => void;
    const taken = new Promise<void>((resolve) => (readTaken = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    modules.readFile = (async (...args: Parameters<typeof fsp.readFile>) => {
      const text = await realReadFile(...args);
      if (String(args[0]) === file) {
        readTaken();
        await released;
      }
      return text;
    }) as typeof fsp.readFile;
    try {
      const loading = store.load();
      await taken;
      await store.updateRow(batch.id, 0, (r) => {
        r.status = 'sent';
        r.runId = 'run-1';
      });
      release();
      await loading;
    } finally {
      modules.readFile = realReadFile;
    }
    assert.equal(store.get(batch.id)?.rows[0].status, 'sent', 'the row sent here is still sent');
    assert.equal(store.get(batch.id)?.rows[0].runId, 'run-1');
    // A load with nothing changed here meanwhile reads the file, which holds the change.
    await store.load();
    assert.equal(store.get(batch.id)?.rows[0].status, 'sent');
    store.dispose();
  });
});
