// Runs of every crew: a small index in a key-value store (VS Code's globalState) shown in all windows,
// and one detail file per run written atomically under the storage directory.

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describeChanges, mergeTaskOutputs } from '../api/normalize';
import type { StatusSnapshot, TaskOutput } from '../api/types';
import { type Clock, systemClock } from '../util/clock';
import { Emitter, type Event } from '../util/event';
import { errorCode, TEMP_SUFFIX, writeFileAtomic } from './atomicFile';
import { forgottenRun, isForgotten } from './notFound';
import {
  emptyDetails,
  type FeedbackRound,
  isDisposable,
  isFinished,
  type Logger,
  type NewRun,
  type RunDetails,
  type RunRecord,
  runLabel,
  type StopReason,
} from './model';

/** The part of VS Code's Memento the store needs. */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Promise<void>;
}

export interface RunStoreOptions {
  clock?: Clock;
  /** Key of the index in the key-value store. */
  indexKey?: string;
  maxRunsPerCrew?: number;
  /** How many detail files to keep parsed in memory. */
  detailsCacheSize?: number;
}

export interface RunsChangeEvent {
  runIds: string[];
}

/** Persisted under `indexKey`. */
export interface StoredIndex {
  version: 1;
  runs: RunRecord[];
}

/** Persisted as `runs/<id>.json`. */
export interface StoredDetails extends RunDetails {
  version: 1;
  runId: string;
}

export const DEFAULT_INDEX_KEY = 'crewRuns.runIndex';
export const DEFAULT_MAX_RUNS_PER_CREW = 50;
const DEFAULT_DETAILS_CACHE_SIZE = 16;
/** Temp files older than this are leftovers of a crash, not another window's write in progress. */
const STALE_TEMP_MS = 60_000;

const INFERRED_FEEDBACK_MESSAGE =
  'The service no longer lists this run; it is probably waiting for human feedback.';
const EXPIRED_MESSAGE = 'Unknown or expired: the service no longer knows this run.';

interface CachedDetails {
  details: RunDetails;
  /** File modification time when read, so another window's write is noticed. */
  mtimeMs: number;
}

export class RunStore {
  private readonly clock: Clock;
  private readonly indexKey: string;
  private readonly runsDir: string;
  private readonly detailsCacheSize: number;
  private maxRunsPerCrewValue: number;
  private records = new Map<string, RunRecord>();
  /** Least recently used first. */
  private detailsCache = new Map<string, CachedDetails>();
  /** One chain per run so writes to the same file never interleave. */
  private runChains = new Map<string, Promise<unknown>>();
  private indexChain: Promise<unknown> = Promise.resolve();
  /** Runs changed or removed here since the last index write: only these overwrite the stored index. */
  private dirtyIds = new Set<string>();
  private readonly changeEmitter = new Emitter<RunsChangeEvent>();

  readonly onDidChange: Event<RunsChangeEvent> = this.changeEmitter.event;

  constructor(
    private readonly kv: KeyValueStore,
    storageDir: string,
    private readonly logger: Logger,
    options: RunStoreOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.indexKey = options.indexKey ?? DEFAULT_INDEX_KEY;
    this.runsDir = path.join(storageDir, 'runs');
    this.detailsCacheSize = options.detailsCacheSize ?? DEFAULT_DETAILS_CACHE_SIZE;
    this.maxRunsPerCrewValue = options.maxRunsPerCrew ?? DEFAULT_MAX_RUNS_PER_CREW;
  }

  get maxRunsPerCrew(): number {
    return this.maxRunsPerCrewValue;
  }

  /** Applies the history cap at once (may delete finished runs). */
  async setMaxRunsPerCrew(max: number): Promise<void> {
    this.maxRunsPerCrewValue = Math.max(1, Math.floor(max));
    const removed = await this.enforceCap();
    if (removed.length) {
      this.fireChange(removed);
    }
  }

  async load(): Promise<void> {
    await fs.mkdir(this.runsDir, { recursive: true });
    this.records = new Map(this.readStoredRecords().map((r) => [r.id, r]));
    await this.removeStaleTempFiles();
    const removed = await this.enforceCap();
    if (removed.length) {
      this.fireChange(removed);
    }
  }

