// One JSON file per run (`runs/<id>.json`) with its heavy details, written atomically, read only when
// needed, and a few kept parsed in memory. Callers serialise per run (RunStore's queue).

import { statSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { errorCode, removeStaleTempFiles, writeFileAtomic } from '../storage/atomicFile';
import { emptyDetails, type EventCounts, type RunDetails } from './model';
import type { Logger } from '../util/logger';
import { isPlainObject } from '../util/objects';
import { type Inputs, isInputs } from '../api/inputValues';
import { errorText } from '../util/errorText';

/** Persisted as `runs/<id>.json`. */
export interface StoredDetails extends RunDetails {
  version: 1;
  runId: string;
}

interface CachedDetails {
  /**
   * The details as JSON: every read parses a fresh copy from it, and `compare` checks against it. Kept as
   * text rather than as objects so that a write (fold, compare, save) serialises the details once and copies
   * nothing: with a hostile crew's 400 KB of details, each structured copy and stringify cost the extension
   * host's thread milliseconds per poll (bench row 7). After a read from disk it is the file's text until
   * `compare` needs the exact JSON: opening a finished run with a 5 MB output then parses it once, not thrice.
   */
  json: string;
  /** `json` is the file's text (with `version` and `runId`), not yet the details' own JSON. */
  fromFile?: true;
  /** File modification time when read, so another window's write is noticed. */
  mtimeMs: number;
}

export class DetailsFiles {
  /** Least recently used first. */
  private readonly cache = new Map<string, CachedDetails>();

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    private readonly cacheSize = 16,
  ) {}

  async init(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
  }

  /** Removes the temp files of writes a crash cut short (RunStore.load starts it and does not wait: nothing shown needs it). */
  sweep(): Promise<void> {
    return removeStaleTempFiles(this.dir);
  }

  pathOf(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /** A copy the caller may change. A missing or corrupt file reads as empty details. */
  async read(id: string): Promise<RunDetails> {
    const file = this.pathOf(id);
    let mtimeMs = -1;
    try {
      // Synchronously: every poll asks, and a stat through the thread pool costs the host's thread ten times more.
      mtimeMs = statSync(file).mtimeMs;
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        this.logger.warn(`Run ${id}: cannot stat details (${String(e)}).`);
      }
    }
    const cached = this.cache.get(id);
    if (cached && cached.mtimeMs === mtimeMs) {
      this.touch(id, cached);
      return cached.fromFile ? parseDetails(cached.json) : (JSON.parse(cached.json) as RunDetails);
    }
    if (mtimeMs >= 0) {
      try {
        const text = await fs.readFile(file, 'utf8');
        const details = parseDetails(text);
        this.touch(id, { json: text, fromFile: true, mtimeMs });
        return details;
      } catch (e) {
        this.logger.warn(`Run ${id}: details file unreadable, starting from empty details (${errorText(e)}).`);
      }
    }
    const details = emptyDetails();
    this.touch(id, { json: JSON.stringify(details), mtimeMs });
    return details;
  }

  /** `details` as JSON (what `write` takes), and whether it differs from what was last read or written. */
  compare(id: string, details: RunDetails): { json: string; differs: boolean } {
    const json = JSON.stringify(details);
    const cached = this.cache.get(id);
    if (cached?.fromFile) {
      cached.json = JSON.stringify(parseDetails(cached.json)); // What the file holds, as the details' own JSON.
      delete cached.fromFile;
    }
    return { json, differs: json !== cached?.json };
  }

  /** `json`: the details' JSON when the caller has it (`compare`), so that they are serialised once. */
  async write(id: string, details: RunDetails, json = JSON.stringify(details)): Promise<void> {
    // What JSON.stringify({ version: 1, runId: id, ...details }) writes, without serialising the details again.
    const stored = `{"version":1,"runId":${JSON.stringify(id)}${json === '{}' ? '' : `,${json.slice(1, -1)}`}}`;
    const file = this.pathOf(id);
    try {
      await writeFileAtomic(file, stored);
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        throw e;
      }
      // The folder is made only when missing: a mkdir per write cost the host's thread more than the write's stat.
      await fs.mkdir(this.dir, { recursive: true });
      await writeFileAtomic(file, stored);
    }
    const mtimeMs = statSync(file).mtimeMs;
    this.touch(id, { json, mtimeMs });
  }

  async remove(id: string): Promise<void> {
    this.cache.delete(id);
    await fs.rm(this.pathOf(id), { force: true }).catch((e) => this.logger.warn(`Run ${id}: cannot delete details (${errorText(e)}).`));
  }

  /** Another window changed the run: read its file afresh next time. */
  forget(id: string): void {
    this.cache.delete(id);
  }

  private touch(id: string, entry: CachedDetails): void {
    this.cache.delete(id);
    this.cache.set(id, entry);
    while (this.cache.size > this.cacheSize) {
      this.cache.delete(this.cache.keys().next().value as string);
    }
  }
}

/**
 * Moves inputs a version 1 index held into the runs' files (unless a file has them already). Returns
 * false when a file could not be written: the old index, inputs and all, then stays until the next load,
 * so no run and no input is lost.
 */
export async function moveInputsToFiles(files: DetailsFiles, ids: string[], inputs: Map<string, Inputs>, logger: Logger): Promise<boolean> {
  let ok = true;
  for (const id of ids) {
    const moved = inputs.get(id);
    try {
      const details = await files.read(id);
      if (moved && !details.inputs) {
        await files.write(id, { ...details, inputs: moved });
      }
    } catch (e) {
      ok = false;
      logger.warn(`Run ${id}: cannot move its inputs to its file yet (${errorText(e)}).`);
    }
  }
  return ok;
}

function readEventCounts(value: unknown): EventCounts | undefined {
  if (!isPlainObject(value) || typeof value['kept'] !== 'number' || typeof value['dropped'] !== 'number') {
    return undefined;
  }
  const byModel = value['byModel'];
  return { kept: value['kept'], dropped: value['dropped'], ...(isPlainObject(byModel) && Object.values(byModel).every(isPlainObject) ? { byModel: byModel as EventCounts['byModel'] } : {}) };
}

function parseDetails(text: string): RunDetails {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null) {
    throw new Error('not an object');
  }
  const p = parsed as Partial<StoredDetails>;
  const details: RunDetails = {
    inputs: isInputs(p.inputs) ? p.inputs : undefined,
    lastSnapshot: p.lastSnapshot,
    tasks: Array.isArray(p.tasks) ? p.tasks : [],
    history: Array.isArray(p.history) ? p.history : [],
    historyOmitted: typeof p.historyOmitted === 'number' ? p.historyOmitted : undefined,
    finalOutput: p.finalOutput,
    error: p.error,
    feedbackRounds: Array.isArray(p.feedbackRounds) ? p.feedbackRounds : [],
    feedbackDraft: typeof p.feedbackDraft?.text === 'string' ? p.feedbackDraft : undefined,
    events: readEventCounts(p.events),
  };
  // As a JSON round trip would leave it: the keys without a value are not there.
  for (const key of Object.keys(details) as (keyof RunDetails)[]) {
    if (details[key] === undefined) {
      delete details[key];
    }
  }
  return details;
}

