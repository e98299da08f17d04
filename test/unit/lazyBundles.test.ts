// Each bundle loaded on first use (dist/commands.js, chat.js, batchUi.js) has its own copy of every module it
// imports. What crosses a bundle boundary must still be recognised on the other side.
import * as assert from 'node:assert/strict';
import * as errorsInThisBundle from '../../src/api/errors';

/** A second copy of a module, as another bundle has it (its own classes). */
function freshCopy<T>(id: string): T {
  const resolved = require.resolve(id);
  const cached = require.cache[resolved];
  delete require.cache[resolved];
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(resolved) as T;
  } finally {
    require.cache[resolved] = cached;
  }
}

describe('Lazily loaded bundles', () => {
  it("an error the client throws in the main bundle is a CrewApiError to another bundle's copy of the class", () => {
    const otherBundle = freshCopy<typeof errorsInThisBundle>('../../src/api/errors');
    assert.notEqual(otherBundle.CrewApiError, errorsInThisBundle.CrewApiError, 'two copies of the class, as in two bundles');

    const fromClient = new errorsInThisBundle.CrewApiError('unauthorized', 'HTTP 401', { status: 401 });
    assert.ok(fromClient instanceof otherBundle.CrewApiError);
    assert.ok(otherBundle.isCrewApiError(fromClient));
    assert.equal(otherBundle.mayHaveActed(new errorsInThisBundle.CrewApiError('timeout', 'timed out')), true);
    // And the other way round.
    assert.ok(new otherBundle.CrewApiError('network', 'reset') instanceof errorsInThisBundle.CrewApiError);
  });

  it('nothing else is taken for a CrewApiError', () => {
    const { CrewApiError } = errorsInThisBundle;
    for (const value of [new Error('x'), Object.assign(new Error('x'), { name: 'CrewApiError', kind: 'unauthorized' }), { kind: 'network' }, null, undefined, 'CrewApiError', 42]) {
      assert.equal(value instanceof CrewApiError, false, String(value));
    }
    // A subclass check still means "this very class or below", not any Error.
    assert.equal(new CrewApiError('server', 'HTTP 500') instanceof Error, true);
  });
});
