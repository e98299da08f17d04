// Crash-safe file writes: readers see either the old file or the new one, never a half-written one.

import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export const TEMP_SUFFIX = '.tmp';

export function tempPathFor(target: string): string {
  // Unique per writer, in the same directory so that rename stays on one file system (and stays atomic).
  return `${target}.${process.pid}-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`;
}

/** Writes `data` to a temp file, flushes it to disk, then renames it over `target`. */
export async function writeFileAtomic(target: string, data: string): Promise<void> {
  const temp = tempPathFor(target);
  await writeAndSync(temp, data, 'w');
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

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable; not supported on every platform (Windows), where it is skipped.
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
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
