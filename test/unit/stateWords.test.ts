import * as assert from 'node:assert/strict';
import { messageRepeatsState } from '../../src/api/stateWords';

describe('messageRepeatsState', () => {
  it('is true for a sentence that only says the state the run is in', () => {
    assert.equal(messageRepeatsState('Task is Running', 'running'), true);
    assert.equal(messageRepeatsState('Task is pending', 'queued'), true);
    assert.equal(messageRepeatsState('The crew has completed.', 'succeeded'), true);
    assert.equal(messageRepeatsState('FAILED', 'failed'), true);
    assert.equal(messageRepeatsState('Status: paused', 'awaitingFeedback'), true);
  });

  it('is false for words that say more, or another state, or nothing known', () => {
    assert.equal(messageRepeatsState('Task is Running', 'succeeded'), false, 'a lagging message is not the state');
    assert.equal(messageRepeatsState('Running the research task on 3 sources', 'running'), false);
    assert.equal(messageRepeatsState('Out of credits', 'failed'), false);
    assert.equal(messageRepeatsState('Task is', 'running'), false);
    assert.equal(messageRepeatsState(undefined, 'running'), false);
    assert.equal(messageRepeatsState('unknown', 'unknown'), false);
  });
});
