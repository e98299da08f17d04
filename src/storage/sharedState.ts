// Small values every window shares besides runs: input memory and presets, crews without Stop, imported
// deployments, the demo's port. One JSON file per key in global storage, changed read-modify-write under
// the key's lock and written atomically (as run records are), and read from disk, so a window never acts
// on an older copy. VS Code's globalState cannot do this: each window holds its own copy of all of the
// extension's keys and writes them whole, so a stale window's write of one key undid another's change.
// What older versions kept in globalState is read from there until the key's file is first written.

import { readFileSync, statSync } from 'node:fs';
import type { SharedValues } from '../util/sharedValues';
import { errorCode, stampOf } from './atomicFile';
import { SharedFiles } from './sharedFiles';
import type { Logger } from '../util/logger';

interface ValueFile {
  version: 1;
  value?: unknown;
}

export class SharedState implements SharedValues {
  /** Last parse of each key's file, by the file's identity: a read that finds it unchanged parses nothing. */
  private readonly parsed = new Map<string, { stamp: string; value: unknown }>();
  private readonly files: SharedFiles;

  /** `dir` holds the values, `dir`/locks their locks. */
  constructor(
    dir: string,
    logger: Logger,
    private readonly legacy?: { get<T>(key: string): T | undefined },
  ) {
    this.files = new SharedFiles(dir, logger, (name) => `shared-${name.replace(/\.json$/, '')}`);
  }

  get<T>(key: string): T | undefined {
    const file = this.pathOf(key);
    let stamp: string;
    try {
      stamp = stampOf(statSync(file));
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        return undefined; // Unreadable: as if nothing were remembered (these are conveniences, not truth).
      }
      return this.legacy?.get<T>(key);
    }
    const known = this.parsed.get(key);
    if (known?.stamp === stamp) {
      return known.value as T | undefined;
    }
    let value: unknown;
    try {
      const content = JSON.parse(readFileSync(file, 'utf8')) as Partial<ValueFile>;
      value = content.version === 1 ? content.value : undefined;
    } catch {
      value = undefined;
    }
    this.parsed.set(key, { stamp, value });
    return value as T | undefined;
  }

  async change<T>(key: string, update: (current: T | undefined) => T | undefined): Promise<void> {
    // get() reads the file as saved now (its identity says whether the last parse still holds), under the lock.
    await this.files.change(fileNameOf(key), () => JSON.stringify({ version: 1, value: update(this.get<T>(key)) } satisfies ValueFile));
  }

  private pathOf(key: string): string {
    return this.files.pathOf(fileNameOf(key));
  }
}

function fileNameOf(key: string): string {
  return `${key.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`;
}
