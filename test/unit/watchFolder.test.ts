// The one folder watcher (util/watchFolder.ts) that tells a window of other windows' changes to run records
// and chat sessions: file names mapped to keys, re-reads coalesced per key (one in flight, one queued), nothing
// after dispose, and a watcher that cannot start said once. A real folder and a real fs.watch; every wait is for
// an event, never for a time. A marker file written last tells that the events of the writes before it came
// (one watched folder's events arrive in order).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { watchFolder, type WatchFolderOptions } from '../../src/util/watchFolder';

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Records every key re-read; a test may hold a key's re-reads open (`hold`) and wait for the nth call of a key. */
class Reads {
  readonly calls: string[] = [];
  readonly held = new Map<string, Deferred[]>();
  private readonly holding = new Set<string>();
  private waiters: { key: string; count: number; resolve(): void }[] = [];

  hold(key: string): void {
    this.holding.add(key);
  }

  count(key: string): number {
    return this.calls.filter((k) => k === key).length;
  }

  changed = (key: string): Promise<unknown> => {
    this.calls.push(key);
    this.waiters = this.waiters.filter((w) => (this.count(w.key) >= w.count ? (w.resolve(), false) : true));
    if (!this.holding.has(key)) {
      return Promise.resolve();
    }
    const d = deferred();
    this.held.set(key, [...(this.held.get(key) ?? []), d]);
    return d.promise;
  };

  /** Resolves once `key` was re-read `count` times in all. */
  until(key: string, count = 1): Promise<void> {
    if (this.count(key) >= count) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push({ key, count, resolve }));
  }
}

describe('watchFolder: one watcher for a shared folder', () => {
  let dir: string;
  const watches: { dispose(): void }[] = [];
  const warnings: string[] = [];
  const logger = { warn: (message: string) => warnings.push(message) };
  /** `x.json` is key `x`; every other name is not watched. */
  const keyOf = (fileName: string) => (fileName.endsWith('.json') ? fileName.slice(0, -5) : undefined);

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-watch-folder-'));
    warnings.length = 0;
  });

  afterEach(async () => {
    watches.splice(0).forEach((w) => w.dispose());
    await fs.rm(dir, { recursive: true, force: true });
  });

  function watchWith(reads: Reads, options: Partial<WatchFolderOptions> = {}, folder = dir): { dispose(): void } {
    const w = watchFolder(folder, { keyOf, changed: reads.changed, logger, what: 'Test files', backstop: 're-read every 30 s instead', ...options });
    watches.push(w);
    return w;
  }

  const write = (name: string, text = String(Math.random())) => fs.writeFile(path.join(dir, name), text);

  it('re-reads the key a changed file maps to, and nothing for a file it does not watch', async () => {
    const reads = new Reads();
    const names: string[] = [];
    watchWith(reads, { keyOf: (name) => (names.push(name), keyOf(name)) });
    await write('notes.txt');
    await write('run-1.json');
    await reads.until('run-1');
    assert.ok(names.includes('notes.txt'), 'the unwatched file was seen and mapped to nothing');
    assert.deepEqual(new Set(reads.calls), new Set(['run-1']));
    assert.deepEqual(warnings, []);
  });

  it('coalesces a key: one re-read in flight, one queued behind it, however many events came meanwhile', async () => {
    const reads = new Reads();
    reads.hold('a');
    watchWith(reads);
    await write('a.json');
    await reads.until('a');
    for (let i = 0; i < 5; i++) {
      await write('a.json');
    }
    await write('marker-1.json');
    await reads.until('marker-1'); // Every event of a.json's writes came.
    assert.equal(reads.count('a'), 1, 'no second re-read while the first is in flight');

    reads.held.get('a')![0].resolve();
    await reads.until('a', 2); // The one queued.
    reads.held.get('a')![1].resolve();
    await write('marker-2.json');
    await reads.until('marker-2');
    await new Promise((resolve) => setImmediate(resolve)); // The second re-read's end is handled.
    assert.equal(reads.count('a'), 2, 'the events during the first re-read made one more, not five');
  });

  it('keys are coalesced apart: a re-read in flight for one does not hold back another', async () => {
    const reads = new Reads();
    reads.hold('a');
    watchWith(reads);
    await write('a.json');
    await reads.until('a');
    await write('b.json');
    await reads.until('b');
    assert.equal(reads.count('a'), 1);
  });

  it('re-reads nothing once disposed, not even what was queued', async () => {
    const reads = new Reads();
    reads.hold('a');
    const watch = watchWith(reads);
    await write('a.json');
    await reads.until('a');
    await write('a.json'); // Queued behind the one in flight…
    await write('marker.json');
    await reads.until('marker');

    watch.dispose();
    const control = new Reads();
    watchWith(control); // A second watcher on the folder tells when the events of what follows came.
    await write('a.json');
    await write('b.json');
    await write('marker-2.json');
    await control.until('marker-2');
    reads.held.get('a')![0].resolve(); // …and dropped when the one in flight ends.
    await reads.held.get('a')![0].promise;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(reads.count('a'), 1, 'the queued re-read was dropped');
    assert.deepEqual(reads.calls.filter((key) => key !== 'a' && key !== 'marker'), [], 'no event after dispose');
  });

  it('says once, with what it watches and the backstop, that it cannot watch a folder; its disposable still works', () => {
    const reads = new Reads();
    const watch = watchWith(reads, {}, path.join(dir, 'missing'));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^Test files: cannot watch for other windows' changes \(.*ENOENT.*\); re-read every 30 s instead\.$/);
    watch.dispose();
  });

  it('a re-read that fails does not stop the key from being re-read again', async () => {
    const reads = new Reads();
    let fail = true;
    watchWith(reads, {
      changed: async (key) => {
        await reads.changed(key);
        if (fail) {
          fail = false;
          throw new Error('unreadable');
        }
      },
    });
    await write('a.json');
    await reads.until('a');
    await write('marker.json');
    await reads.until('marker');
    const before = reads.count('a');
    await write('a.json');
    await reads.until('a', before + 1);
  });
});
