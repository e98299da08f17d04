// Runs of every crew: a small index in a key-value store (VS Code's globalState) shown in all windows,
// and one detail file per run (DetailsFiles).
//
// The store is the single writer of a run's truth. Every write runs in the run's queue, re-reads the
// latest stored version of the run, applies a change (a pure function, see transitions.ts) to it and
// bumps its revision; a removal leaves a tombstone in the index. So a window holding a stale copy (its
// memory lags the shared index by up to a reload) can neither undo another window's change nor bring
// a removed run back.

import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { StatusSnapshot } from '../api/types';
import type { RunChange } from './changes';
import { type Clock, systemClock } from '../util/clock';
import { errorText } from '../util/errorText';
import { Emitter, type Event } from '../util/event';
import { DetailsFiles, moveInputsToFiles } from './detailsFiles';
import { KeyedQueue } from './keyedQueue';
import { type FeedbackDraft, type FeedbackRound, isFinished, type Logger, type NewRun, type RunDetails, type RunRecord, type StopReason } from './model';
import { type IndexChange, newer, sameRun } from './runIndex';
import { type KeyValueStore, SharedIndex } from './sharedIndex';

export type { KeyValueStore } from './sharedIndex';
import * as change from './transitions';
import { overCap } from './transitions';

export type { StoredDetails } from './detailsFiles';
export type { StoredIndex } from './runIndex';


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

/** What the poller saw when it asked: a status is applied only if the run is still there. */
export interface PolledVersion {
  kickoffId: string;
  revision: number;
}

export const DEFAULT_INDEX_KEY = 'crewRuns.runIndex';
export const DEFAULT_MAX_RUNS_PER_CREW = 50;
/** A run that could not be saved is tried again this soon, if no other write saves it first. */
const SAVE_RETRY_MS = 10_000;

type Outcome = 'changed' | 'unchanged' | 'stale' | 'gone';

export class RunStore {
  private readonly clock: Clock;
  private readonly files: DetailsFiles;
  private maxRunsPerCrewValue: number;
  private records = new Map<string, RunRecord>();
  /** One queue per run: writes to a run (index entry and file) never interleave in this window. */
  private readonly queue = new KeyedQueue();
  private readonly index: SharedIndex;
  /** This window's changes not yet in the stored index (see SharedIndex). */
  private readonly pending: Map<string, IndexChange>;
  private readonly changeEmitter = new Emitter<RunsChangeEvent>();

  readonly onDidChange: Event<RunsChangeEvent> = this.changeEmitter.event;
  private readonly addEmitter = new Emitter<RunRecord>();
  /** A run this window recorded (a kickoff, a tracked kickoff id), after onDidChange; not another window's. */
  readonly onDidAdd: Event<RunRecord> = this.addEmitter.event;

  constructor(
    kv: KeyValueStore,
    storageDir: string,
    private readonly logger: Logger,
    options: RunStoreOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.index = new SharedIndex(kv, options.indexKey ?? DEFAULT_INDEX_KEY, this.clock, logger);
    this.pending = this.index.pending;
    this.files = new DetailsFiles(path.join(storageDir, 'runs'), logger, options.detailsCacheSize);
    this.maxRunsPerCrewValue = options.maxRunsPerCrew ?? DEFAULT_MAX_RUNS_PER_CREW;
  }

  get maxRunsPerCrew(): number {
    return this.maxRunsPerCrewValue;
  }

  /** Applies the history cap at once (may delete finished runs). */
  async setMaxRunsPerCrew(max: number): Promise<void> {
    this.maxRunsPerCrewValue = Math.max(1, Math.floor(max));
    this.fireChange(await this.enforceCap());
  }

  /** Reads the index; fires a change for every run loaded, as views may have read the store before. */
  async load(): Promise<void> {
    await this.files.init();
    const stored = this.index.view();
    this.records = stored.runs;
    if (stored.legacyInputs) {
      await this.migrate(stored.legacyInputs);
    }
    const removed = await this.enforceCap();
    this.fireChange([...this.records.keys(), ...removed]);
  }

