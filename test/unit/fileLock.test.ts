// The machine-wide lock every shared file is changed under (#48): never taken from a holder that is alive and
// working, however long it works; taken over at once from a holder whose process is gone; a holder on another
// machine keeps it by its heartbeat.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { BUSY, FileLock } from '../../src/storage/fileLock';
import { FakeClock } from './helpers/fakeClock';

const STALE_MS = 10_000;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('FileLock', () => {
  let dir: string;
  let clock: FakeClock;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-runs-lock-'));
    clock = new FakeClock(Date.now()); // Lock files' times are the file system's: the clock starts at the real time.
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const lockOf = (owner: string) => new FileLock(dir, owner, quiet, clock, STALE_MS);

  it('a live holder keeps its lock past the stale age while another window waits', async () => {
    const a = lockOf('window-a');
    const b = lockOf('window-b');
    let finish!: () => void;
    const working = new Promise<void>((resolve) => (finish = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const held = a.tryRun('run-1', async () => {
      entered();
      await working;
      return 'a';
    });
    await inside;
    await clock.advance(3 * STALE_MS); // A works for 30 s: slow, but alive.
    assert.equal(await b.tryRun('run-1', async () => 'b'), BUSY, 'B does not take the lock of a live holder');
    finish();
    assert.equal(await held, 'a');
    assert.equal(await b.tryRun('run-1', async () => 'b'), 'b', 'released, B takes it');
  });

  it('a dead holder\'s lock is taken over at once', async () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid; // A process that has ended.
    assert.ok(gone);
    await fs.writeFile(path.join(dir, 'run-2.lock'), JSON.stringify({ owner: 'crashed', at: clock.now(), pid: gone, host: os.hostname() }));
    assert.equal(await lockOf('window-b').tryRun('run-2', async () => 'b'), 'b');
  });

  it('a holder on another machine keeps its lock by its heartbeat, and loses it when the heartbeat stops', async () => {
    const file = path.join(dir, 'run-3.lock');
    await fs.writeFile(file, JSON.stringify({ owner: 'elsewhere', at: clock.now(), pid: 1, host: 'another-machine' }));
    const b = lockOf('window-b');
    await clock.advance(STALE_MS / 2);
    await fs.utimes(file, clock.now() / 1000, clock.now() / 1000); // Its heartbeat.
    await clock.advance(STALE_MS / 2 + 1);
    assert.equal(await b.tryRun('run-3', async () => 'b'), BUSY, 'the heartbeat keeps it');
    await clock.advance(STALE_MS);
    assert.equal(await b.tryRun('run-3', async () => 'b'), 'b', 'no heartbeat for the stale age: taken over');
  });

  it('a holder keeps a heartbeat on its lock while it works', async () => {
    const a = lockOf('window-a');
    let finish!: () => void;
    const working = new Promise<void>((resolve) => (finish = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const held = a.tryRun('run-4', async () => {
      entered();
      await working;
    });
    await inside;
    const file = path.join(dir, 'run-4.lock');
    const start = clock.now();
    await clock.advance(STALE_MS);
    // The touch is a file operation under way: wait for it (briefly), not for time.
    let beat = 0;
    for (let tries = 0; tries < 200 && beat < start + STALE_MS / 2; tries++) {
      beat = (await fs.stat(file)).mtimeMs;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(beat >= start + STALE_MS / 2, `the lock was touched while A worked (last ${clock.now() - beat} ms before now)`);
    finish();
    await held;
    assert.equal(clock.pendingTimers, 0, 'the heartbeat stops with the work');
  });
});
