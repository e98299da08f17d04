// Issue #52, finding 9, the pure part: the widest editor group, read from `vscode.getEditorLayout`'s answer,
// where the batch results open (the real host: batches.test.ts).
import * as assert from 'node:assert/strict';
import type * as EditorLayoutModule from '../../src/ui/editorLayout';
import { requireWithFakeVscode } from './helpers/fakeVscode';

const { widestGroup } = requireWithFakeVscode<typeof EditorLayoutModule>(require.resolve('../../src/ui/editorLayout'));

describe('the widest editor group (#52)', () => {
  it('is the wide one of two side by side, whichever is active', () => {
    const layout = { orientation: 0, groups: [{ size: 900 }, { size: 380 }] };
    assert.equal(widestGroup(layout, 2), 1, 'from the narrow group: the wide one');
    assert.equal(widestGroup(layout, 1), 1);
    assert.equal(widestGroup({ orientation: 0, groups: [{ size: 300 }, { size: 980 }] }, 1), 2);
  });

  it('is the active one when it is as wide as any (halves, one group, stacked groups)', () => {
    assert.equal(widestGroup({ orientation: 0, groups: [{ size: 640 }, { size: 640 }] }, 2), 2);
    assert.equal(widestGroup({ orientation: 0, groups: [{ size: 640 }, { size: 635 }] }, 2), 2, 'within 2 %');
    assert.equal(widestGroup({ orientation: 0, groups: [{}] }, 1), 1);
    assert.equal(widestGroup({ orientation: 1, groups: [{ size: 200 }, { size: 600 }] }, 2), 2, 'stacked: all as wide');
  });

  it('reads nested groups: each level turns the other way, columns in reading order', () => {
    // Left: two stacked groups (columns 1 and 2), 400 wide; right: one group (column 3), 880 wide.
    const layout = { orientation: 0, groups: [{ size: 400, groups: [{ size: 300 }, { size: 300 }] }, { size: 880 }] };
    assert.equal(widestGroup(layout, 1), 3);
    // Top: one group across the whole width (column 1); below: two side by side (columns 2 and 3).
    const stacked = { orientation: 1, groups: [{ size: 300 }, { size: 500, groups: [{ size: 700 }, { size: 580 }] }] };
    assert.equal(widestGroup(stacked, 3), 1);
  });

  it('is unknown for anything that is not a layout', () => {
    for (const bad of [undefined, null, 'layout', { orientation: 2, groups: [] }, { orientation: 0, groups: [{ size: 'wide' }] }, { orientation: 0, groups: [] }]) {
      assert.equal(widestGroup(bad, 1), undefined, JSON.stringify(bad));
    }
  });
});
