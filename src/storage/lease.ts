// Which window polls (and notifies about) a run. Every window shows every run, but several windows
// polling the same run would multiply requests and notifications.
//
// One lease file per run, `<dir>/<runId>.lease` = {"owner": windowId, "expiresAt": epochMs}, renewed while
// the window lives and taken over by another window once expired. Every change to a lease file happens
// under a short per-run lock file (`<runId>.lock`, see fileLock.ts), so two windows racing for an expired
// lease cannot both win: the second finds the lock taken, or — once it gets the lock — finds the first
// one's fresh lease.
//
// One lease per run, not one per window (a leader polling everything): a leader is no simpler once it
// must hand over on close and survive a crash, and it would concentrate every crew's requests and
// notifications in one window — often not the one the user kicked the run off from. Per run, the
// window that starts a run polls and notifies it; a closing window releases its runs one by one and the
// others take them within a lease period. Correctness does not rest on the lease: the store applies a
// polled status only to the version of the run that was polled (see RunStore.applyPolled).

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { type Clock, systemClock } from '../util/clock';
import { errorCode, writeFileAtomic } from './atomicFile';
import { FileLock, safeName } from './fileLock';
import { KeyedQueue } from './keyedQueue';
import type { Logger } from '../util/logger';
import type { Liveness } from './windowLiveness';

export interface LeaseOptions {
  clock?: Clock;
  /** How long a lease lasts without renewal. */
  ttlMs?: number;
  /** How often `startRenewing` renews owned leases. */
  renewEveryMs?: number;
  /** A lock older than this was left by a crashed window and may be broken. */
  lockStaleMs?: number;
  /** Leases are renewed and taken only while this says the window answers (see windowLiveness.ts). */
  liveness?: Liveness;
}

/** Content of `<runId>.lease`. */
export interface LeaseFile {
  owner: string;
  expiresAt: number;
}

export const DEFAULT_LEASE_TTL_MS = 30_000;
const DEFAULT_LOCK_STALE_MS = 10_000;

export class LeaseManager {
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly renewEveryMs: number;
  private readonly lock: FileLock;
  /** Run id → when our lease on it expires. */
  private readonly owned = new Map<string, number>();
  /** Serialises this window's own operations per run, so they never contend for the lock file. */
  private readonly queue = new KeyedQueue();
  private renewTimer: unknown;
  private disposed = false;
  private readonly liveness?: Liveness;
  /** The window stopped answering (said once, until it answers again). */
  private silent = false;

  constructor(
    private readonly dir: string,
    readonly ownerId: string,
    private readonly logger: Logger,
    options: LeaseOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    this.renewEveryMs = options.renewEveryMs ?? Math.floor(this.ttlMs / 3);
    this.lock = new FileLock(dir, ownerId, logger, this.clock, options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS);
    this.liveness = options.liveness;
  }

  /** True while this window holds an unexpired lease on the run. */
  owns(runId: string): boolean {
    const expiresAt = this.owned.get(runId);
    return expiresAt !== undefined && this.clock.now() < expiresAt;
  }

  /** For the poller: poll runs we own, or can take because nobody else holds them. */
  async canPoll(runId: string): Promise<boolean> {
    return this.owns(runId) || this.tryAcquire(runId);
  }

  /** Takes the lease if it is free, expired, or already ours. */
  tryAcquire(runId: string): Promise<boolean> {
    return this.serialised(runId, async () => {
      if (this.disposed || !(await this.windowAnswers())) {
        return false;
      }
      const result = await this.lock.tryRun(runId, async () => {
        const current = await this.readLease(runId);
        const now = this.clock.now();
        if (current && current.owner !== this.ownerId && current.expiresAt > now) {
          return false;
        }
        await this.writeLease(runId, now + this.ttlMs);
        if (current && current.owner !== this.ownerId) {
          this.logger.info(`Run ${runId}: took over the lease of window ${current.owner}, which had expired.`);
        }
        return true;
      });
      return result === true;
    });
  }