  /** Re-reads the index (another window may have changed it); fires for the runs that differ. */
  reload(): void {
    const stored = new Map(this.readStoredRecords().map((r) => [r.id, r]));
    const changed: string[] = [];
    for (const [id, record] of stored) {
      if (this.dirtyIds.has(id)) {
        continue; // Our own unsaved change wins; it is about to be written.
      }
      const mine = this.records.get(id);
      if (!mine || JSON.stringify(mine) !== JSON.stringify(record)) {
        this.records.set(id, record);
        this.detailsCache.delete(id);
        changed.push(id);
      }
    }
    for (const id of [...this.records.keys()]) {
      if (!stored.has(id) && !this.dirtyIds.has(id)) {
        this.records.delete(id);
        this.detailsCache.delete(id);
        changed.push(id);
      }
    }
    if (changed.length) {
      this.fireChange(changed);
    }
  }

  /** Newest first; only one crew's runs when `crewUrl` is given. */
  list(crewUrl?: string): RunRecord[] {
    return [...this.records.values()]
      .filter((r) => crewUrl === undefined || r.crewUrl === crewUrl)
      .sort((a, b) => b.startedAt - a.startedAt || a.id.localeCompare(b.id));
  }

  get(id: string): RunRecord | undefined {
    return this.records.get(id);
  }

  /** Also finds a run by a kickoff id it had before a resume. */
  findByKickoffId(kickoffId: string): RunRecord | undefined {
    for (const record of this.records.values()) {
      if (record.kickoffId === kickoffId || record.previousKickoffIds.includes(kickoffId)) {
        return record;
      }
    }
    return undefined;
  }

  /** Records a run the moment its kickoff id arrives. */
  async add(run: NewRun): Promise<RunRecord> {
    const now = this.clock.now();
    const startedAt = run.startedAt ?? now;
    const record: RunRecord = {
      id: randomUUID(),
      crewUrl: run.crewUrl,
      crewName: run.crewName,
      kickoffId: run.kickoffId,
      previousKickoffIds: [],
      inputs: { ...run.inputs },
      startedAt,
      updatedAt: now,
      state: 'queued',
      watching: true,
      watchSince: now,
      needsFeedback: false,
      label: runLabel(run.inputs, startedAt),
      kickoffIdSince: now,
      seenBySource: false,
    };
    const details = emptyDetails();
    details.history.push({ state: 'queued', at: now });
    await this.withRun(record.id, async () => {
      this.records.set(record.id, record);
      this.dirtyIds.add(record.id);
      await this.writeDetails(record.id, details);
      await this.saveIndex();
    });
    const removed = await this.enforceCap();
    this.fireChange([record.id, ...removed]);
    return record;
  }

  /**
   * Folds a status into the run. Returns plain-English lines for what changed ([] when nothing did).
   * A NOT FOUND for a run the service has reported before is read as "probably waiting for feedback";
   * before that (just after kickoff) it changes nothing but starts the NOT FOUND clock.
   */
  async applySnapshot(id: string, snapshot: StatusSnapshot): Promise<string[]> {
    let lines: string[] = [];
    const changed = await this.withRun(id, async () => {
      const before = this.records.get(id);
      if (!before) {
        return false;
      }
      const now = this.clock.now();
      const details = await this.loadDetails(id);
      const record: RunRecord = { ...before };
      const effective = this.interpret(record, snapshot, now, details.tasks.at(-1));
      const describeFrom = details.lastSnapshot;

      // A status arrived: a warning about failed checks is over. Cleared in this same write, or a
      // finished run was saved with it first and kept it when the window closed before the next write.
      record.warning = undefined;
      record.message = effective.message;
      record.progress = effective.progress;
      record.currentTask = effective.currentTask;
      if (effective.state !== record.state) {
        details.history.push({ state: effective.state, at: now, message: effective.message });
        record.state = effective.state;
      }
      record.needsFeedback = record.state === 'awaitingFeedback';
      record.taskId = effective.feedback?.taskId ?? record.taskId;
      if (isFinished(record)) {
        record.finishedAt ??= now;
        record.watching = false;
        record.stopReason = undefined;
        record.feedbackInferred = undefined;
      }

      details.tasks = mergeTaskOutputs(details.tasks, snapshot);
      details.finalOutput = snapshot.finalOutput ?? details.finalOutput;
      details.error = snapshot.error ?? details.error;
      details.lastSnapshot = effective;

      const neverSeen = snapshot.state === 'notFound' && !record.seenBySource;
      lines = neverSeen ? [] : describeChanges(describeFrom, effective);
      return this.commit(id, before, record, details);
    });
    if (changed) {
      const removed = isFinished(this.records.get(id) ?? { state: 'queued' }) ? await this.enforceCap() : [];
      this.fireChange([id, ...removed]);
    }
    return lines;
  }

