// The integration runner's scheduling (test/integration/runner/lanes.ts): sessions side by side,
// longest first, never more at once than the lanes; the main suites split into parts of about equal
// time that keep their files' order.

import * as assert from 'node:assert/strict';
import { laneCount, runInLanes, splitByTime } from '../integration/runner/lanes';

describe('Integration lanes', () => {
  it('runs at most `lanes` sessions at once, longest first, and gives results in the given order', async () => {
    const items = [
      { name: 'short', estimateSeconds: 10 },
      { name: 'long', estimateSeconds: 300 },
      { name: 'middle', estimateSeconds: 100 },
      { name: 'middle too', estimateSeconds: 100 },
    ];
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const gates = new Map<string, () => void>();
    const results = runInLanes(items, 2, async (item) => {
      started.push(item.name);
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => gates.set(item.name, resolve));
      running--;
      return item.name.toUpperCase();
    });
    const open = async (name: string) => {
      while (!gates.has(name)) {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      gates.get(name)?.();
    };
    await open('middle');
    await open('long');
    await open('middle too');
    await open('short');
    assert.deepEqual(await results, ['SHORT', 'LONG', 'MIDDLE', 'MIDDLE TOO']);
    assert.deepEqual(started, ['long', 'middle', 'middle too', 'short']);
    assert.equal(most, 2);
  });

  it('starts nothing more once stopped', async () => {
    let stop = false;
    const ran: string[] = [];
    const results = await runInLanes(
      [{ name: 'a', estimateSeconds: 3 }, { name: 'b', estimateSeconds: 2 }, { name: 'c', estimateSeconds: 1 }],
      1,
      async (item) => {
        ran.push(item.name);
        stop = item.name === 'b';
        return item.name;
      },
      () => stop,
    );
    assert.deepEqual(ran, ['a', 'b']);
    assert.deepEqual(results, ['a', 'b']);
  });

  it('splits files into parts of about equal time, each in the files’ own order', () => {
    const seconds: Record<string, number> = { 'a.test.js': 120, 'b.test.js': 30, 'c.test.js': 90, 'd.test.js': 60, 'zz.test.js': 20 };
    const parts = splitByTime(Object.keys(seconds), 2, (file) => seconds[file], 15);
    assert.equal(parts.length, 2);
    assert.deepEqual(parts.flat().sort(), Object.keys(seconds).sort(), 'every file in exactly one part');
    const totals = parts.map((part) => part.reduce((sum, file) => sum + seconds[file], 0));
    assert.ok(Math.abs(totals[0] - totals[1]) <= 30, `parts of ${totals.join(' and ')} s`);
    for (const part of parts) {
      assert.deepEqual(part, [...part].sort(), 'a part keeps the suite order (zz-readme stays last)');
    }
  });

  it('counts a file without an estimate as the fallback, and drops empty parts', () => {
    assert.deepEqual(splitByTime(['new.test.js'], 3, () => undefined, 15), [['new.test.js']]);
    const parts = splitByTime(['known.test.js', 'new1.test.js', 'new2.test.js'], 2, (file) => (file === 'known.test.js' ? 30 : undefined), 15);
    assert.deepEqual(parts, [['known.test.js'], ['new1.test.js', 'new2.test.js']]);
  });

  it('takes CREW_RUNS_TEST_LANES when it is a whole number ≥ 1, else one more lane than cores, at most four', () => {
    assert.equal(laneCount('3', 2), 3);
    assert.equal(laneCount('1', 2), 1);
    assert.equal(laneCount(undefined, 2), 3);
    assert.equal(laneCount('', 2), 3);
    assert.equal(laneCount('0', 2), 3);
    assert.equal(laneCount('two', 2), 3);
    assert.equal(laneCount('1.5', 2), 3);
    assert.equal(laneCount(undefined, 1), 2, 'one core: two sessions, one waiting while the other works');
    assert.equal(laneCount(undefined, 16), 4, 'at most four by default');
  });
});
