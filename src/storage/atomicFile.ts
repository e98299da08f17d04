// Crash-safe file writes: readers see either the old file or the new one, never a half-written one.

import { randomBytes } from 'node:crypto';
import { closeSync, fsync, linkSync, openSync, type Stats, unlinkSync, writeSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export const TEMP_SUFFIX = '.tmp';

/**
 * Data up to this many characters is written by calls made on this thread (open, write, close, link, unlink: tens
 * of microseconds on a local disk, page cache only), and only what waits for the disk goes through the thread pool:
 * the flushes (fsync) and the rename (which waits for the journal: milliseconds on a busy disk). Each round trip
 * there cost the extension host's thread more than such a call does, and a poll wrote three small files (bench row
 * 10). Larger data goes through the thread pool, so that no write holds this thread for long.
 */
const SMALL_FILE_CHARS = 64 * 1024;

export function tempPathFor(target: string): string {
  // Unique per writer, in the same directory so that rename stays on one file system (and stays atomic).
  return `${target}.${process.pid}-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`;
}

/** Writes `data` to a temp file, flushes it to disk, then renames it over `target`. */
export async function writeFileAtomic(target: string, data: string): Promise<void> {
  const temp = tempPathFor(target);
  await (data.length <= SMALL_FILE_CHARS ? writeAndSyncSmall(temp, data, 'w') : writeAndSync(temp, data, 'w'));
  try {
    await fs.rename(temp, target);
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
  await syncDirectory(path.dirname(target));
}

/**
 * Creates `target` with `data` only if it does not exist yet, atomically and complete: the content is
 * written to a temp file first and hard-linked into place (link fails with EEXIST if the name is taken).
 * Returns false when the file already exists. `durable: false` skips flushing it to disk (a lock file,
 * which a crash leaves stale or unreadable either way, and both mean "free").
 */
export async function createFileExclusive(target: string, data: string, durable = true): Promise<boolean> {
  const temp = tempPathFor(target);
  if (data.length <= SMALL_FILE_CHARS) {
    await writeAndSyncSmall(temp, data, 'wx', durable);
    try {
      linkSync(temp, target);
      return true;
    } catch (e) {
      if (errorCode(e) === 'EEXIST') {
        return false;
      }
      throw e;
    } finally {
      removeQuietly(temp);
    }
  }
  await writeAndSync(temp, data, 'wx', durable);
  try {
    await fs.link(temp, target);
    return true;
  } catch (e) {
    if (errorCode(e) === 'EEXIST') {
      return false;
    }
    throw e;
  } finally {
    await fs.rm(temp, { force: true }).catch(() => undefined);
  }
}

async function writeAndSync(file: string, data: string, flags: 'w' | 'wx', durable = true): Promise<void> {
  const handle = await fs.open(file, flags);
  try {
    await handle.writeFile(data, 'utf8');
    if (durable) {
      await handle.sync();
    }
  } finally {
    await handle.close();
  }
}

/** writeAndSync for small data (SMALL_FILE_CHARS): the calls on this thread, the flush through the thread pool. */
async function writeAndSyncSmall(file: string, data: string, flags: 'w' | 'wx', durable = true): Promise<void> {
  const fd = openSync(file, flags);
  try {
    const bytes = Buffer.from(data, 'utf8');
    for (let written = 0; written < bytes.length; ) {
      written += writeSync(fd, bytes, written, bytes.length - written);
    }
    if (durable) {
      await flush(fd);
    }
  } finally {
    closeSync(fd);
  }
}

function flush(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (e) => (e ? reject(e) : resolve())));
}

/** Removes a file if it is there, by a call on this thread (a lock or temp file: unlinking takes microseconds). */
export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already (or a sweep removes the leftover).
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable; not supported on every platform (Windows), where it is skipped. Opening the
  // folder is a call on this thread, as for small files; the flush goes through the thread pool.
  try {
    const fd = openSync(dir, 'r');
    try {
      await flush(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort.
  }
}

export function errorCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/** Temp files older than this are leftovers of a crash, not another window's write in progress. */
const STALE_TEMP_MS = 60_000;

/** Removes the temp files of writes a crash cut short in `dir`. */
export async function removeStaleTempFiles(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  const now = Date.now(); // File times are wall-clock times, whatever clock a store was given.
  for (const name of names.filter((n) => n.endsWith(TEMP_SUFFIX))) {
    const file = path.join(dir, name);
    try {
      if (now - (await fs.stat(file)).mtimeMs > STALE_TEMP_MS) {
        await fs.rm(file, { force: true });
      }
    } catch {
      // Gone already, or another window is handling it.
    }
  }
}

/** A file's identity: each atomic write makes a new file (inode) with its own size and time. */
export function stampOf(s: Stats): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}
