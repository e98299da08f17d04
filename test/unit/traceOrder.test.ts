// Issue 49: a run's event log accumulates across polls; every reply is a window, mostly of events already kept.
import * as assert from 'node:assert/strict';
import type { RunEvent } from '../../src/api/types';
import { mergeEvents } from '../../src/runs/core/trace/eventOrder';

function ev(n: number, at?: number, fields: Partial<RunEvent> = {}): RunEvent {
  return { key: `id:e${n}`, id: `e${n}`, type: 'task_started', at, ...fields };
}

const keys = (events: readonly RunEvent[]) => events.map((e) => e.key.slice(3));

/** Events whose `key`, `at` and `seq` count how often they are read: a linear merge reads each a few times. */
function counted(events: RunEvent[]): { events: RunEvent[]; reads: () => number } {
  let reads = 0;
  const wrapped = events.map((event) => {
    const copy = { ...event };
    for (const field of ['key', 'at', 'seq'] as const) {
      const value = event[field];
      Object.defineProperty(copy, field, { enumerable: true, get: () => (reads++, value) });
    }
    return copy;
  });
  return { events: wrapped, reads: () => reads };
}

describe('event log merging (issue 49)', () => {
  it('orders by time, then emission sequence; an event without a time stays after the one it arrived after', () => {
    const { events } = mergeEvents([], [ev(1, 30), ev(2, 10, { seq: 2 }), ev(3, 10, { seq: 1 }), ev(4), ev(5, 20)], 100);
    assert.deepEqual(keys(events), ['e3', 'e4', 'e2', 'e5', 'e1']);
  });

  it('the first event of a window without a time goes after the log, then the window follows in order', () => {
    const kept = mergeEvents([], [ev(1, 10), ev(2, 20)], 100).events;
    const merged = mergeEvents(kept, [ev(3), ev(4, 30)], 100);
    assert.deepEqual(keys(merged.events), ['e1', 'e2', 'e3', 'e4']);
    assert.deepEqual(keys(merged.added), ['e3', 'e4']);
  });

  it('deduplicates across overlapping windows: only the new events are added', () => {
    const first = mergeEvents([], [1, 2, 3, 4, 5].map((n) => ev(n, n)), 100);
    const second = mergeEvents(first.events, [3, 4, 5, 6, 7, 8].map((n) => ev(n, n)), 100);
    assert.deepEqual(keys(second.events), ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8']);
    assert.deepEqual(keys(second.added), ['e6', 'e7', 'e8']);
    assert.equal(second.dropped, 0);
    const again = mergeEvents(second.events, [3, 4, 5, 6, 7, 8].map((n) => ev(n, n)), 100);
    assert.deepEqual(again.added, []);
    assert.deepEqual(again.events, second.events);
  });

  it('a late event with an earlier time goes in its place; a repeat within one window counts once', () => {
    const kept = mergeEvents([], [ev(1, 10), ev(3, 30)], 100).events;
    const merged = mergeEvents(kept, [ev(2, 20), ev(2, 20), ev(4, 40)], 100);
    assert.deepEqual(keys(merged.events), ['e1', 'e2', 'e3', 'e4']);
    assert.deepEqual(keys(merged.added), ['e2', 'e4']);
  });

  it('drops the oldest beyond the cap, counts each dropped event once however many windows still list it', () => {
    const first = mergeEvents([], [1, 2, 3, 4, 5].map((n) => ev(n, n)), 5);
    assert.equal(first.dropped, 0);
    const second = mergeEvents(first.events, [3, 4, 5, 6, 7, 8].map((n) => ev(n, n)), 5);
    assert.deepEqual(keys(second.events), ['e4', 'e5', 'e6', 'e7', 'e8']);
    assert.equal(second.dropped, 3);
    assert.deepEqual(keys(second.added), ['e6', 'e7', 'e8']);
    // The window still lists e3 (dropped) and e1..e2 were never in it again: nothing new, nothing counted twice.
    const third = mergeEvents(second.events, [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ev(n, n)), 5);
    assert.equal(third.dropped, 0);
    assert.deepEqual(third.added, []);
    assert.deepEqual(keys(third.events), keys(second.events));
  });

  it('a new event older than all kept in a full log is not taken; one that sorts among them is, pushing out the oldest', () => {
    const kept = mergeEvents([], [10, 20, 30].map((n) => ev(n, n)), 3).events;
    const older = mergeEvents(kept, [ev(5, 5)], 3);
    assert.deepEqual([keys(older.events), older.added, older.dropped], [['e10', 'e20', 'e30'], [], 0]);
    const among = mergeEvents(kept, [ev(15, 15)], 3);
    assert.deepEqual([keys(among.events), keys(among.added), among.dropped], [['e15', 'e20', 'e30'], ['e15'], 1]);
  });

  it('a new event that the cap drops at once is dropped, not added', () => {
    const merged = mergeEvents([ev(1, 10), ev(2, 20)], [ev(3, 15), ev(4, 30), ev(5, 40)], 2);
    assert.deepEqual([keys(merged.events), keys(merged.added), merged.dropped], [['e4', 'e5'], ['e4', 'e5'], 3]);
  });

  it('reads a kept log that is out of order or repeats keys without losing an event', () => {
    const merged = mergeEvents([ev(2, 20), ev(1, 10), ev(2, 20)], [ev(3, 30)], 100);
    assert.deepEqual(keys(merged.events), ['e1', 'e2', 'e3']);
    assert.deepEqual(keys(merged.added), ['e3']);
  });

  it('takes a cap that is not a finite number as no cap, and a negative one as zero', () => {
    assert.equal(mergeEvents([], [ev(1, 1), ev(2, 2)], Infinity).events.length, 2);
    assert.equal(mergeEvents([], [ev(1, 1), ev(2, 2)], Number.NaN).events.length, 2);
    assert.deepEqual(mergeEvents([], [ev(1, 1), ev(2, 2)], -3), { events: [], added: [], dropped: 2 });
  });

  for (const [what, newAt] of [
    ['appended in order', (i: number) => 20_000 + i],
    ['scattered among the kept ones', (i: number) => i * 200 + 0.5],
  ] as const) {
    it(`10,000 kept and a window of 10,000 with 50 new ones (${what}): each event is read a bounded number of times`, () => {
      const kept = counted(Array.from({ length: 10_000 }, (_, i) => ev(i, i)));
      const old = Array.from({ length: 9_950 }, (_, i) => ev(i + 50, i + 50));
      const fresh = Array.from({ length: 50 }, (_, i) => ev(100_000 + i, newAt(i)));
      const window = counted([...old, ...fresh]);
      const merged = mergeEvents(kept.events, window.events, 10_050);
      assert.equal(merged.events.length, 10_050);
      assert.equal(merged.added.length, 50);
      const perEvent = (kept.reads() + window.reads()) / 20_000;
      assert.ok(perEvent < 8, `${perEvent.toFixed(1)} reads of each event`);
    });
  }
});
