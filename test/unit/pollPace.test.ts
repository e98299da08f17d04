// The poller's interval policy as pure arithmetic (src/runTracking/pollPace.ts).
import * as assert from 'node:assert/strict';
import { capOf, effectiveDelay, grow, intervalAfterCheck, intervalAfterFailure, jitterFactor, type Pace } from '../../src/runTracking/pollPace';
import { POLLER_DEFAULTS } from '../../src/runTracking/pollTimes';

const pace: Pace = POLLER_DEFAULTS;
const quiet = { changed: false, fastPhase: false, awaitingFeedback: false };

describe('Poll pace', () => {
  it('grows ×1.5 while nothing changes, up to 15 s; a viewed run up to 2.5 s', () => {
    const seq = (viewed: boolean) => {
      const out: number[] = [];
      let i = pace.fastIntervalMs;
      for (let n = 0; n < 8; n++) {
        i = intervalAfterCheck(pace, { ...quiet, intervalMs: i, viewed });
        out.push(i);
      }
      return out;
    };
    assert.deepEqual(seq(false), [1_875, 2_812.5, 4_218.75, 6_328.125, 9_492.1875, 14_238.28125, 15_000, 15_000]);
    assert.deepEqual(seq(true), [1_875, 2_500, 2_500, 2_500, 2_500, 2_500, 2_500, 2_500]);
  });

  it('returns to the fast interval on a change and through the fast phase', () => {
    for (const viewed of [false, true]) {
      assert.equal(intervalAfterCheck(pace, { ...quiet, intervalMs: 15_000, changed: true, viewed }), 1_250);
      assert.equal(intervalAfterCheck(pace, { ...quiet, intervalMs: 15_000, fastPhase: true, viewed }), 1_250);
    }
  });

  it('checks a run awaiting feedback at the cap: slowly, or at the viewed pace', () => {
    assert.equal(intervalAfterCheck(pace, { ...quiet, intervalMs: 1_250, awaitingFeedback: true, changed: true, viewed: false }), 15_000);
    assert.equal(intervalAfterCheck(pace, { ...quiet, intervalMs: 1_250, awaitingFeedback: true, changed: true, viewed: true }), 2_500);
  });

  it('a viewed cap above the slow cap (a user setting) is the slow cap', () => {
    const slowCap = { ...pace, maxIntervalMs: 2_000 };
    assert.equal(capOf(slowCap, true), 2_000);
    assert.equal(grow(slowCap, 1_900, true), 2_000);
  });

  it('backs off after failures, to the slow cap after three, viewed or not', () => {
    assert.deepEqual(intervalAfterFailure(pace, 1_250, 1), { intervalMs: 1_875, slow: false });
    assert.deepEqual(intervalAfterFailure(pace, 1_875, 2), { intervalMs: 2_812.5, slow: false });
    assert.deepEqual(intervalAfterFailure(pace, 2_812.5, 3), { intervalMs: 15_000, slow: true });
  });

  it('jitter stays within ±20 % and never stretches a wait past its cap', () => {
    assert.equal(jitterFactor(pace, 0), 0.8);
    assert.equal(jitterFactor(pace, 0.5), 1);
    assert.ok(Math.abs(jitterFactor(pace, 0.999_999) - 1.2) < 1e-5);
    const focused = { focused: true, viewed: false };
    assert.equal(effectiveDelay(pace, 1_250, 1.2, focused), 1_500);
    assert.equal(effectiveDelay(pace, 15_000, 1.2, focused), 15_000);
    assert.equal(effectiveDelay(pace, 15_000, 0.8, focused), 12_000);
    assert.equal(effectiveDelay(pace, 2_500, 1.2, { focused: true, viewed: true }), 2_500);
    assert.equal(effectiveDelay(pace, 2_500, 0.8, { focused: true, viewed: true }), 2_000);
  });

  it('stretches waits while unfocused, except a viewed run and a lease check', () => {
    assert.equal(effectiveDelay(pace, 10_000, 1, { focused: false, viewed: false }), 20_000);
    assert.equal(effectiveDelay(pace, 2_500, 1, { focused: false, viewed: true }), 2_500);
    assert.equal(effectiveDelay(pace, 10_000, 1, { focused: false, viewed: false, plain: true }), 10_000);
  });
});
