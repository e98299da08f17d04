// Issue #38, sessions: each crew's recent chat sessions, one truth for every window (two stores on one folder
// are two windows): no duplicates, newest first, capped, forgotten from the list only; other windows learn by
// the watcher (and reload() as the backstop).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChatSessionStore, FIRST_MESSAGE_MAX, fileNameOf } from '../../src/flowChat/core/chatSessions';
import type { Logger } from '../../src/util/logger';
import type { Clock } from '../../src/util/clock';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const A = 'https://crew-a.example.com';
const B = 'https://crew-b.example.com';

describe('Chat sessions shared by windows (issue #38)', () => {
  let dir: string;
  let now: number;
  const stores: ChatSessionStore[] = [];
  const clock: Clock = { now: () => now, setTimeout: (cb, ms) => setTimeout(cb, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-chat-sessions-'));
    now = 1_000_000;
  });

  afterEach(async () => {
    stores.splice(0).forEach((s) => s.dispose());
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function window(max?: number): Promise<ChatSessionStore> {
    const store = new ChatSessionStore(path.join(dir, 'chat-sessions'), quiet, { clock, max });
    stores.push(store);
    await store.start();
    return store;
  }

  const ids = (store: ChatSessionStore, crew = A) => store.list(crew).map((s) => s.id);

  it('a session recorded in one window shows in the other, through the watcher', async () => {
    const one = await window();
    const two = await window();
    const seen = new Promise<string>((resolve) => two.onDidChange(resolve));
    await one.record(A, 's1', 'Hello flow');
    assert.equal(await seen, A);
    assert.deepEqual(two.list(A), [{ id: 's1', firstMessage: 'Hello flow', lastActivity: now }]);
  });

  it('lists a session once, keeps its first message, and puts the latest activity first', async () => {
    const one = await window();
    const two = await window();
    await one.record(A, 's1', 'first of s1');
    now += 10;
    await two.record(A, 's2', 'first of s2');
    now += 10;
    await two.record(A, 's1', 'second message of s1'); // From window two, which may not have seen s1 yet.
    await one.reload();
    await two.reload();
    for (const store of [one, two, await window()]) {
      assert.deepEqual(ids(store), ['s1', 's2']);
      assert.equal(store.get(A, 's1')?.firstMessage, 'first of s1');
      assert.equal(store.get(A, 's1')?.lastActivity, now);
    }
    now += 10;
    await one.touch(A, 's2');
    await two.reload();
    assert.deepEqual(ids(two), ['s2', 's1']);
    assert.deepEqual(ids(two, B), [], 'another crew has its own list');
  });

  it('two windows recording at once lose nothing', async () => {
    const one = await window();
    const two = await window();
    await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).record(A, `s${i}`, `m${i}`)));
    await one.reload();
    assert.deepEqual([...ids(one)].sort(), ['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7']);
  });

  it('keeps the newest sessions of a crew up to the cap', async () => {
    const one = await window(3);
    for (let i = 0; i < 5; i++) {
      now += 1;
      await one.record(A, `s${i}`, `m${i}`);
    }
    assert.deepEqual(ids(one), ['s4', 's3', 's2']);
    assert.deepEqual(ids(await window(3)), ['s4', 's3', 's2']);
  });

  it('forgets a session in every window, and touch does not bring it back', async () => {
    const one = await window();
    const two = await window();
    await one.record(A, 's1', 'one');
    await one.record(A, 's2', 'two');
    await two.reload();
    await two.forget(A, 's1');
    await one.touch(A, 's1');
    await one.reload();
    assert.deepEqual(ids(one), ['s2']);
    await one.forget(A, 's2');
    await two.reload();
    assert.deepEqual(ids(two), []);
  });

  it('bounds what it keeps: unusable ids ignored, long first messages cut, a hostile file read safely', async () => {
    const one = await window();
    await one.record(A, '../../etc/passwd', 'x');
    await one.record(A, 'ok', 'y'.repeat(FIRST_MESSAGE_MAX * 3));
    assert.deepEqual(ids(one), ['ok']);
    assert.equal(one.get(A, 'ok')?.firstMessage.length, FIRST_MESSAGE_MAX);
    await fs.writeFile(
      path.join(dir, 'chat-sessions', fileNameOf(B)),
      JSON.stringify({ version: 1, crewUrl: B, sessions: [{ id: 'a/b', firstMessage: 'no', lastActivity: 1 }, { id: 'good', firstMessage: 'z'.repeat(9000), lastActivity: 2 }, null, 'x'] }),
    );
    await fs.writeFile(path.join(dir, 'chat-sessions', fileNameOf('https://other.example.com')), JSON.stringify({ version: 1, crewUrl: B, sessions: [{ id: 'spoof', firstMessage: 'm', lastActivity: 3 }] }));
    await one.reload();
    assert.deepEqual(ids(one, B), ['good'], 'only the file named for the crew speaks for it');
    assert.equal(one.get(B, 'good')?.firstMessage.length, FIRST_MESSAGE_MAX);
  });
});
