// Every suite run is kept, a few per suite, for the comparison with the previous run or a pinned baseline and for
// Export Suite Report: one file per suite run (written once, atomically: windows never write the same file) in a
// folder per suite under global storage, `suites/<hash of the suite's key>/`. Bounded: the newest SUITE_HISTORY.runs
// runs and SUITE_HISTORY.folderBytes per suite (the pinned baseline is always kept), and each run's texts clipped
// (expected and actual values are for the live result only). Plain Node.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { errorCode, writeFileAtomic } from '../storage/atomicFile';
import { isPlainObject } from '../util/objects';
import type { SuiteRunRecord } from './core/types';

export const SUITE_HISTORY = {
  /** Suite runs kept per suite (the pinned baseline besides). */
  runs: 20,
  /** A suite's kept runs together, at most: the oldest go first. */
  folderBytes: 32 * 1024 * 1024,
  /** A check's message, an item's error, as kept. */
  messageChars: 500,
  /** A check's short diff, as kept. */
  diffChars: 4000,
} as const;

const RUN_FILE = /^\d{13}-[0-9a-f]{8}\.json$/;
const BASELINE_FILE = 'baseline.json';

/** A new suite run's id: its start time first, so that names sort as the runs were made. */
export function newSuiteRunId(startedAt: number): string {
  return `${String(Math.max(0, Math.floor(startedAt))).padStart(13, '0').slice(-13)}-${randomBytes(4).toString('hex')}`;
}

/** A suite run as kept: what a comparison and a report read, without the large values. */
export function keptRecord(record: SuiteRunRecord): SuiteRunRecord {
  return {
    ...record,
    items: record.items.map((item) => ({
      ...item,
      ...(item.error === undefined ? {} : { error: clip(item.error, SUITE_HISTORY.messageChars) }),
      checks: item.checks.map((check) => {
        const kept = { ...check, message: clip(check.message, SUITE_HISTORY.messageChars) };
        delete kept.expected;
        delete kept.actual;
        if (kept.diff !== undefined) {
          kept.diff = clip(kept.diff, SUITE_HISTORY.diffChars);
        }
        return kept;
      }),
    })),
  };
}

export class SuiteHistory {
  constructor(private readonly dir: string) {}

  /** Keeps a finished suite run, then drops the oldest over the bounds (never the pinned baseline). */
  async add(suiteKey: string, record: SuiteRunRecord): Promise<void> {
    if (!RUN_FILE.test(`${record.id}.json`)) {
      throw new Error(`not a suite run id: ${record.id}`);
    }
    const folder = this.folderOf(suiteKey);
    await fs.mkdir(folder, { recursive: true });
    await writeFileAtomic(path.join(folder, `${record.id}.json`), JSON.stringify(keptRecord(record)));
    await this.prune(suiteKey);
  }

  /** The ids of a suite's kept runs, newest first. */
  async ids(suiteKey: string): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.folderOf(suiteKey));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') {
        return [];
      }
      throw error;
    }
    return names.filter((name) => RUN_FILE.test(name)).map((name) => name.slice(0, -'.json'.length)).sort().reverse();
  }

  /** A kept run, or undefined when it is gone or unreadable. */
  async read(suiteKey: string, id: string): Promise<SuiteRunRecord | undefined> {
    if (!RUN_FILE.test(`${id}.json`)) {
      return undefined;
    }
    try {
      const value = JSON.parse(await fs.readFile(path.join(this.folderOf(suiteKey), `${id}.json`), 'utf8')) as unknown;
      return isPlainObject(value) && value['version'] === 1 && Array.isArray(value['items']) && typeof value['id'] === 'string' ? (value as unknown as SuiteRunRecord) : undefined;
    } catch {
      return undefined;
    }
  }

  async latest(suiteKey: string): Promise<SuiteRunRecord | undefined> {
    for (const id of await this.ids(suiteKey)) {
      const record = await this.read(suiteKey, id);
      if (record) {
        return record;
      }
    }
    return undefined;
  }

  /**
   * What `current` is compared with: the pinned baseline (when it is another run), else the newest earlier run that
   * ran any of the same items.
   */
  async baselineFor(suiteKey: string, current: SuiteRunRecord): Promise<{ record: SuiteRunRecord; pinned: boolean } | undefined> {
    const pinnedId = await this.pinnedId(suiteKey);
    if (pinnedId !== undefined && pinnedId !== current.id) {
      const pinned = await this.read(suiteKey, pinnedId);
      if (pinned) {
        return { record: pinned, pinned: true };
      }
    }
    const ran = new Set(current.items.map((item) => item.itemId));
    for (const id of await this.ids(suiteKey)) {
      if (id >= current.id) {
        continue;
      }
      const record = await this.read(suiteKey, id);
      if (record?.items.some((item) => ran.has(item.itemId))) {
        return { record, pinned: false };
      }
    }
    return undefined;
  }

  async pinnedId(suiteKey: string): Promise<string | undefined> {
    try {
      const value = JSON.parse(await fs.readFile(path.join(this.folderOf(suiteKey), BASELINE_FILE), 'utf8')) as unknown;
      const id = isPlainObject(value) ? value['runId'] : undefined;
      return typeof id === 'string' && RUN_FILE.test(`${id}.json`) ? id : undefined;
    } catch {
      return undefined;
    }
  }

  /** Pins a kept run as the suite's baseline (the last pin wins, in every window). */
  async pin(suiteKey: string, id: string): Promise<void> {
    const folder = this.folderOf(suiteKey);
    await fs.mkdir(folder, { recursive: true });
    await writeFileAtomic(path.join(folder, BASELINE_FILE), JSON.stringify({ runId: id }));
  }

  private folderOf(suiteKey: string): string {
    return path.join(this.dir, createHash('sha256').update(suiteKey).digest('hex').slice(0, 32));
  }

  private async prune(suiteKey: string): Promise<void> {
    const folder = this.folderOf(suiteKey);
    const pinned = await this.pinnedId(suiteKey);
    let bytes = 0;
    let kept = 0;
    for (const id of await this.ids(suiteKey)) {
      const file = path.join(folder, `${id}.json`);
      const size = await fs.stat(file).then(
        (stat) => stat.size,
        () => 0,
      );
      if (id === pinned) {
        continue;
      }
      // The newest run always stays, whatever its size: it is the one just made.
      if (kept === 0 || (kept < SUITE_HISTORY.runs && bytes + size <= SUITE_HISTORY.folderBytes)) {
        kept++;
        bytes += size;
        continue;
      }
      await fs.rm(file, { force: true });
    }
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