  /** Extends every lease we hold; drops (and reports) those another window has taken. */
  async renew(): Promise<string[]> {
    const lost: string[] = [];
    if (this.owned.size > 0 && !(await this.windowAnswers())) {
      return lost; // Our leases lapse: a window that answers takes the runs over.
    }
    await Promise.all(
      [...this.owned.keys()].map((runId) =>
        this.serialised(runId, async () => {
          // When the lock is busy for a moment, skip: our lease stays valid until it expires.
          await this.lock.tryRun(runId, async () => {
            const current = await this.readLease(runId);
            if (current && current.owner !== this.ownerId) {
              this.owned.delete(runId);
              lost.push(runId);
              return;
            }
            await this.writeLease(runId, this.clock.now() + this.ttlMs);
          });
        }).catch((e) => this.logger.warn(`Run ${runId}: could not renew the lease (${String(e)}).`)),
      ),
    );
    return lost;
  }

  /** Gives the run up (e.g. it ended or is no longer watched), so another window does not wait for expiry. */
  release(runId: string): Promise<void> {
    return this.serialised(runId, async () => {
      if (!this.owned.delete(runId)) {
        return;
      }
      await this.lock.tryRun(runId, async () => {
        const current = await this.readLease(runId);
        if (current?.owner === this.ownerId) {
          await fs.rm(this.leasePath(runId), { force: true });
        }
      });
    }).catch((e) => this.logger.warn(`Run ${runId}: could not release the lease (${String(e)}).`));
  }

  startRenewing(): void {
    if (this.renewTimer !== undefined || this.disposed) {
      return;
    }
    const tick = () => {
      this.renewTimer = this.clock.setTimeout(() => {
        void this.renew().finally(() => {
          if (!this.disposed) {
            tick();
          }
        });
      }, this.renewEveryMs);
    };
    tick();
  }

  /** Stops renewing and releases every lease held. */
  async dispose(): Promise<void> {
    if (this.renewTimer !== undefined) {
      this.clock.clearTimeout(this.renewTimer);
      this.renewTimer = undefined;
    }
    const held = [...this.owned.keys()];
    await Promise.all(held.map((runId) => this.release(runId)));
    this.disposed = true;
  }

  // ---- internals ----

  private async windowAnswers(): Promise<boolean> {
    const answers = !this.liveness || (await this.liveness.answers());
    if (answers === this.silent) {
      this.silent = !answers;
      if (this.silent) {
        this.logger.warn(`This window does not answer: its ${this.owned.size} lease(s) lapse and other windows may take its runs over.`);
      } else {
        this.logger.info('This window answers again: it takes runs again.');
      }
    }
    return answers;
  }

  private leasePath(runId: string): string {
    return path.join(this.dir, `${safeName(runId)}.lease`);
  }

  private async readLease(runId: string): Promise<LeaseFile | undefined> {
    try {
      const parsed = JSON.parse(await fs.readFile(this.leasePath(runId), 'utf8')) as Partial<LeaseFile>;
      if (typeof parsed.owner === 'string' && typeof parsed.expiresAt === 'number') {
        return { owner: parsed.owner, expiresAt: parsed.expiresAt };
      }
    } catch (e) {
      if (errorCode(e) === 'ENOENT') {
        return undefined;
      }
    }
    // Unreadable (cannot happen with atomic writes, but a disk can lie): treat as expired.
    return { owner: '', expiresAt: 0 };
  }

  private async writeLease(runId: string, expiresAt: number): Promise<void> {
    const lease: LeaseFile = { owner: this.ownerId, expiresAt };
    await writeFileAtomic(this.leasePath(runId), JSON.stringify(lease));
    this.owned.set(runId, expiresAt);
  }

  private serialised<T>(runId: string, work: () => Promise<T>): Promise<T> {
    return this.queue.run(runId, work);
  }
}
