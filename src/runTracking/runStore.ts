// Runs of every crew, shared by every window through global storage: one small record file per run (its
// summary and revision: the truth, RecordFiles) and one details file per run (DetailsFiles).
//
// The store is the single writer of a run's truth. Every write runs in the run's queue and under the
// run's lock (shared by all windows), re-reads the stored record, applies a change (a pure function, see
// transitions.ts) to it and writes it back with its revision bumped; a removal deletes the record file,
// and only a new run creates one. So a window whose copy is stale (it learns other windows' changes
// through a watcher, RunStore.refresh, and a periodic re-read) cannot undo another window's change nor
// bring a removed run back: its write starts from what is stored, or finds the run gone.
// globalState is not used for runs: it is not compare-and-set, and a window's write of any key carries
// its stale copy of all of them. An index older versions kept there is moved once (load).

import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { KnownEvents, RunEvent, StatusSnapshot } from '../api/types';
import type { RunChange } from './model';
import { type Clock, systemClock } from '../util/clock';
import { errorText } from '../util/errorText';
import { Emitter, type Event } from '../util/event';
import { DetailsFiles, moveInputsToFiles } from './detailsFiles';
import { EventFiles, type EventsRead } from './eventFiles';
import { FileLock } from '../storage/fileLock';
import { KeyedQueue } from '../storage/keyedQueue';
import { type EventCounts, type FeedbackDraft, type FeedbackRound, isFinished, type NewRun, type RunDetails, type RunRecord, type StopReason } from './model';
import type { Logger } from '../util/logger';
import { addUsage } from './trace/usageTally';
import { RecordFiles } from './recordFiles';
import { foldSnapshot } from './snapshotFold';
import { readIndex, sameRun } from './runIndex';
import * as change from './transitions';
import { overCap } from './transitions';

export type { StoredDetails } from './detailsFiles';
export type { StoredIndex } from './runIndex';

/** The part of VS Code's Memento the extension uses (never for runs: see above). */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Promise<void>;
}

export interface RunStoreOptions {
  clock?: Clock;
  /** Key under which older versions kept the index in the key-value store (moved to files on load). */
  indexKey?: string;
  /** The history cap, or how to read it: read when the cap first applies (the history read), not at construction. */
  maxRunsPerCrew?: number | (() => number);
  /** How many detail files to keep parsed in memory. */
  detailsCacheSize?: number;
}

export interface RunsChangeEvent {
  runIds: string[];
}

/** What the poller saw when it asked: a status is applied only if the run is still there. */
export interface PolledVersion {
  kickoffId: string;
  revision: number;
}

export const DEFAULT_INDEX_KEY = 'crewRuns.runIndex';
export const DEFAULT_MAX_RUNS_PER_CREW = 50;
/** A run that could not be saved is tried again this soon, if no other write saves it first. */
const SAVE_RETRY_MS = 10_000;
/** A run's lock held by a process on another machine whose heartbeat stopped this long ago is stale (fileLock.ts). */
const LOCK_STALE_MS = 10_000;
/** Created once the index older versions kept in globalState is in the record files. */
const MOVED_MARKER = '.moved-from-global-state';

type Outcome = 'changed' | 'unchanged' | 'stale' | 'gone';

export class RunStore {
  private readonly clock: Clock;
  private readonly files: DetailsFiles;
  private readonly events: EventFiles;
  private maxRunsPerCrewValue: number | undefined;
  private readonly initialMaxRunsPerCrew: () => number;
  /** This window's copy of the stored records (and of runs not saved yet): what views show. */
  private records = new Map<string, RunRecord>();
  /** One queue per run: this window's writes to a run never contend for its lock. */
  private readonly queue = new KeyedQueue();
  private readonly recordFiles: RecordFiles;
  private readonly lock: FileLock;
  /** Runs recorded here whose record file could not be written: kept in memory, their warning says so until saved. */
  private readonly unsaved = new Set<string>();
  /** The sweep of crash leftovers that load() starts. */
  private sweeping: Promise<unknown> = Promise.resolve();
  private readonly changeEmitter = new Emitter<RunsChangeEvent>();

