// What a run view's page is sent of the run's trace (issue 49): the event file's bytes it has not had, deflated when
// they are many and the page can inflate, as they are otherwise.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { RunEvent } from '../../src/api/types';
import { emptyDetails, type RunRecord } from '../../src/runs/core/model';
import { EventFiles } from '../../src/runs/core/eventFiles';
import type { RunStore } from '../../src/runs/core/runStore';
import { TraceFeed, type TraceSettings } from '../../src/runView/traceFeed';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const settings: TraceSettings = { prices: {}, modelFor: () => undefined };
const record = { id: 'r', crewUrl: 'https://crew.example.com', crewName: 'Crew', state: 'running', startedAt: 1, updatedAt: 2 } as RunRecord;
/** Events of about 200 bytes each, as a long run's. */
const events = (from: number, to: number): RunEvent[] =>
  Array.from({ length: to - from }, (_, i) => ({ key: `id:e-${from + i}`, type: 'task_started', id: `e-${from + i}`, seq: from + i, taskName: `task ${from + i}`, extra: { note: 'x'.repeat(120) } }));

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

  it('a long trace goes deflated to a page that can inflate, as plain bytes of its own; then only what came after', async () => {
    await files.append('r', events(0, 5_000));
    const whole = await files.readBytes('r');
    const feed = new TraceFeed(runs, 'r');
    const first = await feed.next(record, emptyDetails(), settings, true);
    assert.equal(first?.deflated, true);
    assert.equal(first?.lines.constructor, Uint8Array, 'never a Buffer: VS Code would send it as JSON');
    assert.ok(first!.lines.byteLength * 4 < whole.bytes.byteLength, `${first!.lines.byteLength} bytes for ${whole.bytes.byteLength}`);
    assert.deepEqual(new Uint8Array(inflateRawSync(first!.lines)), whole.bytes);
    await files.append('r', events(5_000, 5_050));
    const poll = await feed.next(record, emptyDetails(), settings, true);
    assert.equal(poll?.deflated, undefined, 'a poll\'s few events go as they are');
    assert.deepEqual(new TextDecoder().decode(poll!.lines).split('\n').map((line) => (JSON.parse(line) as RunEvent).seq), events(5_000, 5_050).map((e) => e.seq));
  });

  it('the trace read while the page loads is sent first, then the events that came meanwhile', async () => {
    await files.append('r', events(0, 5_000));
    const feed = new TraceFeed(runs, 'r');
    feed.prefetch();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await files.append('r', events(5_000, 5_010)); // While the page loads.
    feed.reset(); // Its `init`.
    const first = await feed.next(record, emptyDetails(), settings, true);
    assert.equal(first?.deflated, true);
    assert.equal(feed.behind, true, 'read before the page was ready');
    const since = await feed.next(record, emptyDetails(), settings, true);
    assert.equal(feed.behind, false);
    const seqs = [...new TextDecoder().decode(new Uint8Array(inflateRawSync(first!.lines))).split('\n'), ...new TextDecoder().decode(since!.lines).split('\n')].map((line) => (JSON.parse(line) as RunEvent).seq);
    assert.deepEqual(seqs, events(0, 5_010).map((e) => e.seq), 'every event once, in order');
    assert.equal(await feed.next(record, emptyDetails(), settings, true), undefined);
  });

  it('a page that cannot inflate is sent the bytes as they are, even when a deflated trace was read ahead', async () => {
    await files.append('r', events(0, 5_000));
    const feed = new TraceFeed(runs, 'r');
    feed.prefetch();
    const message = await feed.next(record, emptyDetails(), settings, false);
    assert.equal(message?.deflated, undefined);
    assert.deepEqual(message?.lines, (await files.readBytes('r')).bytes);
  });

  it('a page that cannot inflate is sent the bytes as they are', async () => {
    await files.append('r', events(0, 5_000));
    const message = await new TraceFeed(runs, 'r').next(record, emptyDetails(), settings, false);
    assert.equal(message?.deflated, undefined);
    assert.deepEqual(message?.lines, (await files.readBytes('r')).bytes);
  });
});
