// The truth about each run: one small file per run, `records/<id>.json`, holding its summary (the
// StoredRun format of runIndex.ts) and its revision. Every window reads and writes these files; a write
// is compare-and-set on the revision, made under the run's lock (see RunStore.write), and atomic (temp +
// rename), so a window holding a stale copy cannot overwrite a newer version, and a removed run's file is
// gone: nothing brings it back. Other windows learn of changes through a watcher on this folder.
//
// Reading thousands of small files costs tens of ms at start, so a window also keeps a snapshot: one
// file beside the folder with every record it read and the identity of the file it read it from. At
// load a record is taken from the snapshot only if its file is still that very file (same inode, size
// and time), so the snapshot can be stale or missing, and any window may write it, without ever making
// a load show something the record files do not say.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { createFileExclusive, errorCode, removeStaleTempFiles, stampOf, TEMP_SUFFIX, writeFileAtomic } from '../storage/atomicFile';
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

/** Content of the snapshot file: per run, the stamp of the record file and what it held. */
interface SnapshotFile {
  version: 1;
  records: Record<string, [stamp: string, file: RecordFile]>;
}

/** How long after a re-read found changes the snapshot is written (coalesces bursts of changes). */
const SNAPSHOT_DELAY_MS = 1_000;

export class RecordFiles {
  /** Last parse of each file, so that a re-read of the folder parses only the files that changed. */
  private readonly parsed = new Map<string, Parsed>();
  /** The snapshot's entries, from the first read of the folder until it has been used. */
  private snapshot: Map<string, [string, RecordFile]> | undefined;
  private snapshotRead = false;
  /** The snapshot on disk no longer matches `parsed`. */
  private snapshotStale = false;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private snapshotWrite: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly snapshotPath?: string,
  ) {}

  dispose(): void {
    clearTimeout(this.snapshotTimer);
    this.snapshotTimer = undefined;
  }

  /** Resolves once a snapshot write under way has ended. */
  idle(): Promise<unknown> {
    return this.snapshotWrite;
  }

  async init(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
  }

  /** Removes the temp files of writes a crash cut short (RunStore.load starts it and does not wait: nothing shown needs it). */
  sweep(): Promise<void> {
    return removeStaleTempFiles(this.dir);
  }

  pathOf(id: string): string {
    return `${this.dir}${path.sep}${id}.json`; // this.dir is normalised: path.join per file cost a window opening 2 ms
  }

  /** The run id a file name in the folder stands for; undefined for temp files and anything else. */
  static idOf(fileName: string): string | undefined {
    return fileName.endsWith('.json') && !fileName.endsWith(TEMP_SUFFIX) && !fileName.slice(0, -5).includes('.') ? fileName.slice(0, -5) : undefined;
  }

  /** The stored version now; undefined when there is none (removed, never saved) or it is unreadable. */
  async read(id: string): Promise<RunRecord | undefined> {
    try {
      // Synchronously, as readNew: a record is a few hundred bytes, and every write reads it (through the thread pool
      // a read cost the host's thread ten times more).
      return decode(readFileSync(this.pathOf(id), 'utf8'));
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
      names = readdirSync(this.dir); // Like readNew, synchronously: a ms for 2,000 names, several through the thread pool under load.
    } catch (e) {
      if (errorCode(e) === 'ENOENT') {
        return new Map();
      }
      throw e;
    }
    const ids = names.map((n) => RecordFiles.idOf(n)).filter((id): id is string => id !== undefined);
    if (!this.snapshotRead && this.snapshotPath) {
      this.snapshotRead = true;
      this.snapshot = readSnapshot(this.snapshotPath);
    }
    const runs = new Map<string, RunRecord>();
    const known: string[] = [];
    for (const id of ids) {
      if (this.parsed.has(id)) {
        known.push(id);
        continue;
      }
      const record = this.readNew(id);
      if (record) {
        runs.set(id, record);
      }
    }
    for (const [id, record] of await Promise.all(known.map(async (id) => [id, await this.readIfChanged(id)] as const))) {
      if (record) {
        runs.set(id, record);
      }
    }
    for (const id of [...this.parsed.keys()].filter((id) => !runs.has(id))) {
      this.parsed.delete(id);
      this.snapshotStale = true;
    }
    this.snapshotStale ||= this.snapshot !== undefined && this.snapshot.size !== this.parsed.size;
    this.snapshot = undefined;
    if (this.snapshotStale) {
      this.scheduleSnapshot();
    }
    return runs;
  }

  /** Replaces the stored version (the caller holds the run's lock and has compared revisions). */
  async write(record: RunRecord): Promise<void> {
    const file = this.pathOf(record.id);
    const text = encode(record);
    try {
      await writeFileAtomic(file, text);
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        throw e;
      }
      // The folder is made only when missing: a mkdir per write cost the host's thread as much as a stat.
      await fs.mkdir(this.dir, { recursive: true });
      await writeFileAtomic(file, text);
    }
  }

  /** Stores a new run; false when a file for it exists already. */
  async create(record: RunRecord): Promise<boolean> {
    await fs.mkdir(this.dir, { recursive: true });
    return createFileExclusive(this.pathOf(record.id), encode(record));
  }

  async remove(id: string): Promise<void> {
    this.parsed.delete(id);
    this.snapshotStale = true;
    await fs.rm(this.pathOf(id), { force: true });
  }

  /**
   * A file not read before (all of them at load): synchronously, as small files one by one take a few ms
   * per hundred, many times faster than through Node's thread pool. The stat comes first: a write between
   * it and the read leaves a stamp older than the content, which only costs a re-read.
   */
  private readNew(id: string): RunRecord | undefined {
    const file = this.pathOf(id);
    try {
      const stamp = stampOf(statSync(file));
      const cached = this.snapshot?.get(id);
      const record = cached && cached[0] === stamp ? decodeFile(cached[1]) : decode(readFileSync(file, 'utf8'));
      this.snapshotStale ||= cached?.[0] !== stamp;
      this.parsed.set(id, { stamp, record });
      return record;
    } catch (e) {
      if (errorCode(e) === 'ENOENT') {
        return undefined; // Removed meanwhile.
      }
      throw e;
    }
  }

  private async readIfChanged(id: string): Promise<RunRecord | undefined> {
    const file = this.pathOf(id);
    try {
      const known = this.parsed.get(id);
      if (!known) {
        return this.readNew(id);
      }
      const stamp = stampOf(await fs.stat(file));
      if (known.stamp === stamp) {
        return known.record;
      }
      const record = decode(await fs.readFile(file, 'utf8'));
      this.parsed.set(id, { stamp, record });
      this.snapshotStale = true;
      return record;
    } catch (e) {
      if (errorCode(e) === 'ENOENT') {
        return undefined; // Removed meanwhile.
      }
      throw e;
    }
  }

  private scheduleSnapshot(): void {
    if (!this.snapshotPath || this.snapshotTimer) {
      return;
    }
    const target = this.snapshotPath;
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = undefined;
      this.snapshotStale = false;
      const records: SnapshotFile['records'] = {};
      for (const [id, { stamp, record }] of this.parsed) {
        if (record) {
          records[id] = [stamp, encodeFile(record)];
        }
      }
      // Only a shortcut for the next load: a failed write leaves the last one, which is checked anyway.
      this.snapshotWrite = writeFileAtomic(target, JSON.stringify({ version: 1, records } satisfies SnapshotFile)).catch(() => (this.snapshotStale = true));
    }, SNAPSHOT_DELAY_MS);
    this.snapshotTimer.unref();
  }
}