  readonly onDidChange: Event<RunsChangeEvent> = this.changeEmitter.event;
  private readonly addEmitter = new Emitter<RunRecord>();
  /** A run this window recorded (a kickoff, a tracked kickoff id), after onDidChange; not another window's. */
  readonly onDidAdd: Event<RunRecord> = this.addEmitter.event;

  private readonly indexKey: string;


  constructor(
    private readonly kv: KeyValueStore,
    storageDir: string,
    private readonly logger: Logger,
    options: RunStoreOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.indexKey = options.indexKey ?? DEFAULT_INDEX_KEY;
    this.recordFiles = new RecordFiles(path.join(storageDir, 'records'), path.join(storageDir, 'records-snapshot.json'));
    this.lock = new FileLock(path.join(storageDir, 'locks'), randomUUID(), logger, this.clock, LOCK_STALE_MS);
    this.files = new DetailsFiles(path.join(storageDir, 'runs'), logger, options.detailsCacheSize);
    this.events = new EventFiles(path.join(storageDir, 'runs'), logger);
    const max = options.maxRunsPerCrew;
    this.initialMaxRunsPerCrew = typeof max === 'function' ? max : () => max ?? DEFAULT_MAX_RUNS_PER_CREW;
  }

  get maxRunsPerCrew(): number {
    return (this.maxRunsPerCrewValue ??= this.initialMaxRunsPerCrew());
  }

  /** Applies the history cap at once (may delete finished runs). */
  async setMaxRunsPerCrew(max: number): Promise<void> {
    this.maxRunsPerCrewValue = Math.max(1, Math.floor(max));
    this.fireChange(await this.enforceCap());
  }

  /** The folder of the record files, which other windows write too (extension.ts watches it). */
  get recordsDir(): string {
    return this.recordFiles.dir;
  }

  /** Reads the records; fires a change for every run loaded, as views may have read the store before. */
  async load(): Promise<void> {
    await Promise.all([this.files.init(), this.recordFiles.init()]);
    // Listing 2,000 names twice more cost a window opening a sixth of its time; flush() waits for it.
    this.sweeping = Promise.all([this.files.sweep(), this.recordFiles.sweep()]);
    await this.moveFromGlobalState();
    // Newest first, as list() returns them: its sort is then a single pass.
    this.records = new Map([...(await this.recordFiles.readAll())].sort(([, a], [, b]) => newestFirst(a, b)));
    const removed = await this.enforceCap();
    this.fireChange([...this.records.keys(), ...removed]);
  }

  /** Re-reads every record (the backstop for changes the watcher missed); fires for the runs that differ. */
  async reload(): Promise<void> {
    const stored = await this.recordFiles.readAll().catch((e) => {
      this.logger.warn(l10n.t('Run history: cannot read the runs ({0}).', errorText(e)));
      return undefined;
    });
    if (!stored) {
      return;
    }
    const changed: string[] = [];
    for (const [id, record] of stored) {
      if (this.adopt(id, record)) {
        changed.push(id);
      }
    }
    for (const id of [...this.records.keys()]) {
      if (!stored.has(id) && this.adopt(id, undefined)) {
        changed.push(id);
      }
    }
    this.fireChange(changed);
  }

  /** Re-reads one run's record (its file changed: the watcher says so); fires if it differs. */
  async refresh(id: string): Promise<RunRecord | undefined> {
    const stored = await this.recordFiles.read(id).catch(() => this.records.get(id));
    if (this.adopt(id, stored)) {
      this.fireChange([id]);
    }
    return this.records.get(id);
  }

  /** Newest first; only one crew's runs when `crewUrl` is given. */
  list(crewUrl?: string): RunRecord[] {
    return [...this.records.values()]
      .filter((r) => crewUrl === undefined || r.crewUrl === crewUrl)
      .sort(newestFirst);
  }

  get(id: string): RunRecord | undefined {
    return this.records.get(id);
  }

  /** This window's copy of a run, as `get`; `refresh` re-reads the stored one. */
  current(id: string): RunRecord | undefined {
    return this.records.get(id);
  }

  /** Also finds a run by a kickoff id it had before a resume. */
  findByKickoffId(kickoffId: string): RunRecord | undefined {
    return [...this.records.values()].find((r) => r.kickoffId === kickoffId || r.previousKickoffIds.includes(kickoffId));
  }

