// How a window learns that another window changed a run: a watcher on the record files' folder (one
// event per changed file, coalesced per run). Watchers can miss events (some file systems have none):
// the periodic RunStore.reload in extension.ts is the backstop.

import { watch } from 'node:fs';
import { RecordFiles } from './recordFiles';
import type { Logger } from './model';

export function watchRecords(dir: string, changed: (runId: string) => Promise<unknown>, logger: Logger): { dispose(): void } {
  /** Runs with a re-read in progress, and whether another event came meanwhile. */
  const reading = new Map<string, boolean>();
  const reread = (id: string): void => {
    if (reading.has(id)) {
      reading.set(id, true);
      return;
    }
    reading.set(id, false);
    void changed(id).finally(() => {
      const again = reading.get(id);
      reading.delete(id);
      if (again) {
        reread(id);
      }
    });
  };
  try {
    const watcher = watch(dir, { persistent: false }, (_event, fileName) => {
      const id = fileName ? RecordFiles.idOf(fileName.toString()) : undefined;
      if (id) {
        reread(id);
      }
    });
    watcher.on('error', (e) => logger.warn(`Run history: stopped watching for other windows' changes (${String(e)}); re-read every 30 s instead.`));
    return { dispose: () => watcher.close() };
  } catch (e) {
    logger.warn(`Run history: cannot watch for other windows' changes (${String(e)}); re-read every 30 s instead.`);
    return { dispose: () => undefined };
  }
}