  /**
   * The service forgot the run for too long: stop watching as "unknown or expired", never as failed.
   * `message` replaces the generic one (a forgotten run keeps the server's words).
   */
  async markExpired(id: string, message = EXPIRED_MESSAGE): Promise<void> {
    await this.updateRecord(id, (r) => isFinished(r) ? r : ({
      ...r,
      state: 'notFound',
      watching: false,
      stopReason: 'expired',
      needsFeedback: false,
      feedbackInferred: undefined,
      message,
    }), (d, r) => {
      const last = d.history[d.history.length - 1];
      if (last?.state !== r.state) {
        d.history.push({ state: r.state, at: this.clock.now(), message });
      }
    });
  }

  async setWarning(id: string, warning: string | undefined): Promise<void> {
    await this.updateRecord(id, (r) => ({ ...r, warning }));
  }

  /** Watching again restarts the watch deadline; a final run is never watched. */
  async setWatching(id: string, watching: boolean, reason?: StopReason): Promise<void> {
    await this.updateRecord(id, (r) => {
      if (watching) {
        if (isFinished(r) || r.watching) {
          return r;
        }
        return { ...r, watching: true, stopReason: undefined, watchSince: this.clock.now() };
      }
      return { ...r, watching: false, stopReason: isFinished(r) ? undefined : reason };
    });
  }

  /** A resume answered with a new kickoff id: the same run goes on under it. */
  async continueAs(id: string, newKickoffId: string): Promise<void> {
    await this.updateRecord(id, (r) => {
      if (r.kickoffId === newKickoffId) {
        return r;
      }
      const now = this.clock.now();
      return {
        ...r,
        kickoffId: newKickoffId,
        previousKickoffIds: [...r.previousKickoffIds, r.kickoffId],
        kickoffIdSince: now,
        seenBySource: false,
        notFoundSince: undefined,
        state: 'queued',
        needsFeedback: false,
        feedbackInferred: undefined,
        finishedAt: undefined,
        watching: true,
        stopReason: undefined,
        watchSince: now,
      };
    }, (d, r) => {
      d.history.push({ state: r.state, at: this.clock.now(), message: `Continued as ${newKickoffId}` });
    });
  }

  /** The task id for /resume when the status does not reveal it (typed by the user). */
  async setTaskId(id: string, taskId: string): Promise<void> {
    await this.updateRecord(id, (r) => (r.taskId === taskId ? r : { ...r, taskId }));
  }

  /** Feedback was sent: the run is expected to go on (the next status confirms it). */
  async addFeedbackRound(id: string, round: FeedbackRound): Promise<void> {
    await this.updateRecord(id, (r) => ({
      ...r,
      needsFeedback: false,
      feedbackInferred: undefined,
      taskId: round.taskId || r.taskId,
      state: isFinished(r) ? r.state : 'running',
      watching: !isFinished(r),
      stopReason: undefined,
      watchSince: this.clock.now(),
    }), (d, r) => {
      d.feedbackRounds.push({ ...round });
      const last = d.history[d.history.length - 1];
      if (last?.state !== r.state) {
        d.history.push({ state: r.state, at: round.at, message: round.approve ? 'Approved' : 'Sent back with feedback' });
      }
    });
  }

  async remove(id: string): Promise<void> {
    const removed = await this.withRun(id, async () => {
      if (!this.records.delete(id)) {
        return false;
      }
      this.detailsCache.delete(id);
      this.dirtyIds.add(id);
      await this.saveIndex();
      await fs.rm(this.detailsPath(id), { force: true });
      return true;
    });
    if (removed) {
      this.fireChange([id]);
    }
  }

