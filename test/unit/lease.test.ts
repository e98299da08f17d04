import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { LeaseManager } from '../../src/storage/lease';
import type { Logger } from '../../src/util/logger';
import { FakeClock } from './helpers/fakeClock';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const TTL = 30_000;
const RUN = 'run-1';

describe('LeaseManager', () => {
  let dir: string;
  let clock: FakeClock;
  let windowA: LeaseManager;
  let windowB: LeaseManager;

  beforeEach(async () => {
    dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'crew-lease-')), 'leases');
    clock = new FakeClock(Date.now()); // A lock file's age also counts from its file time (its holder's heartbeat): real time.
    windowA = new LeaseManager(dir, 'window-a', quiet, { clock, ttlMs: TTL });
    windowB = new LeaseManager(dir, 'window-b', quiet, { clock, ttlMs: TTL });
  });

  afterEach(async () => {
    await fs.rm(path.dirname(dir), { recursive: true, force: true });
  });

  async function leaseFile(runId = RUN) {
    return JSON.parse(await fs.readFile(path.join(dir, `${runId}.lease`), 'utf8')) as { owner: string; expiresAt: number };
  }

  it('lets only one of two racing windows own a run', async () => {
    for (let round = 0; round < 20; round++) {
      const runId = `race-${round}`;
      const [a, b] = await Promise.all([windowA.tryAcquire(runId), windowB.tryAcquire(runId)]);
      assert.equal(Number(a) + Number(b), 1, `round ${round}: a=${a} b=${b}`);
      assert.equal(windowA.owns(runId), a);
      assert.equal(windowB.owns(runId), b);
      assert.equal((await leaseFile(runId)).owner, a ? 'window-a' : 'window-b');
    }
    // Nothing left behind but the leases.
    const names = await fs.readdir(dir);
    assert.equal(names.every((n) => n.endsWith('.lease')), true, names.join(', '));
  });

  it('refuses a live lease and keeps it alive by renewing', async () => {
    assert.equal(await windowA.tryAcquire(RUN), true);
    assert.deepEqual(await leaseFile(), { owner: 'window-a', expiresAt: clock.now() + TTL });
    assert.equal(await windowB.tryAcquire(RUN), false);
    await clock.advance(20_000);
    assert.deepEqual(await windowA.renew(), []);
    await clock.advance(20_000);
    assert.equal(windowA.owns(RUN), true);
    assert.equal(await windowB.tryAcquire(RUN), false);
    assert.equal(await windowA.tryAcquire(RUN), true, 'acquiring what we own is fine');
  });

  it('lets another window take over an expired lease; the old owner learns it lost it', async () => {
    assert.equal(await windowA.tryAcquire(RUN), true);
    await clock.advance(TTL - 1);
    assert.equal(await windowB.tryAcquire(RUN), false);
    await clock.advance(1);
    assert.equal(windowA.owns(RUN), false, 'our own lease lapses at expiry, before anyone takes it');
    assert.equal(await windowB.tryAcquire(RUN), true);
    assert.equal(windowB.owns(RUN), true);
    assert.deepEqual(await windowA.renew(), [RUN], 'the old owner learns it lost it');
    assert.equal((await leaseFile()).owner, 'window-b');
  });

  it('only one of two windows racing to take over an expired lease wins', async () => {
    const windowC = new LeaseManager(dir, 'window-c', quiet, { clock, ttlMs: TTL });
    assert.equal(await windowC.tryAcquire(RUN), true);
    await clock.advance(TTL + 1);
    const [a, b] = await Promise.all([windowA.tryAcquire(RUN), windowB.tryAcquire(RUN)]);
    assert.equal(Number(a) + Number(b), 1);
  });

  it('release frees the run at once for another window', async () => {
    assert.equal(await windowA.tryAcquire(RUN), true);
    await windowA.release(RUN);
    assert.equal(windowA.owns(RUN), false);
    await assert.rejects(fs.stat(path.join(dir, `${RUN}.lease`)));
    assert.equal(await windowB.tryAcquire(RUN), true);
    // Releasing a run we do not own leaves the owner's lease alone.
    await windowA.release(RUN);
    assert.equal((await leaseFile()).owner, 'window-b');
  });

  it('dispose releases every lease held', async () => {
    assert.equal(await windowA.tryAcquire('r1'), true);
    assert.equal(await windowA.tryAcquire('r2'), true);
    await windowA.dispose();
    assert.deepEqual(await fs.readdir(dir), []);
    assert.equal(await windowA.tryAcquire('r3'), false, 'a disposed manager takes nothing');
  });

  it('renews on its own timer', async () => {
    assert.equal(await windowA.tryAcquire(RUN), true);
    // Before fake time moves on, let each renewal finish its file work: it re-arms its timer when done, and
    // releases its lock (whose heartbeat is a timer too while it is held).
    const locked = () => existsSync(path.join(dir, `${RUN}.lock`));
    clock.settle = async () => {
      for (let waited = 0; (clock.pendingTimers === 0 || locked()) && waited < 5_000; waited += 5) {
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    windowA.startRenewing();
    for (let i = 0; i < 6; i++) {
      await clock.advance(10_000);
    }
    assert.equal(windowA.owns(RUN), true);
    assert.equal(await windowB.tryAcquire(RUN), false);
    assert.ok((await leaseFile()).expiresAt > clock.now());
    await windowA.dispose();
  });

  it('breaks a lock left by a crashed window, but waits for a fresh one', async () => {
    const lockFile = path.join(dir, `${RUN}.lock`);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(lockFile, JSON.stringify({ owner: 'crashed', at: clock.now() }));
    assert.equal(await windowA.tryAcquire(RUN), false, 'a fresh lock means someone is busy');
    await clock.advance(11_000); // Past the stale age counted from the file's own time, written moments after the clock's start.
    assert.equal(await windowA.tryAcquire(RUN), true);
    assert.deepEqual((await fs.readdir(dir)).sort(), [`${RUN}.lease`]);
  });

  it('canPoll acquires when free and answers from memory when owned', async () => {
    assert.equal(await windowA.canPoll(RUN), true);
    assert.equal(await windowB.canPoll(RUN), false);
    await fs.rm(dir, { recursive: true });
    assert.equal(await windowA.canPoll(RUN), true, 'owned: no file access needed');
  });
});
