// Issue #31: what windows share besides runs (input memory and presets, crews without Stop, imported
// deployments, the demo's port) must not be undone by a window holding an older copy. VS Code's globalState
// is such a copy per window, written whole: these tests give each window its own lagging one.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputPresets } from '../../src/kickoff/core/inputPresets';
import { StopSupport } from '../../src/crews/stopSupport';
import type { Logger } from '../../src/util/logger';
import { SharedState } from '../../src/storage/sharedState';
import { MementoHub } from './helpers/laggingMemento';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

const A = 'https://crew-a.example.com';
const B = 'https://crew-b.example.com';

describe('What windows share besides runs (issue #31)', () => {
  let dir: string;
  let hub: MementoHub;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-shared-'));
    hub = new MementoHub();
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A window: the shared folder, and its own lagging globalState, where older versions kept these values. */
  function window() {
    const state = hub.window();
    const shared = new SharedState(path.join(dir, 'shared'), quiet, state);
    return { state, presets: new InputPresets(shared), stops: new StopSupport(shared) };
  }

  it('a preset saved in one window is not undone by another window remembering inputs from its older copy', async () => {
    const one = window();
    const two = window();
    await one.presets.savePreset(A, { name: 'weekly', inputs: { topic: 'News' } });
    await two.presets.rememberLastUsed(B, { topic: 'AI' }); // Window two has not received window one's write.
    for (const [name, w] of [['one', one], ['two', two], ['a new window', window()]] as const) {
      w.state.deliver();
      assert.deepEqual(w.presets.presets(A).map((p) => p.name), ['weekly'], `${name}: the preset is gone`);
      assert.deepEqual(w.presets.lastUsed(B), { topic: 'AI' }, `${name}: the last inputs are gone`);
    }
  });

  it('a crew found without Stop in one window stays so after another window forgets a different crew', async () => {
    const one = window();
    const two = window();
    await two.stops.markUnsupported(B);
    two.state.deliver();
    one.state.deliver();
    await one.stops.markUnsupported(A);
    await two.stops.forget(B); // From its copy, which does not have A yet.
    for (const [name, w] of [['one', one], ['two', two], ['a new window', window()]] as const) {
      w.state.deliver();
      assert.equal(w.stops.offersStop(A), false, `${name}: crew A offers Stop again`);
      assert.equal(w.stops.offersStop(B), true, `${name}: crew B`);
    }
  });

  it('reads what an older version kept in globalState, and keeps it through the first change', async () => {
    const before = hub.window();
    await before.update('crewRuns.inputMemory', { [A]: { presets: [{ name: 'old', inputs: { topic: 'kept' } }], last: { topic: 'before' } } });
    const one = window();
    assert.deepEqual(one.presets.presets(A).map((p) => p.name), ['old']);
    await one.presets.savePreset(A, { name: 'new', inputs: { topic: 'x' } });
    await before.update('crewRuns.inputMemory', { [A]: { presets: [] } }); // A stale copy written later: no longer read.
    for (const w of [one, window()]) {
      w.state.deliver();
      assert.deepEqual(w.presets.presets(A).map((p) => p.name), ['new', 'old']);
      assert.deepEqual(w.presets.lastUsed(A), { topic: 'before' });
    }
  });

  it('many windows changing one value at once: every change lands (the key\u2019s lock)', async () => {
    const windows = Array.from({ length: 6 }, () => window());
    await Promise.all(windows.map((w, i) => w.presets.savePreset(A, { name: `preset ${i}`, inputs: { i } })));
    assert.deepEqual(window().presets.presets(A).map((p) => p.name), windows.map((_w, i) => `preset ${i}`));
  });
});