  /** Outputs stay on disk until a run is opened. A missing or corrupt file reads as empty details. */
  async readDetails(id: string): Promise<RunDetails> {
    return structuredClone(await this.withRun(id, () => this.loadDetails(id)));
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  /** Waits for every write queued so far. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.runChains.values(), this.indexChain]);
  }

  // ---- internals ----

  /** Works out what a status means for this run; updates the record's NOT FOUND bookkeeping. */
  private interpret(record: RunRecord, snapshot: StatusSnapshot, now: number, lastKnownTask?: TaskOutput): StatusSnapshot {
    if (snapshot.state !== 'notFound') {
      record.seenBySource = true;
      record.notFoundSince = undefined;
      record.feedbackInferred = undefined;
      return snapshot;
    }
    record.notFoundSince ??= now;
    if (!record.seenBySource) {
      // Just after kickoff the service may not list the run yet: keep what we have.
      return { ...snapshot, state: record.state, message: record.message };
    }
    if (isForgotten(record, snapshot)) {
      // A bare HTTP 404: the server forgot the run; nothing says it waits for feedback.
      record.feedbackInferred = undefined;
      return forgottenRun(record, snapshot);
    }
    record.feedbackInferred = true;
    // A NOT FOUND body says nothing about the task: offer the last output seen for review.
    const lastTask = snapshot.lastTask ?? lastKnownTask;
    return {
      ...snapshot,
      state: 'awaitingFeedback',
      message: INFERRED_FEEDBACK_MESSAGE,
      progress: record.progress,
      currentTask: record.currentTask,
      feedback: snapshot.feedback ?? { taskId: record.taskId, taskName: lastTask?.name, output: lastTask?.output },
    };
  }

  private async updateRecord(
    id: string,
    change: (record: RunRecord) => RunRecord,
    changeDetails?: (details: RunDetails, record: RunRecord) => void,
  ): Promise<void> {
    const changed = await this.withRun(id, async () => {
      const before = this.records.get(id);
      if (!before) {
        return false;
      }
      const after = change(before);
      if (after === before) {
        return false;
      }
      let details: RunDetails | undefined;
      if (changeDetails) {
        details = await this.loadDetails(id);
        changeDetails(details, after);
      }
      return this.commit(id, before, after, details);
    });
    if (changed) {
      this.fireChange([id]);
    }
  }

  /** Saves what differs; returns whether anything did. `details` is a mutable copy, or undefined when untouched. */
  private async commit(id: string, before: RunRecord, after: RunRecord, details?: RunDetails): Promise<boolean> {
    const cached = this.detailsCache.get(id)?.details;
    const detailsChanged = details !== undefined && JSON.stringify(details) !== JSON.stringify(cached);
    const recordChanged = JSON.stringify(before) !== JSON.stringify(after);
    if (!recordChanged && !detailsChanged) {
      return false;
    }
    after.updatedAt = this.clock.now();
    if (detailsChanged) {
      await this.writeDetails(id, details);
    }
    this.records.set(id, after);
    this.dirtyIds.add(id);
    await this.saveIndex();
    return true;
  }

  private withRun<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.runChains.get(id) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.runChains.set(id, tail);
    void tail.then(() => {
      if (this.runChains.get(id) === tail) {
        this.runChains.delete(id);
      }
    });
    return next;
  }

  /** Writes only the runs changed here over the stored index, so other windows' changes survive. */
  private saveIndex(): Promise<void> {
    const write = this.indexChain.then(async () => {
      if (this.dirtyIds.size === 0) {
        return; // An earlier queued write already carried these changes.
      }
      const stored = new Map(this.readStoredRecords().map((r) => [r.id, r]));
      const written = [...this.dirtyIds];
      for (const id of written) {
        const record = this.records.get(id);
        if (record) {
          stored.set(id, record);
        } else {
          stored.delete(id);
        }
      }
      const index: StoredIndex = { version: 1, runs: [...stored.values()] };
      this.dirtyIds.clear();
      try {
        await this.kv.update(this.indexKey, index);
      } catch (e) {
        for (const id of written) {
          this.dirtyIds.add(id);
        }
        throw e;
      }
    });
    this.indexChain = write.catch(() => undefined);
    return write;
  }

  private readStoredRecords(): RunRecord[] {
    const stored = this.kv.get<StoredIndex>(this.indexKey);
    if (!stored || !Array.isArray(stored.runs)) {
      return [];
    }
    return stored.runs.filter((r): r is RunRecord => {
      const ok = isRecordShape(r);
      if (!ok) {
        this.logger.warn('Run index: skipped an entry that is not a run record.');
      }
      return ok;
    });
  }

  private detailsPath(id: string): string {
    return path.join(this.runsDir, `${id}.json`);
  }

