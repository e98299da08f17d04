// A folder of small files every window on the machine shares: each changed read-modify-write from what is saved now,
// under the file's own lock, and written atomically (temp + rename), so two windows never undo each other's change
// and a reader never meets half a file. Shared values (sharedState.ts) and each crew's chat sessions keep their files
// here; run records (runTracking/recordFiles.ts) add a revision to this for compare-and-set. Plain Node.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { systemClock, type Clock } from '../util/clock';
import type { Logger } from '../util/logger';
import { errorCode, writeFileAtomic } from './atomicFile';
import { FileLock } from './fileLock';

/** A lock's holder on another machine that stops touching its file for this long has lost it (fileLock.ts). */
const LOCK_STALE_MS = 10_000;

export class SharedFiles {
  private readonly lock: FileLock;

  /** `dir` holds the files, `dir`/locks their locks; `lockOf` names a file's lock (as windows of older versions name it). */
  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    private readonly lockOf: (name: string) => string = (name) => name,
    clock: Clock = systemClock,
  ) {
    this.lock = new FileLock(path.join(dir, 'locks'), randomUUID(), logger, clock, LOCK_STALE_MS);
  }

  /** The file's text as saved now; undefined when there is none (or it cannot be read: said in the log). */
  async read(name: string): Promise<string | undefined> {
    try {
      return await fs.readFile(this.pathOf(name), 'utf8');
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        this.logger.warn(`${this.dir}: cannot read ${name} (${String(e)}).`);
      }
      return undefined;
    }
  }

  /**
   * Under the file's lock: `update` is handed the text saved now (undefined: none) and returns the text to save, which
   * is written atomically before the lock is let go. Resolves with what was saved.
   */
  async change(name: string, update: (saved: string | undefined) => string): Promise<string> {
    await fs.mkdir(this.dir, { recursive: true });
    return this.lock.run(this.lockOf(name), async () => {
      const next = update(await this.read(name));
      await writeFileAtomic(this.pathOf(name), next);
      return next;
    });
  }

  pathOf(name: string): string {
    return path.join(this.dir, name);
  }
}
