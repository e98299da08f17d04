// Issue #51: a window must not delete what another window imported. The imported deployments are one shared file
// (shared/crewRuns.platform.imported.json), while each window lists the crews it knows: another window's import
// reaches its settings a moment later, and windows list different crews anyway (a workspace's, the demo's).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as ImportedModule from '../../src/platform/importedCrews';
import type { Logger } from '../../src/util/logger';
import { SharedState } from '../../src/storage/sharedState';
import type { SharedValues } from '../../src/util/sharedValues';
import { FakeEventEmitter, fakeVscode, requireFreshWith } from './helpers/fakeVscode';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const PLATFORM = 'https://platform.example.com';
const X = 'https://x-crew.example.com';
const Y = 'https://y-crew.example.com';

/** A window's crews list, as CrewRegistry gives it: the URLs it knows, and a change event. */
class WindowCrews {
  private readonly changed = new FakeEventEmitter<void>();
  readonly onDidChange = this.changed.event;
  constructor(private urls: string[]) {}
  list() {
    return this.urls.map((url) => ({ url }));
  }
  /** Its list now (settings read, a crew removed): the registry fires its change. */
  set(urls: string[]): void {
    this.urls = urls;
    this.changed.fire();
  }
  /** A change for another reason (a token, a health check): the list is as it was. */
  touch(): void {
    this.changed.fire();
  }
}

/** The shared values as a window holds them, each change it starts kept to be awaited (no clock). */
function counted(state: SharedValues): SharedValues & { settled(): Promise<void> } {
  const pending: Promise<void>[] = [];
  return {
    get: (key) => state.get(key),
    change: (key, update) => {
      const done = state.change(key, update);
      pending.push(done.catch(() => undefined));
      return done;
    },
    settled: async () => {
      await Promise.all(pending);
    },
  };
}

describe('Imported deployments across windows (issue #51)', () => {
  const [{ ImportedCrews }] = requireFreshWith([require.resolve('../../src/platform/importedCrews')], { ...fakeVscode, EventEmitter: FakeEventEmitter }) as [typeof ImportedModule];
  let dir: string;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-imported-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A window: its shared values, its imported deployments following its own crews list. */
  function openWindow(urls: string[]) {
    const state = counted(new SharedState(dir, quiet));
    const imported = new ImportedCrews(state);
    const crews = new WindowCrews(urls);
    const following = imported.followCrews(crews);
    return { state, imported, crews, close: () => following.dispose() };
  }

  it('a window whose crews list has not caught up does not delete what another window just imported', async () => {
    const a = openWindow([Y]);
    const b = openWindow([Y]);
    // Window A imports X: its crew saved (A's list has it), then its deployment.
    a.crews.set([Y, X]);
    await a.imported.set({ crewUrl: X, uuid: 'dep-x', platformUrl: PLATFORM, name: 'x-crew' });
    // Window B's crews change for a reason of its own before its settings show X.
    b.crews.touch();
    await b.state.settled();
    assert.deepEqual(a.imported.list().map((c) => c.crewUrl), [X], 'X is still imported');
    assert.deepEqual(b.imported.list().map((c) => c.crewUrl), [X], 'and B sees it so');
    a.close();
    b.close();
  });

  it('a window that never lists a crew (another workspace’s) never deletes its deployment', async () => {
    const a = openWindow([X]);
    const b = openWindow([]);
    await a.imported.set({ crewUrl: X, uuid: 'dep-x', platformUrl: PLATFORM, name: 'x-crew' });
    b.crews.set([Y]);
    await b.state.settled();
    assert.deepEqual(a.imported.list().map((c) => c.crewUrl), [X]);
    a.close();
    b.close();
  });

  it('a crew removed is forgotten, by the window that saw it go (the other has nothing to do)', async () => {
    const a = openWindow([X, Y]);
    const b = openWindow([X, Y]);
    await a.imported.set({ crewUrl: X, uuid: 'dep-x', platformUrl: PLATFORM, name: 'x-crew' });
    await a.imported.set({ crewUrl: Y, uuid: 'dep-y', platformUrl: PLATFORM, name: 'y-crew' });
    a.crews.set([Y]);
    await a.state.settled();
    assert.deepEqual(a.imported.list().map((c) => c.crewUrl), [Y]);
    b.crews.set([Y]);
    await b.state.settled();
    assert.deepEqual(b.imported.list().map((c) => c.crewUrl), [Y]);
    a.close();
    b.close();
  });
});