  /** Returns the cached object itself: callers mutate it only inside the run's chain, then commit. */
  private async loadDetails(id: string): Promise<RunDetails> {
    const file = this.detailsPath(id);
    let mtimeMs = -1;
    try {
      mtimeMs = (await fs.stat(file)).mtimeMs;
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        this.logger.warn(`Run ${id}: cannot stat details (${String(e)}).`);
      }
    }
    const cached = this.detailsCache.get(id);
    if (cached && cached.mtimeMs === mtimeMs) {
      this.touchCache(id, cached);
      return structuredClone(cached.details);
    }
    let details = emptyDetails();
    if (mtimeMs >= 0) {
      try {
        details = parseDetails(await fs.readFile(file, 'utf8'));
      } catch (e) {
        this.logger.warn(`Run ${id}: details file unreadable, starting from empty details (${errorMessage(e)}).`);
      }
    }
    this.touchCache(id, { details, mtimeMs });
    return structuredClone(details);
  }

  private async writeDetails(id: string, details: RunDetails): Promise<void> {
    const stored: StoredDetails = { version: 1, runId: id, ...details };
    const file = this.detailsPath(id);
    await fs.mkdir(this.runsDir, { recursive: true });
    await writeFileAtomic(file, JSON.stringify(stored));
    const mtimeMs = (await fs.stat(file)).mtimeMs;
    this.touchCache(id, { details: structuredClone(details), mtimeMs });
  }

  private touchCache(id: string, entry: CachedDetails): void {
    this.detailsCache.delete(id);
    this.detailsCache.set(id, entry);
    while (this.detailsCache.size > this.detailsCacheSize) {
      const oldest = this.detailsCache.keys().next().value as string;
      this.detailsCache.delete(oldest);
    }
  }

  /** Drops the oldest finished runs of crews over the cap; never one still going. Returns the removed ids. */
  private async enforceCap(): Promise<string[]> {
    const byCrew = new Map<string, RunRecord[]>();
    for (const r of this.records.values()) {
      byCrew.set(r.crewUrl, [...(byCrew.get(r.crewUrl) ?? []), r]);
    }
    const doomed: string[] = [];
    for (const runs of byCrew.values()) {
      let excess = runs.length - this.maxRunsPerCrewValue;
      const oldestFirst = runs.filter(isDisposable).sort((a, b) => a.startedAt - b.startedAt);
      for (const r of oldestFirst) {
        if (excess <= 0) {
          break;
        }
        doomed.push(r.id);
        excess--;
      }
    }
    for (const id of doomed) {
      await this.withRun(id, async () => {
        this.records.delete(id);
        this.detailsCache.delete(id);
        this.dirtyIds.add(id);
        await fs.rm(this.detailsPath(id), { force: true }).catch((e) => this.logger.warn(`Run ${id}: cannot delete details (${errorMessage(e)}).`));
      });
    }
    if (doomed.length) {
      await this.saveIndex();
      this.logger.info(`Run history: dropped ${doomed.length} oldest finished run(s) over the cap of ${this.maxRunsPerCrewValue} per crew.`);
    }
    return doomed;
  }

  private async removeStaleTempFiles(): Promise<void> {
    let names: string[];
    try {
      names = await fs.readdir(this.runsDir);
    } catch {
      return;
    }
    const now = Date.now(); // File times are wall-clock times, whatever clock the store was given.
    for (const name of names.filter((n) => n.endsWith(TEMP_SUFFIX))) {
      const file = path.join(this.runsDir, name);
      try {
        if (now - (await fs.stat(file)).mtimeMs > STALE_TEMP_MS) {
          await fs.rm(file, { force: true });
        }
      } catch {
        // Gone already, or another window is handling it.
      }
    }
  }

  private fireChange(runIds: string[]): void {
    this.changeEmitter.fire({ runIds: [...new Set(runIds)] });
  }
}

function parseDetails(text: string): RunDetails {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null) {
    throw new Error('not an object');
  }
  const p = parsed as Partial<StoredDetails>;
  return {
    lastSnapshot: p.lastSnapshot,
    tasks: Array.isArray(p.tasks) ? p.tasks : [],
    history: Array.isArray(p.history) ? p.history : [],
    finalOutput: p.finalOutput,
    error: p.error,
    feedbackRounds: Array.isArray(p.feedbackRounds) ? p.feedbackRounds : [],
  };
}

function isRecordShape(r: unknown): r is RunRecord {
  if (typeof r !== 'object' || r === null) {
    return false;
  }
  const x = r as Partial<RunRecord>;
  return (
    typeof x.id === 'string' &&
    typeof x.crewUrl === 'string' &&
    typeof x.kickoffId === 'string' &&
    typeof x.state === 'string' &&
    Array.isArray(x.previousKickoffIds)
  );
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
