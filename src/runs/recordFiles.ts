// The truth about each run: one small file per run, `records/<id>.json`, holding its summary (the
// StoredRun format of runIndex.ts) and its revision. Every window reads and writes these files; a write
// is compare-and-set on the revision, made under the run's lock (see RunStore.write), and atomic (temp +
// rename), so a window holding a stale copy cannot overwrite a newer version, and a removed run's file is
// gone: nothing brings it back. Other windows learn of changes through a watcher on this folder.

import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { createFileExclusive, errorCode, removeStaleTempFiles, TEMP_SUFFIX, writeFileAtomic } from './atomicFile';
import type { RunRecord } from './model';
import { decodeRun, encodeRun } from './runIndex';

/** Content of `records/<id>.json`. */
interface RecordFile {
  version: 1;
  crews: [string, string][];
  run: unknown;
}

interface Parsed {
  /** Identity of the file read: each atomic write is a new file (inode), with its own size and time. */
  stamp: string;
  record: RunRecord | undefined;
}

export class RecordFiles {
  /** Last parse of each file, so that a re-read of the folder parses only the files that changed. */
  private readonly parsed = new Map<string, Parsed>();

  constructor(readonly dir: string) {}

  async init(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    await removeStaleTempFiles(this.dir);
  }

  pathOf(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /** The run id a file name in the folder stands for; undefined for temp files and anything else. */
  static idOf(fileName: string): string | undefined {
    return fileName.endsWith('.json') && !fileName.endsWith(TEMP_SUFFIX) && !fileName.slice(0, -5).includes('.') ? fileName.slice(0, -5) : undefined;
  }

  /** The stored version now; undefined when there is none (removed, never saved) or it is unreadable. */
  async read(id: string): Promise<RunRecord | undefined> {
    try {
      return decode(await fs.readFile(this.pathOf(id), 'utf8'));
    } catch (e) {
      if (errorCode(e) === 'ENOENT') {
        return undefined;
      }
      throw e;
    }
  }

  /** Every run stored; files unchanged since the last call are not parsed again. */
  async readAll(): Promise<Map<string, RunRecord>> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (e) {
      if (errorCode(e) === 'ENOENT') {
        return new Map();
      }
      throw e;
    }
    const ids = names.map((n) => RecordFiles.idOf(n)).filter((id): id is string => id !== undefined);
    const found = await Promise.all(ids.map(async (id) => [id, await this.readIfChanged(id)] as const));
    const runs = new Map<string, RunRecord>();
    for (const [id, record] of found) {
      if (record) {
        runs.set(id, record);
      }
    }
    for (const id of [...this.parsed.keys()].filter((id) => !runs.has(id))) {
      this.parsed.delete(id);
    }
    return runs;
  }

  /** Replaces the stored version (the caller holds the run's lock and has compared revisions). */
  async write(record: RunRecord): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.pathOf(record.id), encode(record));
  }

  /** Stores a new run; false when a file for it exists already. */
  async create(record: RunRecord): Promise<boolean> {
    await fs.mkdir(this.dir, { recursive: true });
    return createFileExclusive(this.pathOf(record.id), encode(record));
  }

  async remove(id: string): Promise<void> {
    this.parsed.delete(id);
    await fs.rm(this.pathOf(id), { force: true });
  }

  private async readIfChanged(id: string): Promise<RunRecord | undefined> {
    const file = this.pathOf(id);
    try {
      const known = this.parsed.get(id);
      if (!known) {
        // A file not read before (all of them at load): read at once, without a stat. Synchronously: small
        // files read one by one take a few ms per hundred, many times faster than through Node's thread
        // pool (2,000 runs: ~20 ms against ~200 ms). The next re-read stats it and reads it once more.
        const record = decode(readFileSync(file, 'utf8'));
        this.parsed.set(id, { stamp: '', record });
        return record;
      }
      const s = await fs.stat(file);
      const stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
      if (known.stamp === stamp) {
        return known.record;
      }
      const record = decode(await fs.readFile(file, 'utf8'));
      this.parsed.set(id, { stamp, record });
      return record;
    } catch (e) {
      if (errorCode(e) === 'ENOENT') {
        return undefined; // Removed meanwhile.
      }
      throw e;
    }
  }
}

/** A record file's content. */
export function encode(record: RunRecord): string {
  const crews: [string, string][] = [];
  const run = encodeRun(record, crews);
  return JSON.stringify({ version: 1, crews, run } satisfies RecordFile);
}

/** Undefined for a file that is not a run record (a disk can lie): it is left alone, not shown. */
function decode(text: string): RunRecord | undefined {
  try {
    const file = JSON.parse(text) as Partial<RecordFile>;
    return file.version === 1 && Array.isArray(file.crews) ? decodeRun(file.run, file.crews) : undefined;
  } catch {
    return undefined;
  }
}
