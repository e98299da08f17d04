import * as assert from 'node:assert/strict';
import { runLabel } from '../../src/runTracking/model';

describe('run labels', () => {
  it('come from the first non-blank input, on one line, without control characters', () => {
    assert.equal(runLabel({ id: '', topic: 'Agents\tin\neditors' }, 0), 'Agents in editors');
    assert.equal(runLabel({ topic: '\u001b[31mred\u001b[0m\u0000\u0007' }, 0), '[31mred [0m');
  });

  it('are cut to 40 characters', () => {
    const label = runLabel({ topic: 'x'.repeat(100) }, 0);
    assert.equal(label.length, 40);
    assert.ok(label.endsWith('…'));
  });

  it('fall back to the start time', () => {
    assert.match(runLabel({}, Date.UTC(2026, 0, 2, 3, 4)), /^Run of 2026-01-0\d \d\d:\d\d$/);
  });
});
