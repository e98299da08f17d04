// The one-of-each helpers in src/util that every layer shares.
import * as assert from 'node:assert/strict';
import { errorText } from '../../src/util/errorText';
import { Emitter, setListenerErrorSink } from '../../src/util/event';
import { isPlainObject, listIn, withoutUndefined } from '../../src/util/objects';

describe('util helpers', () => {
  it('isPlainObject: JSON objects only, never null or arrays', () => {
    assert.deepEqual([{}, { a: 1 }, Object.create(null)].map(isPlainObject), [true, true, true]);
    assert.deepEqual([null, undefined, [], [1], 'x', 1, true].map(isPlainObject), [false, false, false, false, false, false, false]);
  });

  it('listIn: the array itself, else the first array under the keys in their order, else none', () => {
    assert.deepEqual(listIn([1, 2], ['data']), [1, 2]);
    assert.deepEqual(listIn({ items: [3], data: [4] }, ['data', 'items']), [4]);
    assert.deepEqual(listIn({ data: 'not a list', items: [5] }, ['data', 'items']), [5]);
    assert.deepEqual(listIn({ other: [6] }, ['data']), []);
    assert.deepEqual(listIn(null, ['data']), []);
  });

  it('withoutUndefined: drops undefined keys (keeps null, false, 0), leaves its argument alone', () => {
    const value = { a: 1, b: undefined, c: null, d: false, e: 0 };
    assert.deepEqual(withoutUndefined(value), { a: 1, c: null, d: false, e: 0 });
    assert.ok('b' in value);
  });

  it('errorText: an Error as its message, anything else as text', () => {
    assert.equal(errorText(new TypeError('boom')), 'boom');
    assert.equal(errorText('plain'), 'plain');
    assert.equal(errorText(42), '42');
    assert.equal(errorText(undefined), 'undefined');
  });
});

describe('Emitter: a failing listener', () => {
  it('does not stop the others, and its exception reaches the error sink (held until one is set)', () => {
    setListenerErrorSink(() => undefined).dispose(); // what other tests' listeners threw is not this test's
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    emitter.event(() => {
      throw new Error('listener broke');
    });
    emitter.event((n) => seen.push(n));
    emitter.fire(1);
    const reported: string[] = [];
    const sink = setListenerErrorSink((error) => reported.push(errorText(error)));
    try {
      assert.deepEqual(reported, ['listener broke'], 'the exception thrown before a sink was set');
      emitter.fire(2);
      assert.deepEqual(seen, [1, 2]);
      assert.deepEqual(reported, ['listener broke', 'listener broke']);
    } finally {
      sink.dispose();
    }
    emitter.fire(3);
    assert.equal(reported.length, 2, 'a disposed sink gets nothing more');
  });
});