  /**
   * Records a run the moment its kickoff id arrives. Never fails once the service has answered: if the
   * run cannot be saved, it is kept in this window (its warning says so) and saved with the next write.
   */
  async add(run: NewRun): Promise<RunRecord> {
    const { record, details } = change.newRun(run.id ?? randomUUID(), run, this.clock.now());
    await this.queue.run(record.id, async () => {
      this.records.set(record.id, record);
      await this.files.write(record.id, details).catch((e) => this.logger.warn(l10n.t('Run {0}: cannot write its details ({1}).', record.id, errorText(e))));
      try {
        await this.recordFiles.create(record); // A new id: no other window has a file for it.
      } catch (e) {
        this.unsaved.add(record.id);
        const kept = { ...record, warning: l10n.t('Not saved to the run history yet ({0}); kept in this window and saved with the next change.', errorText(e)) };
        this.records.set(record.id, kept);
        this.logger.error(l10n.t('Run {0} (kickoff {1}): {2}', record.id, record.kickoffId, kept.warning));
        this.clock.setTimeout(() => void this.flush(), SAVE_RETRY_MS); // Or sooner, with the next write.
      }
    });
    const removed = await this.enforceCap().catch(() => []);
    this.fireChange([record.id, ...removed]);
    const added = this.records.get(record.id) ?? record;
    this.addEmitter.fire(added);
    return added;
  }

  /**
   * Folds a polled status into the latest version of the run; with `polled`, only if the run is still the
   * version polled (same kickoff id and revision): feedback sent, Stop Watching or a removal meanwhile, here
   * or in another window, make it stale.
   */
  async applyPolled(id: string, polled: PolledVersion | undefined, snapshot: StatusSnapshot): Promise<{ applied: boolean; changes: RunChange[]; notice?: change.RunNotice }> {
    let changes: RunChange[] = [];
    let notice: change.RunNotice | undefined;
    const outcome = await this.write(id, async (latest) => {
      if (polled && (latest.kickoffId !== polled.kickoffId || latest.revision !== polled.revision)) {
        return undefined;
      }
      const record = { ...latest };
      const details = await this.files.read(id);
      changes = foldSnapshot(record, details, snapshot, this.clock.now());
      await this.keepEvents(id, details, snapshot.eventLog?.events);
      notice = change.noticeOf(latest, record);
      return { record, details };
    });
    if (outcome === 'changed' && isFinished(this.records.get(id) ?? { state: 'queued' })) {
      this.fireChange(await this.enforceCap());
    }
    return { applied: outcome === 'changed' || outcome === 'unchanged', changes, notice: outcome === 'changed' ? notice : undefined };
  }

  /** Appends a status's new events to the run's event file and counts them in its details (so other windows hear of them). */
  private async keepEvents(id: string, details: RunDetails, events: readonly RunEvent[] | undefined): Promise<void> {
    if (!events?.length) {
      return;
    }
    const appended = await this.events.append(id, events);
    if (appended.added > 0 || appended.dropped > 0) {
      details.events = {
        kept: appended.kept,
        dropped: (details.events?.dropped ?? 0) + appended.dropped,
        ...withByModel(details.events?.byModel, appended.written),
      };
    }
  }

  /** The events the run keeps, for a poll's reader to leave out. */
  knownEvents(id: string): Promise<KnownEvents> {
    return this.events.knownEvents(id);
  }

  /** The run's events from byte `from` on as the UTF-8 bytes of JSON Lines (whole lines; `end` is where the next read starts). */
  readEventsBytes(id: string, from = 0): Promise<{ bytes: Uint8Array; end: number }> {
    return this.events.readBytes(id, from);
  }

  /** The run's events from byte `from` on (whole lines; `end` is where the next read starts). */
  readEvents(id: string, from = 0): Promise<EventsRead> {
    return this.events.read(id, from);
  }

  /** The service forgot the run (`message` says how, e.g. the demo's server is gone): stopped, not failed. */
  async markExpired(id: string, message?: string): Promise<void> {
    const c = change.expire(this.clock.now(), message);
    await this.update(id, c.record, c.details);
  }

