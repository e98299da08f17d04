// How a window learns that another window changed a run: a watcher on the record files' folder (one
// event per changed file, coalesced per run: util/watchFolder.ts). Watchers can miss events (some file
// systems have none): the periodic RunStore.reload in extension.ts is the backstop.

import { watchFolder } from '../util/watchFolder';
import { RecordFiles } from './recordFiles';
import type { Logger } from '../util/logger';

export function watchRecords(dir: string, changed: (runId: string) => Promise<unknown>, logger: Logger): { dispose(): void } {
  return watchFolder(dir, {
    keyOf: (fileName) => RecordFiles.idOf(fileName) || undefined,
    changed,
    logger,
    what: 'Run history',
    backstop: 're-read every 30 s instead',
  });
}
