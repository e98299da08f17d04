// A short lock per name shared by every window (and every extension host) on this machine: a lock file
// created with an atomic exclusive create (temp file + hard link), removed by its owner. A holder on this
// machine keeps it as long as its process lives, however long its work takes; once the process is gone (a
// window that crashed or was killed) others take it over at once. A holder on another machine (a shared
// home folder) cannot be asked: it touches the file while it works, and loses the lock when the file has
// not been touched for `staleMs`. Leases, run records, shared values and chat sessions take it.

import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock } from '../util/clock';
import { createFileExclusive, errorCode, removeQuietly } from './atomicFile';
import type { Logger } from '../util/logger';

interface LockFile {
  owner: string;
  at: number;
  /** The process holding it, on `host`. */
  pid?: number;
  host?: string;
}

export const BUSY = Symbol('busy');

/** How long `run` waits for a busy lock, in real time, before it gives up (a stale one is broken sooner). */
const MAX_WAIT_MS = 30_000;

export class FileLock {
  /** The folder was made: a mkdir before every lock cost the host's thread as much as taking the lock. */
  private made = false;

  constructor(
    private readonly dir: string,
    private readonly ownerId: string,
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly staleMs: number,
  ) {}

  /** Runs `work` holding the lock, or returns BUSY at once when another holds it. */
  async tryRun<T>(name: string, work: () => Promise<T>): Promise<T | typeof BUSY> {
    const lockPath = path.join(this.dir, `${safeName(name)}.lock`);
    const mine = JSON.stringify({ owner: this.ownerId, at: this.clock.now(), pid: process.pid, host: os.hostname() } satisfies LockFile);
    if (!(await this.create(lockPath, mine))) {
      if (!(await this.breakStale(lockPath)) || !(await this.create(lockPath, mine))) {
        return BUSY;
      }
    }
    const heartbeat = this.beat(lockPath);
    try {
      return await work();
    } finally {
      heartbeat.stop();
      // Remove only our own lock: if another machine judged it stale, the new one is someone else's.
      // By calls on this thread: a lock file is a hundred bytes, never flushed (see createFileExclusive).
      if (readQuietly(lockPath) === mine) {
        removeQuietly(lockPath);
      }
    }
  }

  /** Touches the lock file every third of the stale age while the work runs: how another machine sees it alive. */
  private beat(lockPath: string): { stop(): void } {
    let handle: unknown;
    const next = () => {
      handle = this.clock.setTimeout(() => {
        const seconds = this.clock.now() / 1000;
        void fs.utimes(lockPath, seconds, seconds).catch(() => undefined);
        next();
      }, this.staleMs / 3);
    };
    next();
    return { stop: () => this.clock.clearTimeout(handle) };
  }

  /** Creates the lock file if absent; the folder is made the first time, and again if it went missing. */
  private async create(lockPath: string, mine: string): Promise<boolean> {
    if (!this.made) {
      await fs.mkdir(this.dir, { recursive: true });
      this.made = true;
    }
    try {
      return await createFileExclusive(lockPath, mine, false);
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        throw e;
      }
      await fs.mkdir(this.dir, { recursive: true });
      return createFileExclusive(lockPath, mine, false);
    }
  }

  /** Runs `work` holding the lock, waiting while another window holds it (its work takes milliseconds). */
  async run<T>(name: string, work: () => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + MAX_WAIT_MS;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      const result = await this.tryRun(name, work);
      if (result !== BUSY) {
        return result;
      }
      if (Date.now() > giveUpAt) {
        throw new Error(`${name}: another window holds its lock`);
      }
      // Real time, not the store's clock: this waits for another process's file operations.
      await new Promise<void>((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * Removes a lock left by a crashed window. Moving it aside first (rename is atomic) and checking that
   * what was moved is the stale lock we judged keeps two windows breaking it at once from removing a fresh one.
   */
  private async breakStale(lockPath: string): Promise<boolean> {
    const seen = await fs.readFile(lockPath, 'utf8').catch(() => undefined);
    const touched = await fs.stat(lockPath).then((s) => s.mtimeMs, () => undefined);
    if (seen === undefined || touched === undefined) {
      return true; // Released meanwhile.
    }
    let lock: Partial<LockFile> = {};
    try {
      lock = JSON.parse(seen) as Partial<LockFile>;
    } catch {
      // Unreadable lock: stale.
    }
    if (!this.stale(lock, touched)) {
      return false;
    }
    const aside = `${lockPath}.${this.ownerId}-${process.pid}.stale`;
    try {
      await fs.rename(lockPath, aside);
    } catch {
      return false;
    }
    const moved = await fs.readFile(aside, 'utf8').catch(() => undefined);
    if (moved !== seen) {
      // We moved a fresh lock: put it back unless a new one appeared.
      await fs.link(aside, lockPath).catch(() => undefined);
    } else {
      this.logger.warn(`Broke a stale lock left by a closed window (${path.basename(lockPath)}).`);
    }
    await fs.rm(aside, { force: true });
    return moved === seen;
  }

  /** A holder on this machine is stale only when its process is gone; one elsewhere, when its heartbeat stopped. */
  private stale(lock: Partial<LockFile>, touched: number): boolean {
    if (lock.host === os.hostname() && typeof lock.pid === 'number') {
      return ownerGone(lock);
    }
    return this.clock.now() - Math.max(lock.at ?? 0, touched) >= this.staleMs;
  }
}

function readQuietly(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The lock's process is known to have ended (it is on this machine and no longer runs). */
function ownerGone(lock: Partial<LockFile>): boolean {
  if (lock.host !== os.hostname() || typeof lock.pid !== 'number' || lock.pid === process.pid) {
    return false;
  }
  try {
    process.kill(lock.pid, 0); // Signal 0: only asks whether the process exists.
    return false;
  } catch (e) {
    return errorCode(e) === 'ESRCH';
  }
}

/** Run ids are uuids; anything else is made safe for a file name. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}