  /** Re-reads the index (another window may have changed it); fires for the runs that differ. */
  reload(): void {
    const stored = this.index.view().runs;
    const changed: string[] = [];
    for (const [id, record] of stored) {
      const mine = this.records.get(id);
      if (!this.pending.has(id) && !sameRun(mine, record)) {
        this.records.set(id, record);
        this.files.forget(id);
        changed.push(id);
      }
    }
    for (const id of [...this.records.keys()]) {
      if (!stored.has(id) && !this.pending.has(id)) {
        this.records.delete(id);
        this.files.forget(id);
        changed.push(id);
      }
    }
    this.fireChange(changed);
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

  /** The latest version of a run: re-read from the shared index now if another window changed it (fires then). */
  current(id: string): RunRecord | undefined {
    const mine = this.records.get(id);
    const latest = this.latest(id);
    if (latest !== mine) {
      if (latest) {
        this.records.set(id, latest);
      } else {
        this.records.delete(id);
      }
      this.files.forget(id);
      this.fireChange([id]);
    }
    return latest;
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
    const { record, details } = change.newRun(randomUUID(), run, this.clock.now());
    await this.queue.run(record.id, async () => {
      this.records.set(record.id, record);
      this.pending.set(record.id, { id: record.id, record });
      await this.files.write(record.id, details).catch((e) => this.logger.warn(l10n.t('Run {0}: cannot write its details ({1}).', record.id, errorText(e))));
      try {
        await this.saveIndex();
      } catch (e) {
        this.index.unsaved.add(record.id);
        const kept = { ...record, warning: l10n.t('Not saved to the run history yet ({0}); kept in this window and saved with the next change.', errorText(e)) };
        this.records.set(record.id, kept);
        this.pending.set(record.id, { id: record.id, record: kept });
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

  /** Folds a status into the latest version of the run; returns what meaningfully changed. */
  async applySnapshot(id: string, snapshot: StatusSnapshot): Promise<RunChange[]> {
    return (await this.applyPolled(id, undefined, snapshot)).changes;
  }

  /**
   * Folds a polled status in only if the run is still the version polled (same kickoff id and revision):
   * feedback sent, Stop Watching or a removal meanwhile, here or in another window, make it stale.
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
      changes = change.foldSnapshot(record, details, snapshot, this.clock.now());
      notice = change.noticeOf(latest, record);
      return { record, details };
    });
    if (outcome === 'changed' && isFinished(this.records.get(id) ?? { state: 'queued' })) {
      this.fireChange(await this.enforceCap());
    }
    return { applied: outcome === 'changed' || outcome === 'unchanged', changes, notice: outcome === 'changed' ? notice : undefined };
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
      if (!this.records.delete(id)) {
        return false;
      }
      this.pending.set(id, { id, removedAt: this.clock.now() });
      await this.saveIndex();
      await this.files.remove(id);
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
    this.changeEmitter.dispose();
    this.addEmitter.dispose();
  }

  /** Waits for every write queued so far, and tries once more to save what could not be saved. */
  async flush(): Promise<void> {
    await this.queue.idle();
    await this.index.idle();
    if (this.pending.size) {
      await this.saveIndex().catch((e) => this.logger.warn(l10n.t('Run index: still cannot save ({0}).', errorText(e))));
    }
  }

  // ---- internals ----

  /** A version 1 index held each run's inputs: they move to the runs' files, then the index is rewritten as summaries. */
  private async migrate(legacyInputs: Map<string, Record<string, string>>): Promise<void> {
    if (await moveInputsToFiles(this.files, [...this.records.keys()], legacyInputs, this.logger)) {
      this.records.forEach((record, id) => this.pending.set(id, { id, record }));
      await this.saveIndex();
      this.logger.info(l10n.t('Run index: moved the inputs of {0} run(s) to their files; the index now holds summaries only.', this.records.size));
    }
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

  /** The one write path: in the run's queue, from the latest stored version, revision + 1. */
  private async write(id: string, work: (latest: RunRecord) => Promise<{ record: RunRecord; details?: RunDetails } | undefined>): Promise<Outcome> {
    let refreshed = false;
    const outcome = await this.queue.run(id, async (): Promise<Outcome> => {
      const latest = this.latest(id);
      refreshed = latest !== this.records.get(id) || (latest === undefined && this.records.has(id));
      if (!latest) {
        this.records.delete(id);
        return 'gone';
      }
      this.records.set(id, latest);
      const out = await work(latest);
      if (!out) {
        return 'stale';
      }
      const detailsChanged = out.details !== undefined && this.files.differs(id, out.details);
      if (!detailsChanged && JSON.stringify(out.record) === JSON.stringify(latest)) {
        return 'unchanged';
      }
      const after: RunRecord = { ...out.record, revision: latest.revision + 1, updatedAt: this.clock.now() };
      if (out.details && detailsChanged) {
        await this.files.write(id, out.details);
      }
      this.records.set(id, after);
      this.pending.set(id, { id, record: after });
      await this.saveIndex();
      return 'changed';
    });
    if (outcome === 'changed' || refreshed) {
      this.fireChange([id]);
    }
    return outcome;
  }

  /** The newest of this window's copy and the stored one; undefined once removed anywhere. */
  private latest(id: string): RunRecord | undefined {
    const mine = this.pending.get(id);
    if (mine && 'removedAt' in mine) {
      return undefined;
    }
    const stored = this.index.find(id);
    if (stored.removed) {
      this.files.forget(id);
      return undefined;
    }
    const current = this.records.get(id);
    const winner = newer(stored.record, current);
    // The same version as ours: keep our object, so that nothing reads as changed.
    return winner && current && sameRun(winner, current) ? current : winner;
  }

  private saveIndex(): Promise<void> {
    const adopted: string[] = [];
    return this.index
      .save((id, winner) => {
        if (winner) {
          this.records.set(id, winner);
        } else {
          this.records.delete(id);
        }
        adopted.push(id);
      })
      .finally(() => this.fireChange(adopted));
  }

  /** Drops the oldest finished runs of crews over the cap; never one still going. Returns the removed ids. */
  private async enforceCap(): Promise<string[]> {
    const doomed = overCap([...this.records.values()], this.maxRunsPerCrewValue);
    for (const id of doomed) {
      await this.queue.run(id, async () => {
        this.records.delete(id);
        this.pending.set(id, { id, removedAt: this.clock.now() });
        await this.files.remove(id);
      });
    }
    if (doomed.length) {
      await this.saveIndex();
      this.logger.info(l10n.t('Run history: dropped {0} oldest finished run(s) over the cap of {1} per crew.', doomed.length, this.maxRunsPerCrewValue));
    }
    return doomed;
  }

  private fireChange(runIds: string[]): void {
    if (runIds.length) {
      this.changeEmitter.fire({ runIds: [...new Set(runIds)] });
    }
  }
}