  async setWarning(id: string, warning: string | undefined): Promise<void> {
    await this.update(id, (r) => ({ ...r, warning }));
  }

  async setWatching(id: string, watching: boolean, reason?: StopReason): Promise<void> {
    await this.update(id, change.watching(watching, reason, this.clock.now()));
  }

  /** The task id for /resume when the status does not reveal it (typed by the user). */
  async setTaskId(id: string, taskId: string): Promise<void> {
    await this.update(id, (r) => (r.taskId === taskId ? r : { ...r, taskId }));
  }

  /** Feedback the crew took, and the kickoff id it goes on under (a live resume): one write (transitions.ts). */
  async addFeedbackRound(id: string, round: FeedbackRound, continuedAs?: string): Promise<void> {
    await this.write(id, async (latest) => {
      const details = await this.files.read(id);
      return { record: change.feedbackAnswered({ ...latest }, details, round, this.clock.now(), continuedAs), details };
    });
  }

  /** Feedback that could not be sent, kept with the run (undefined: forget it). */
  async setFeedbackDraft(id: string, draft: FeedbackDraft | undefined): Promise<void> {
    await this.update(id, (r) => r, (d) => {
      d.feedbackDraft = draft && { ...draft };
    });
  }

  async remove(id: string): Promise<void> {
    const removed = await this.queue.run(id, async () => {
      if (!this.records.has(id)) {
        return false;
      }
      await this.lock.run(id, () => this.recordFiles.remove(id));
      this.records.delete(id);
      this.unsaved.delete(id);
      await this.removeFiles(id);
      return true;
    });
    if (removed) {
      this.fireChange([id]);
    }
  }

  /** Outputs stay on disk until a run is opened. A missing or corrupt file reads as empty details. */
  async readDetails(id: string): Promise<RunDetails> {
    return this.queue.run(id, () => this.files.read(id));
  }

  dispose(): void {
    this.recordFiles.dispose();
    this.changeEmitter.dispose();
    this.addEmitter.dispose();
  }

  /** Waits for every write queued so far, and tries once more to save what could not be saved. */
  async flush(): Promise<void> {
    await this.sweeping;
    await this.queue.idle();
    await this.recordFiles.idle();
    for (const id of [...this.unsaved]) {
      await this.update(id, (r) => r).catch((e) => this.logger.warn(l10n.t('Run {0}: still cannot save ({1}).', id, errorText(e))));
    }
  }

  // ---- internals ----

  /**
   * Older versions kept the runs in globalState: they are moved into record files once (a marker file
   * says it is done, so a stale window's copy of that index, written back later, is never read again).
   * A version 1 index also held each run's inputs: they move to the runs' details files.
   */
  private async moveFromGlobalState(): Promise<void> {
    const value = this.kv.get(this.indexKey);
    const marker = path.join(this.recordFiles.dir, MOVED_MARKER);
    if (value === undefined || (await fs.stat(marker).then(() => true, () => false))) {
      return;
    }
    const stored = readIndex(value, () => this.logger.warn(l10n.t('Run index: skipped an entry that is not a run record.')));
    if (stored.legacyInputs && !(await moveInputsToFiles(this.files, [...stored.runs.keys()], stored.legacyInputs, this.logger))) {
      return; // Tried again at the next load: nothing is lost meanwhile.
    }
    for (const record of stored.runs.values()) {
      await this.recordFiles.create(record); // Never over a record another window moved or wrote already.
    }
    await fs.writeFile(marker, '');
    await this.kv.update(this.indexKey, undefined).catch(() => undefined);
    this.logger.info(l10n.t('Run history: moved {0} run(s) from the shared index to their own files.', stored.runs.size));
  }

  /** Takes the stored version of a run (undefined: gone) into this window's copy; true if that changed it. */
  private adopt(id: string, stored: RunRecord | undefined): boolean {
    const mine = this.records.get(id);
    if (this.unsaved.has(id) || sameRun(mine, stored)) {
      return false; // Not saved yet: only this window has it.
    }
    if (stored && mine && stored.revision < mine.revision) {
      return false; // Read before this window's own write landed: revisions only grow.
    }
    if (stored) {
      this.records.set(id, stored);
    } else {
      this.records.delete(id);
    }
    this.files.forget(id);
    return true;
  }

