// How a window learns that another window changed one of the files of a shared folder: a watcher on the
// folder, one event per changed file, mapped to what the file holds (a key) and coalesced per key: at most
// one re-read in flight and one queued behind it, however many events come meanwhile. Watchers can miss
// events (some file systems have none) or stop: the caller re-reads periodically as the backstop, and the
// log says so once. Plain Node.

import { watch } from 'node:fs';

export interface WatchFolderOptions {
  /** The key of a changed file (a run id, a crew's file), or undefined for a file that is not watched. */
  keyOf(fileName: string): string | undefined;
  /** Re-reads what a key names. Handles its own errors: a rejection is ignored. */
  changed(key: string): Promise<unknown>;
  /** Where a watcher that cannot start or stopped is said, once. */
  logger: { warn(message: string): void };
  /** What the folder holds, first in the log line: `Run history`. */
  what: string;
  /** The backstop, last in the log line: `re-read every 30 s instead`. */
  backstop: string;
}

export function watchFolder(dir: string, options: WatchFolderOptions): { dispose(): void } {
  const { keyOf, changed, logger, what, backstop } = options;
  let disposed = false;
  let warned = false;
  const warn = (problem: string, e: unknown): void => {
    if (!warned && !disposed) {
      warned = true;
      logger.warn(`${what}: ${problem} for other windows' changes (${String(e)}); ${backstop}.`);
    }
  };
  /** Keys with a re-read in flight, and whether another event came meanwhile (one re-read queued). */
  const reading = new Map<string, boolean>();
  const reread = (key: string): void => {
    if (reading.has(key)) {
      reading.set(key, true);
      return;
    }
    reading.set(key, false);
    void Promise.resolve()
      .then(() => changed(key))
      .catch(() => undefined)
      .finally(() => {
        const again = reading.get(key);
        reading.delete(key);
        if (again && !disposed) {
          reread(key);
        }
      });
  };
  try {
    const watcher = watch(dir, { persistent: false }, (_event, fileName) => {
      const key = fileName && !disposed ? keyOf(fileName.toString()) : undefined;
      if (key !== undefined) {
        reread(key);
      }
    });
    watcher.on('error', (e) => {
      warn('stopped watching', e);
      watcher.close();
    });
    return {
      dispose: () => {
        disposed = true;
        watcher.close();
      },
    };
  } catch (e) {
    warn('cannot watch', e);
    return { dispose: () => undefined };
  }
}
