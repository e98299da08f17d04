import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunEvent } from '../../src/api/types';
import { normaliseStatus } from '../../src/api/normalize';
import { eventKeyHash } from '../../src/api/statusEvents';
import { EventFiles, MAX_EVENTS_KEPT } from '../../src/runTracking/eventFiles';
import { RunStore } from '../../src/runTracking/runStore';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const event = (i: number): RunEvent => ({ key: `id:e-${i}`, type: 'task_started', id: `e-${i}`, seq: i });
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => event(from + i));
const counts = ({ added, dropped, kept }: { added: number; dropped: number; kept: number }) => ({ added, dropped, kept });

describe('A run\'s event file', () => {
  let dir: string;
  beforeEach(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-events-'))));
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('appends only what it does not hold, across overlapping windows', async () => {
    const files = new EventFiles(dir, quiet);
    assert.deepEqual(counts(await files.append('r', range(0, 10))), { added: 10, dropped: 0, kept: 10 });
    assert.deepEqual(counts(await files.append('r', range(5, 15))), { added: 5, dropped: 0, kept: 15 });
    const read = await files.read('r');
    assert.deepEqual(read.events.map((e) => e.seq), range(0, 15).map((e) => e.seq));
  });

  it('a reader from a byte gets only what was appended after it', async () => {
    const files = new EventFiles(dir, quiet);
    await files.append('r', range(0, 3));
    const first = await files.read('r');
    await files.append('r', range(3, 5));
    const next = await files.read('r', first.end);
    assert.deepEqual(next.events.map((e) => e.seq), [3, 4]);
    assert.deepEqual((await files.read('r', next.end)).events, []);
  });

  it('a page is sent the file\'s whole lines as a plain Uint8Array, never a Buffer (which VS Code would send as JSON)', async () => {
    const files = new EventFiles(dir, quiet);
    await files.append('r', range(0, 3));
    await fs.appendFile(files.pathOf('r'), '{"key":"id:cut"'); // A line a crash cut, or one being written.
    const read = await files.readBytes('r');
    assert.equal(read.bytes.constructor, Uint8Array);
    const text = new TextDecoder().decode(read.bytes);
    assert.deepEqual(text.split('\n').map((line) => (JSON.parse(line) as RunEvent).seq), [0, 1, 2]);
    assert.equal(read.end, Buffer.byteLength(`${text}\n`));
    assert.equal((await files.readBytes('r', read.end)).bytes.byteLength, 0, 'the cut line is not sent until whole');
  });

  it('the events a poll is told the run keeps follow its appends, in order, each once', async () => {
    const files = new EventFiles(dir, quiet);
    await files.append('r', range(0, 100));
    await files.append('r', [...range(50, 150), event(3)]);
    const known = await files.knownEvents('r');
    assert.deepEqual([...known], range(0, 150).map((e) => eventKeyHash(e.key)));
    known[0] = 0;
    assert.equal((await files.knownEvents('r'))[0], eventKeyHash('id:e-0'), 'each call gets a copy of its own');
    assert.deepEqual([...(await new EventFiles(dir, quiet).knownEvents('r'))], [...(await files.knownEvents('r'))], 'read afresh from the file: the same');
  });

  it('another window\'s appends are seen: nothing is written twice', async () => {
    const a = new EventFiles(dir, quiet);
    const b = new EventFiles(dir, quiet);
    await a.append('r', range(0, 3));
    await b.append('r', range(0, 6));
    assert.deepEqual(counts(await a.append('r', range(0, 8))), { added: 2, dropped: 0, kept: 8 });
    assert.equal((await a.read('r')).events.length, 8);
  });

  it('a line cut by a crash is skipped and the next append starts on a line of its own', async () => {
    const files = new EventFiles(dir, quiet);
    await files.append('r', range(0, 2));
    await fs.appendFile(files.pathOf('r'), '{"key":"id:e-9","ty');
    const fresh = new EventFiles(dir, quiet);
    assert.deepEqual((await fresh.read('r')).events.length, 2, 'the cut line is not read');
    await fresh.append('r', range(2, 4));
    assert.deepEqual((await fresh.read('r')).events.map((e) => e.seq), [0, 1, 2, 3]);
  });

  it('keeps at most MAX_EVENTS_KEPT and counts the rest', async () => {
    const files = new EventFiles(dir, quiet);
    await files.append('r', range(0, MAX_EVENTS_KEPT - 5));
    assert.deepEqual(counts(await files.append('r', range(MAX_EVENTS_KEPT - 10, MAX_EVENTS_KEPT + 10))), { added: 5, dropped: 10, kept: MAX_EVENTS_KEPT });
  });

  it('removing forgets the run', async () => {
    const files = new EventFiles(dir, quiet);
    await files.append('r', range(0, 2));
    await files.remove('r');
    assert.deepEqual((await files.read('r')).events, []);
    assert.deepEqual(counts(await files.append('r', range(0, 2))), { added: 2, dropped: 0, kept: 2 });
  });
});

describe('A polled status\'s events, kept with the run', () => {
  let dir: string;
  beforeEach(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-events-store-'))));
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const kv = () => {
    const data = new Map<string, unknown>();
    return { get: <T>(key: string) => data.get(key) as T | undefined, update: async (key: string, value: unknown) => void data.set(key, value) };
  };
  const status = (from: number, to: number, count: number) =>
    normaliseStatus({ state: 'RUNNING', events: Array.from({ length: to - from }, (_, i) => ({ type: 'task_started', event_id: `e-${from + i}` })), events_count: count });

  it('appends a window\'s new events, counts them in the details, and keeps the details free of the list', async () => {
    const store = new RunStore(kv(), dir, quiet);
    await store.load();
    const run = await store.add({ crewUrl: 'http://127.0.0.1:1', crewName: 'c', kickoffId: 'k', inputs: {} });
    await store.applyPolled(run.id, undefined, status(0, 4, 4));
    const revision = store.get(run.id)!.revision;
    await store.applyPolled(run.id, undefined, status(2, 6, 6));
    assert.ok(store.get(run.id)!.revision > revision, 'new events are a change other windows hear of');
    const details = await store.readDetails(run.id);
    assert.deepEqual(details.events, { kept: 6, dropped: 0 });
    assert.deepEqual(details.lastSnapshot?.eventLog?.events, []);
    assert.equal(details.lastSnapshot?.eventLog?.count, 6);
    assert.deepEqual((await store.readEvents(run.id)).events.map((e) => e.id), ['e-0', 'e-1', 'e-2', 'e-3', 'e-4', 'e-5']);
    const otherWindow = new RunStore(kv(), dir, quiet);
    await otherWindow.load();
    assert.deepEqual((await otherWindow.readDetails(run.id)).events, { kept: 6, dropped: 0 }, 'read back from the file');
    otherWindow.dispose();
    await store.remove(run.id);
    assert.deepEqual((await store.readEvents(run.id)).events, [], 'removed with the run');
    store.dispose();
  });
});
