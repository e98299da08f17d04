import * as assert from 'node:assert/strict';
import { revealPatiently } from '../../src/sidebar/revealPatience';
import { FakeClock } from './helpers/fakeClock';

describe('revealPatiently (the crews tree showing a new run)', () => {
  /** The view's next fetch of children, or a second: what RunRevealer waits for between two tries. */
  const nextFetchOrSecond = (clock: FakeClock) => () => new Promise<void>((resolve) => clock.setTimeout(resolve, 1000));

  async function drive(clock: FakeClock, work: Promise<boolean>): Promise<boolean> {
    let settled: boolean | undefined;
    void work.then((v) => (settled = v));
    for (let s = 0; s < 60 && settled === undefined; s++) {
      await clock.advance(1000);
    }
    return work;
  }

  it('a view that catches up after several seconds (a busy window) still gets the run selected (ci17: gave up after 4 tries)', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    let tries = 0;
    // The view has the run's crew drawn with its children only 6 s after the run was added.
    const attempt = async () => (tries++, clock.now() - start >= 6000);
    const shown = await drive(clock, revealPatiently(attempt, { wanted: () => true, caughtUp: nextFetchOrSecond(clock), clock }));
    assert.equal(shown, true, `selected after ${tries} tries`);
  });

  it('gives up in the end when the view never shows it, and stops at once when it is no longer wanted', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const never = await drive(clock, revealPatiently(async () => false, { wanted: () => true, caughtUp: nextFetchOrSecond(clock), clock }));
    assert.equal(never, false);
    assert.ok(clock.now() - start <= 20_000, `gave up after ${clock.now() - start} ms`);

    let tries = 0;
    let wanted = true;
    const newer = await drive(clock, revealPatiently(async () => ((wanted = ++tries < 2), false), { wanted: () => wanted, caughtUp: nextFetchOrSecond(clock), clock }));
    assert.equal(newer, false);
    assert.equal(tries, 2, 'no try after a newer reveal came');
  });
});