  private async update(id: string, record: change.RecordChange, details?: change.DetailsChange): Promise<void> {
    await this.write(id, async (latest) => {
      const after = record(latest);
      if (!details) {
        return { record: after };
      }
      const d = await this.files.read(id);
      details(d, after);
      return { record: after, details: d };
    });
  }

  /**
   * The one write path: in the run's queue and under its lock, from the stored version (compare-and-set:
   * nothing else writes it meanwhile), revision + 1. A run not saved yet starts from this window's copy.
   */
  private async write(id: string, work: (latest: RunRecord) => Promise<{ record: RunRecord; details?: RunDetails } | undefined>): Promise<Outcome> {
    let refreshed = false;
    const outcome = await this.queue.run(id, () =>
      this.lock.run(id, async (): Promise<Outcome> => {
        const unsaved = this.unsaved.has(id);
        const stored = unsaved ? this.records.get(id) : await this.recordFiles.read(id);
        refreshed = this.adopt(id, stored);
        const latest = this.records.get(id);
        if (!latest) {
          return 'gone';
        }
        const out = await work(latest);
        if (!out) {
          return 'stale';
        }
        const compared = out.details && this.files.compare(id, out.details);
        const detailsChanged = compared?.differs === true;
        if (!unsaved && !detailsChanged && JSON.stringify(out.record) === JSON.stringify(latest)) {
          return 'unchanged';
        }
        // Saved at last: its "not saved" warning goes.
        const record = unsaved && out.record.warning === latest.warning ? { ...out.record, warning: undefined } : out.record;
        const after: RunRecord = { ...record, revision: latest.revision + 1, updatedAt: this.clock.now() };
        if (out.details && compared?.differs) {
          await this.files.write(id, out.details, compared.json);
        }
        await this.recordFiles.write(after);
        this.unsaved.delete(id);
        this.records.set(id, after);
        return 'changed';
      }),
    );
    if (outcome === 'changed' || refreshed) {
      this.fireChange([id]);
    }
    return outcome;
  }

  /** The batch has recorded the run's end: the history cap may take it from now on, in every window. */
  async batchEndRecorded(id: string): Promise<void> {
    if (this.records.get(id)?.batch?.awaitingEnd) {
      await this.update(id, (r) => (r.batch ? { ...r, batch: { source: r.batch.source, row: r.batch.row, ...(r.batch.suite ? { suite: true } : {}) } } : r));
    }
  }

  /** Drops the oldest finished runs of crews over the cap; never one still going or awaited by its batch. Returns the removed ids. */
  private async enforceCap(): Promise<string[]> {
    const doomed = overCap([...this.records.values()], this.maxRunsPerCrew);
    for (const id of doomed) {
      await this.queue.run(id, async () => {
        await this.lock.run(id, () => this.recordFiles.remove(id));
        this.records.delete(id);
        this.unsaved.delete(id);
        await this.removeFiles(id);
      });
    }
    if (doomed.length) {
      this.logger.info(l10n.t('Run history: dropped {0} oldest finished run(s) over the cap of {1} per crew.', doomed.length, this.maxRunsPerCrew));
    }
    return doomed;
  }

  /** A removed run's details and events. */
  private async removeFiles(id: string): Promise<void> {
    await Promise.all([this.files.remove(id), this.events.remove(id)]);
  }

  private fireChange(runIds: string[]): void {
    if (runIds.length) {
      this.changeEmitter.fire({ runIds: [...new Set(runIds)] });
    }
  }
}

/** The history's order: newest first; runs started in the same millisecond by id (code units: ids are ASCII). */
function newestFirst(a: RunRecord, b: RunRecord): number {
  return b.startedAt - a.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The run's tokens by model, with the model calls among `events` added (an end carries the usage). */
function withByModel(before: EventCounts['byModel'], events: readonly RunEvent[]): Pick<EventCounts, 'byModel'> {
  let byModel = before;
  for (const event of events) {
    if (event.usage && /^llm_call_(completed|failed)$/.test(event.type)) {
      byModel = addUsage(byModel ?? {}, event.model ?? '', event.usage);
    }
  }
  return byModel ? { byModel } : {};
}
