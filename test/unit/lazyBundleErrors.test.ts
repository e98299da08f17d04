// A lazy bundle (esbuild.js, lazyModules) carries its own copy of every module it imports: the chat bundle has its own
// src/api/errors.ts, while the crew client that throws lives in the main bundle. An error from one copy must still be a
// CrewApiError to the other, or a kickoff the crew refused reads as one that may have started (#45).
import * as assert from 'node:assert/strict';
import * as MainErrors from '../../src/api/errors';
import type * as SendOnceModule from '../../src/runTracking/sendOnce';

/** src/runTracking/sendOnce.ts with a copy of src/api/errors.ts of its own, as another bundle has. */
function sendOnceOfAnotherBundle(): typeof SendOnceModule {
  const own = ['../../src/api/errors', '../../src/runTracking/sendOnce'].map((module) => require.resolve(module));
  const kept = own.map((file) => require.cache[file]);
  own.forEach((file) => delete require.cache[file]);
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const copy = require(own[1]) as typeof SendOnceModule;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    assert.notEqual((require(own[0]) as typeof MainErrors).CrewApiError, MainErrors.CrewApiError, 'a second copy of the class');
    return copy;
  } finally {
    own.forEach((file, i) => (kept[i] ? (require.cache[file] = kept[i]) : delete require.cache[file]));
  }
}

describe('CrewApiError across bundles', () => {
  it("is a CrewApiError to another bundle's copy: a refusal stays a refusal, a fault stays a maybe", () => {
    const other = sendOnceOfAnotherBundle();
    assert.equal(other.classifySendFailure(new MainErrors.CrewApiError('unauthorized', 'no', { status: 401 })), 'refused');
    assert.equal(other.classifySendFailure(new MainErrors.CrewApiError('network', 'refused', { notSent: true })), 'retryLater');
    assert.equal(other.classifySendFailure(new MainErrors.CrewApiError('network', 'reset')), 'mayHaveActed');
    assert.equal(other.classifySendFailure(new Error('plain')), 'mayHaveActed', 'anything else is still a maybe');
  });

  it('is one to instanceof in either direction, and nothing else is', () => {
    const own = require.resolve('../../src/api/errors');
    const kept = require.cache[own];
    delete require.cache[own];
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const copy = require(own) as typeof MainErrors;
    require.cache[own] = kept;
    assert.ok(new MainErrors.CrewApiError('timeout', 't') instanceof copy.CrewApiError);
    assert.ok(new copy.CrewApiError('timeout', 't') instanceof MainErrors.CrewApiError);
    assert.ok(MainErrors.isCrewApiError(new copy.CrewApiError('server', 's', { status: 503 })));
    assert.ok(!(new Error('x') instanceof copy.CrewApiError));
    assert.ok(!(Object.assign(new Error('x'), { name: 'CrewApiError', kind: 'server' }) instanceof MainErrors.CrewApiError), 'a look-alike is not one');
    for (const value of [undefined, null, 'CrewApiError', 42, {}]) {
      assert.ok(!(value instanceof MainErrors.CrewApiError));
    }
  });
});