/** The snapshot's entries; undefined when there is none or it cannot be read (then every file is read). */
function readSnapshot(file: string): Map<string, [string, RecordFile]> | undefined {
  try {
    const snapshot = JSON.parse(readFileSync(file, 'utf8')) as Partial<SnapshotFile>;
    if (snapshot.version !== 1 || typeof snapshot.records !== 'object' || snapshot.records === null) {
      return undefined;
    }
    const entries = new Map<string, [string, RecordFile]>();
    for (const [id, entry] of Object.entries(snapshot.records)) {
      if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'object' && entry[1] !== null) {
        entries.set(id, [entry[0], entry[1] as RecordFile]);
      }
    }
    return entries;
  } catch {
    return undefined;
  }
}

function encodeFile(record: RunRecord): RecordFile {
  const crews: [string, string][] = [];
  const run = encodeRun(record, crews);
  return { version: 1, crews, run };
}

/** A record file's content. */
export function encode(record: RunRecord): string {
  return JSON.stringify(encodeFile(record));
}

/** Undefined for a file that is not a run record (a disk can lie): it is left alone, not shown. */
function decode(text: string): RunRecord | undefined {
  try {
    return decodeFile(JSON.parse(text) as Partial<RecordFile>);
  } catch {
    return undefined;
  }
}

function decodeFile(file: Partial<RecordFile>): RunRecord | undefined {
  try {
    return file.version === 1 && Array.isArray(file.crews) ? decodeRun(file.run, file.crews) : undefined;
  } catch {
    return undefined;
  }
}
