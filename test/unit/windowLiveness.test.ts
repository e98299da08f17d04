import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { LeaseManager } from '../../src/storage/lease';
import type { Logger } from '../../src/util/logger';
import { WindowLiveness } from '../../src/storage/windowLiveness';
import { FakeClock } from './helpers/fakeClock';

const TIMEOUT = 10_000;

/** A window whose answers the test controls: each ping waits until answered (or for ever). */
class FakeWindow {
  pings = 0;
  answering = true;
  private waiting: (() => void)[] = [];

  ping = (): Promise<void> => {
    this.pings++;
    return this.answering ? Promise.resolve() : new Promise<void>((resolve) => this.waiting.push(resolve));
  };

  /** The connection comes back: the pings it held are answered. */
  reconnect(): void {
    this.answering = true;
    this.waiting.splice(0).forEach((answer) => answer());
  }
}

/** Lets pending promise callbacks run (the fake clock's timers are not involved). */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WindowLiveness', () => {
  let clock: FakeClock;
  let window: FakeWindow;
  let liveness: WindowLiveness;

  beforeEach(() => {
    clock = new FakeClock();
    window = new FakeWindow();
    liveness = new WindowLiveness(window.ping, clock, TIMEOUT);
  });

  async function answersAfter(ms: number): Promise<boolean> {
    const answer = liveness.answers();
    await tick();
    await clock.advance(ms);
    return answer;
  }

  it('says a window answers once its ping returns, and asks again only after a while', async () => {
    assert.equal(await liveness.answers(), true);
    assert.equal(await liveness.answers(), true);
    assert.equal(window.pings, 1, 'a fresh answer stands');
    await clock.advance(6_000);
    assert.equal(await liveness.answers(), true);
    assert.equal(window.pings, 2);
  });

  it('counts a failed ping as an answer: only silence means the window is gone', async () => {
    liveness = new WindowLiveness(() => Promise.reject(new Error('command not found')), clock, TIMEOUT);
    assert.equal(await liveness.answers(), true);
  });

  it('says a silent window does not answer after the timeout, without piling up pings', async () => {
    await clock.advance(6_000);
    window.answering = false;
    assert.equal(await answersAfter(TIMEOUT), false);
    assert.equal(await liveness.answers(), false, 'still silent: no wait, no new ping');
    assert.equal(await answersAfter(60_000), false);
    assert.equal(window.pings, 1);
    window.reconnect();
    await tick();
    assert.equal(await liveness.answers(), true, 'the late answer counts');
  });

  it('waits for a slow but living window', async () => {
    window.answering = false;
    const answer = liveness.answers();
    await tick();
    await clock.advance(TIMEOUT - 1_000);
    window.reconnect();
    assert.equal(await answer, true);
  });
});

describe('LeaseManager with a window that stops answering', () => {
  const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const TTL = 30_000;
  let dir: string;
  let clock: FakeClock;

  beforeEach(async () => {
    dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'crew-liveness-')), 'leases');
    clock = new FakeClock();
  });

  afterEach(async () => {
    await fs.rm(path.dirname(dir), { recursive: true, force: true });
  });

  it("lets a silent window's leases lapse for one that answers; it takes runs again once it answers", async () => {
    const cutOff = new FakeWindow();
    const warnings: string[] = [];
    const a = new LeaseManager(dir, 'window-a', { ...quiet, warn: (m) => warnings.push(m) }, { clock, ttlMs: TTL, liveness: new WindowLiveness(cutOff.ping, clock, TIMEOUT) });
    const b = new LeaseManager(dir, 'window-b', quiet, { clock, ttlMs: TTL, liveness: new WindowLiveness(new FakeWindow().ping, clock, TIMEOUT) });
    assert.equal(await a.tryAcquire('run-1'), true);

    // Cut off: the next renewal waits for an answer that does not come, and renews nothing.
    await clock.advance(6_000);
    cutOff.answering = false;
    const renewal = a.renew();
    await tick();
    await clock.advance(TIMEOUT);
    assert.deepEqual(await renewal, []);
    assert.equal(warnings.length, 1, 'said once');
    assert.match(warnings[0], /does not answer/);
    assert.equal(await b.tryAcquire('run-1'), false, 'the lease has not lapsed yet');
    assert.equal(await a.tryAcquire('run-2'), false, 'a silent window takes no run');

    await clock.advance(TTL);
    assert.equal(a.owns('run-1'), false);
    assert.equal(await b.tryAcquire('run-1'), true, 'a window that answers takes the run over');

    cutOff.reconnect();
    await tick();
    assert.deepEqual(await a.renew(), ['run-1'], 'back: it learns the run is another window’s now');
    assert.equal(await a.tryAcquire('run-2'), true, 'and takes free runs again');
    assert.equal(warnings.length, 1);
  });
});
