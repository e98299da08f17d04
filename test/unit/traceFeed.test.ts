// What a run view's page is sent of the run's trace (issue 49): the event file's bytes it has not had, as a plain
// Uint8Array; the whole trace read while the page loads, then what came meanwhile.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunEvent } from '../../src/api/types';
import { emptyDetails, type RunRecord } from '../../src/runTracking/model';
import { EventFiles } from '../../src/runTracking/eventFiles';
import type { RunStore } from '../../src/runTracking/runStore';
import { TraceFeed, type TraceSettings } from '../../src/runView/traceFeed';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const settings: TraceSettings = { prices: {}, modelFor: () => undefined };
const record = { id: 'r', crewUrl: 'https://crew.example.com', crewName: 'Crew', state: 'running', startedAt: 1, updatedAt: 2 } as RunRecord;
const events = (from: number, to: number): RunEvent[] => Array.from({ length: to - from }, (_, i) => ({ key: `id:e-${from + i}`, type: 'task_started', id: `e-${from + i}`, seq: from + i }));
const seqs = (...messages: ({ lines: Uint8Array } | undefined)[]) =>
  messages.flatMap((m) => new TextDecoder().decode(m!.lines).split('\n').filter(Boolean)).map((line) => (JSON.parse(line) as RunEvent).seq);

describe('The trace a run view\'s page is sent', () => {
  let dir: string;
  let files: EventFiles;
  let runs: RunStore;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-trace-feed-'));
    files = new EventFiles(dir, quiet);
    runs = { readEventsBytes: (id: string, from?: number) => files.readBytes(id, from) } as unknown as RunStore;
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('the whole trace as plain bytes of its own (never a Buffer, which VS Code sends as JSON); then only what came after', async () => {
    await files.append('r', events(0, 100));
    const feed = new TraceFeed(runs, 'r');
    const first = await feed.next(record, emptyDetails(), settings);
    assert.equal(first?.reset, true);
    assert.equal(first?.lines.constructor, Uint8Array);
    assert.deepEqual(first?.lines, (await files.readBytes('r')).bytes);
    await files.append('r', events(100, 150));
    const poll = await feed.next(record, emptyDetails(), settings);
    assert.equal(poll?.reset, false);
    assert.deepEqual(seqs(poll), events(100, 150).map((e) => e.seq));
    assert.equal(await feed.next(record, emptyDetails(), settings), undefined);
  });

  it('the trace read while the page loads is sent first, then the events that came meanwhile', async () => {
    await files.append('r', events(0, 100));
    const feed = new TraceFeed(runs, 'r');
    feed.prefetch();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await files.append('r', events(100, 110)); // While the page loads.
    feed.reset(); // Its `init`.
    const first = await feed.next(record, emptyDetails(), settings);
    assert.equal(feed.behind, true, 'read before the page was ready');
    const since = await feed.next(record, emptyDetails(), settings);
    assert.equal(feed.behind, false);
    assert.deepEqual(seqs(first, since), events(0, 110).map((e) => e.seq), 'every event once, in order');
    assert.equal(await feed.next(record, emptyDetails(), settings), undefined);
  });
});
