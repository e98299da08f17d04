import * as assert from 'assert';
import * as fs from 'fs/promises';
import * as os from 'os';
import * as path from 'path';
import { NoticeRelay, type RelayedNotice } from '../../src/storage/noticeRelay';
import type { Clock } from '../../src/util/clock';
import { quiet } from './helpers/pollingWindows';

/** A clock whose timers run only when the test says: "the focused window did not take it in time" is a step. */
class ManualClock implements Clock {
  private readonly timers: (() => void)[] = [];
  now(): number {
    return Date.now();
  }
  setTimeout(callback: () => void): unknown {
    this.timers.push(callback);
    return callback;
  }
  clearTimeout(): void {}
  get pending(): number {
    return this.timers.length;
  }
  /** Runs the timers set so far (the take-back wait ends). */
  fire(): void {
    this.timers.splice(0).forEach((t) => t());
  }
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('NoticeRelay: a run notice is shown once, in the focused window', () => {
  let dir: string;
  let clock: ManualClock;
  const disposables: { dispose(): void }[] = [];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-runs-notices-'));
    clock = new ManualClock();
  });

  afterEach(async () => {
    disposables.splice(0).forEach((d) => d.dispose());
    await fs.rm(dir, { recursive: true, force: true });
  });

  function relay(windowId: string): NoticeRelay {
    return new NoticeRelay(dir, windowId, quiet, { clock, takeBackAfterMs: 3_000 });
  }

  function listen(r: NoticeRelay): RelayedNotice[] {
    const shown: RelayedNotice[] = [];
    disposables.push(r.listen((n) => shown.push(n)));
    return shown;
  }

  const offers = async () => (await fs.readdir(dir)).filter((f) => f.endsWith('.offer'));

  it('the polling window in the background hands the notice to the focused window, which shows it; the polling window does not', async () => {
    const background = relay('a');
    const focused = relay('b');
    await background.setFocused(false);
    await focused.setFocused(true);
    const shownInFocused = listen(focused);
    const shownInBackground = listen(background);
    const where = background.deliver({ runId: 'run-1', kind: 'ended' });
    await until(() => shownInFocused.length === 1, 'the focused window to show it');
    await until(() => clock.pending === 1, 'the background window to wait for the take');
    clock.fire();
    assert.strictEqual(await where, 'relayed');
    assert.deepStrictEqual(shownInFocused, [{ runId: 'run-1', kind: 'ended' }]);
    assert.deepStrictEqual(shownInBackground, []);
    assert.deepStrictEqual(await offers(), [], 'no offer left behind');
  });

  it('a window listening since before its first focus (its start) takes the notices offered once it has the focus', async () => {
    const background = relay('a');
    const starting = relay('b');
    const shown = listen(starting);
    await starting.setFocused(true);
    const where = background.deliver({ runId: 'run-3', kind: 'ended' });
    await until(() => shown.length === 1, 'the window focused after it listened to show it');
    await until(() => clock.pending === 1, 'the background window to wait for the take');
    clock.fire();
    assert.strictEqual(await where, 'relayed');
    assert.deepStrictEqual(shown, [{ runId: 'run-3', kind: 'ended' }]);
  });

  it('a focused window that does not take the notice in time (busy, cut off, gone) leaves it to the polling window, and never shows it late', async () => {
    const background = relay('a');
    const gone = relay('b');
    await gone.setFocused(true); // Its focus file stays: the window closed without a goodbye.
    const where = background.deliver({ runId: 'run-2', kind: 'waiting' });
    await until(async () => (await offers()).length === 1 && clock.pending === 1, 'the offer and the wait');
    clock.fire();
    assert.strictEqual(await where, 'here');
    assert.deepStrictEqual(await offers(), [], 'the offer was taken back: a window that comes back late has nothing to show');
  });

  it('when the focused window and the polling window take it at the same moment, exactly one shows it', async () => {
    for (let round = 0; round < 20; round++) {
      const background = relay(`a${round}`);
      const focused = relay(`b${round}`);
      await focused.setFocused(true);
      const where = background.deliver({ runId: `run-${round}`, kind: 'ended' });
      await until(async () => (await offers()).length === 1 && clock.pending === 1, 'the offer and the wait');
      const shown = listen(focused); // Its first look at the folder races the take-back.
      clock.fire();
      const result = await where;
      if (result === 'relayed') {
        await until(() => shown.length > 0, 'the focused window, which took it, to show it'); // Its rename won.
      }
      // 'here': the polling window's rename won, so the focused window's fails and it never shows it.
      assert.strictEqual((result === 'here' ? 1 : 0) + shown.length, 1, `round ${round}: ${result}, and ${shown.length} time(s) in the focused window`);
      await focused.setFocused(false);
      disposables.splice(0).forEach((d) => d.dispose());
    }
  });

  it('a window with the focus says its own notices; with no window focused, the polling window says them; nothing is written', async () => {
    const a = relay('a');
    const b = relay('b');
    await a.setFocused(true);
    assert.strictEqual(await a.deliver({ runId: 'r', kind: 'ended' }), 'here');
    await a.setFocused(false);
    await b.setFocused(false);
    assert.strictEqual(await b.deliver({ runId: 'r', kind: 'ended' }), 'here');
    assert.strictEqual(clock.pending, 0, 'no wait');
    assert.deepStrictEqual(await offers(), []);
  });

  it('focus moving between windows: the newest focus wins; a blur removes only its own', async () => {
    const a = relay('a');
    const b = relay('b');
    const c = relay('c');
    await b.setFocused(true);
    const earlier = new Date(Date.now() - 10_000);
    await fs.utimes(path.join(dir, 'focus', 'b'), earlier, earlier);
    await c.setFocused(true); // b's blur event has not come yet.
    const shownInB = listen(b);
    const shownInC = listen(c);
    const where = a.deliver({ runId: 'r', kind: 'waiting' });
    await until(() => shownInC.length === 1, 'the newest focused window to show it');
    // The take can come before the offering window starts its wait: firing earlier would leave `where` waiting.
    await until(() => clock.pending === 1, 'the offering window to wait for the take');
    clock.fire();
    assert.strictEqual(await where, 'relayed');
    assert.deepStrictEqual(shownInB, []);
  });

  it('an offer file that is not an offer (hand-edited, cut off) is removed, not shown', async () => {
    const b = relay('b');
    await b.setFocused(true);
    await fs.writeFile(path.join(dir, 'x.1234.offer'), '{"to": "b", "notice": ');
    const shown = listen(b);
    await until(async () => (await offers()).length === 0, 'the bad offer removed');
    assert.deepStrictEqual(shown, []);
  });
});
