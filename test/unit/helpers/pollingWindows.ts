// Several windows on one machine for unit tests of the poller: each has its own run store over its own
// lagging copy of globalState (MementoHub), its own lease manager and poller, and all share the storage
// folder (run records, leases), as VS Code windows do. Time is a FakeClock whose settle() lets each
// timer's work (polls, store writes, lease files) finish before time moves on.

import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { StatusSource } from '../../../src/api/types';
import { LeaseManager } from '../../../src/storage/lease';
import type { Logger } from '../../../src/util/logger';
import { RunPoller } from '../../../src/runTracking/poller';
import type { PollerInspection, PollerOptions } from '../../../src/runTracking/pollTimes';
import { RunStore } from '../../../src/runTracking/runStore';
import { FakeClock } from './fakeClock';
import { MementoHub } from './laggingMemento';

export const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const realTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface PollingWindow<S extends StatusSource> {
  name: string;
  store: RunStore;
  lease: LeaseManager;
  poller: RunPoller;
  /** What the poller lets tests see (PollerOptions.inspect). */
  polling: PollerInspection;
  source: S;
}

export class PollingWindows {
  readonly clock = new FakeClock(1_700_000_000_000);
  private readonly hub = new MementoHub();
  private readonly open: PollingWindow<StatusSource>[] = [];

  private constructor(readonly dir: string) {
    this.clock.settle = async () => {
      for (let quietTicks = 0; quietTicks < 3; ) {
        await realTick();
        await Promise.all(this.open.map((w) => w.polling.whenIdle()));
        quietTicks = this.open.every((w) => w.polling.pendingOperations() === 0) ? quietTicks + 1 : 0;
      }
    };
  }

  static async create(prefix: string): Promise<PollingWindows> {
    return new PollingWindows(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  }

  get windows(): readonly PollingWindow<StatusSource>[] {
    return this.open;
  }

  async window<S extends StatusSource>(name: string, source: S, options: { ttlMs: number } & PollerOptions): Promise<PollingWindow<S>> {
    const { ttlMs, ...pollerOptions } = options;
    const store = new RunStore(this.hub.window(), this.dir, quiet, { clock: this.clock });
    await store.load();
    const lease = new LeaseManager(path.join(this.dir, 'leases'), name, quiet, { clock: this.clock, ttlMs });
    let polling!: PollerInspection;
    const poller = new RunPoller(store, source, this.clock, quiet, { canPoll: (id) => lease.canPoll(id), release: (id) => lease.release(id) }, { ...pollerOptions, inspect: (i) => (polling = i) });
    const win = { name, store, lease, poller, polling, source };
    this.open.push(win);
    return win;
  }

  /** The window closes: its poller stops, its leases go, its writes end. */
  async close(win: PollingWindow<StatusSource>): Promise<void> {
    this.open.splice(this.open.indexOf(win), 1);
    win.poller.dispose();
    await win.lease.dispose();
    await win.store.flush();
    win.store.dispose();
  }

  async dispose(): Promise<void> {
    for (const win of [...this.open]) {
      await this.close(win);
    }
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}
