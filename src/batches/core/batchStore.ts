// Batches on disk: `<dir>/<id>.json` (the record, rewritten atomically on every change, so a row
// marked "sending" is on disk before its kickoff is sent) and `<id>.outputs.jsonl` (full outputs,
// appended as rows end). Nothing of a batch goes to global state. Only the window holding a batch's
// lease writes its record; another window's Cancel / Remove leaves a flag file (`<id>.cancel`,
// `<id>.removed`) that the owner reads before each send, so a stale copy is never written over it.
// Pure: no `vscode` here.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { errorCode, writeFileAtomic } from '../../storage/atomicFile';
import type { Logger } from '../../util/logger';
import { Emitter, type Event } from '../../util/event';
import type { Batch, BatchRow } from './model';
import { errorText } from '../../util/errorText';

export interface RowOutput {
  row: number;
  output?: string;
  error?: string;
}

/** An output larger than this is cut in the outputs file (the run's own files keep what the run store keeps). */
const MAX_OUTPUT_CHARS = 1_000_000;

export type NewBatch = Omit<Batch, 'version' | 'id' | 'createdAt' | 'cancelled'> & { createdAt?: number };

export class BatchStore {
  private readonly batches = new Map<string, Batch>();
  /** Per batch: the write in progress; the next write starts after it, with the latest record. */
  private readonly writes = new Map<string, Promise<void>>();
  /** Per batch: how many changes this window made (load() keeps a record changed here while it read). */
  private readonly changesHere = new Map<string, number>();
  private readonly changeEmitter = new Emitter<string[]>();
  /** Ids of the batches that changed (added, updated, removed). */
  readonly onDidChange: Event<string[]> = this.changeEmitter.event;

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  /** Reads every batch file (a window reload, or another window's changes). */
  async load(): Promise<void> {
    // A file read before a change made here is older than memory: the window's periodic refresh while it
    // sends a batch must not bring back a row's earlier state (a run's end recorded, then lost).
    const changesBefore = new Map(this.changesHere);
    const ours = (id: string) => this.writes.has(id) || (this.changesHere.get(id) ?? 0) !== (changesBefore.get(id) ?? 0);
    await fs.mkdir(this.dir, { recursive: true });
    const names = (await fs.readdir(this.dir)).filter((n) => /^[A-Za-z0-9-]+\.json$/.test(n));
    const seen = new Set<string>();
    const changed: string[] = [];
    for (const name of names) {
      const batch = await this.readBatch(path.join(this.dir, name));
      if (!batch) {
        continue; // Unreadable (logged).
      }
      if (await this.flagged(batch.id, 'removed')) {
        continue;
      }
      if (!batch.cancelled && (await this.flagged(batch.id, 'cancel'))) {
        batch.cancelled = true;
      }
      if (ours(batch.id)) {
        continue; // Being written, or changed here since this load began: ours is newer.
      }
      seen.add(batch.id);
      if (JSON.stringify(this.batches.get(batch.id)) !== JSON.stringify(batch)) {
        this.batches.set(batch.id, batch);
        changed.push(batch.id);
      }
    }
    for (const id of [...this.batches.keys()]) {
      if (!seen.has(id) && !ours(id)) {
        this.batches.delete(id);
        changed.push(id);
      }
    }
    if (changed.length) {
      this.changeEmitter.fire(changed);
    }
  }

  /**
   * Re-reads one batch's file (after its writes here are done), e.g. once this window holds its lease: a
   * copy read earlier may not show the rows another window marked meanwhile.
   */
  async reread(id: string): Promise<Batch | undefined> {
    await this.writes.get(id)?.catch(() => undefined);
    const removed = await this.flagged(id, 'removed');
    const batch = removed ? undefined : await this.readBatch(this.batchPath(id), true);
    if (batch && !batch.cancelled && (await this.flagged(id, 'cancel'))) {
      batch.cancelled = true;
    }
    if (this.writes.has(id)) {
      return this.batches.get(id); // Changed here while we read: ours is newer.
    }
    if (JSON.stringify(this.batches.get(id)) !== JSON.stringify(batch)) {
      if (batch) {
        this.batches.set(id, batch);
      } else {
        this.batches.delete(id);
      }
      this.changeEmitter.fire([id]);
    }
    return batch;
  }

  /** Newest first. */
  list(crewUrl?: string): Batch[] {
    return [...this.batches.values()].filter((b) => crewUrl === undefined || b.crewUrl === crewUrl).sort((a, b) => b.createdAt - a.createdAt);
  }

  get(id: string): Batch | undefined {
    return this.batches.get(id);
  }

  async create(init: NewBatch): Promise<Batch> {
    const batch: Batch = { ...structuredClone(init), version: 1, id: randomUUID(), createdAt: init.createdAt ?? Date.now(), cancelled: false };
    this.batches.set(batch.id, batch);
    this.noteChange(batch.id);
    await this.persist(batch.id);
    this.changeEmitter.fire([batch.id]);
    return batch;
  }

  /** Changes a batch and waits until the change is on disk. */
  async update(id: string, change: (batch: Batch) => void): Promise<Batch | undefined> {
    const batch = this.batches.get(id);
    if (!batch) {
      return undefined;
    }
    change(batch);
    this.noteChange(id);
    await this.persist(id);
    this.changeEmitter.fire([id]);
    return batch;
  }

  async updateRow(id: string, index: number, change: (row: BatchRow) => void): Promise<void> {
    await this.update(id, (batch) => {
      const row = batch.rows.find((r) => r.index === index);
      if (row) {
        change(row);
      }
    });
  }

  /** Another window sends this batch: ask it (through a flag on disk) to send no more rows. */
  async requestCancel(id: string): Promise<void> {
    const batch = this.batches.get(id);
    if (!batch) {
      return;
    }
    await fs.mkdir(this.dir, { recursive: true });
    await fs.writeFile(this.flagPath(id, 'cancel'), '', 'utf8');
    batch.cancelled = true; // Shown here at once; the record on disk is the owner's to write.
    this.noteChange(id);
    this.changeEmitter.fire([id]);
  }

  /** Cancel or Remove was asked for in some window (read from disk: the owner checks before each send). */
  async cancelRequested(id: string): Promise<boolean> {
    return (await this.flagged(id, 'removed')) || (await this.flagged(id, 'cancel'));
  }

  async remove(id: string): Promise<void> {
    if (!this.batches.delete(id)) {
      return;
    }
    this.noteChange(id);
    // The tombstone first: a window still holding the batch never writes it again.
    await fs.mkdir(this.dir, { recursive: true });
    await fs.writeFile(this.flagPath(id, 'removed'), '', 'utf8');
    await this.writes.get(id)?.catch(() => undefined);
    await fs.rm(this.flagPath(id, 'cancel'), { force: true });
    await fs.rm(this.batchPath(id), { force: true });
    await fs.rm(this.outputsPath(id), { force: true });
    this.changeEmitter.fire([id]);
  }

  async appendOutput(id: string, entry: RowOutput): Promise<void> {
    const cut = (text: string | undefined) => (text !== undefined && text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n…(cut)` : text);
    await fs.appendFile(this.outputsPath(id), `${JSON.stringify({ row: entry.row, output: cut(entry.output), error: cut(entry.error) })}\n`, 'utf8');
  }

  /** The latest output recorded per row. */
  async readOutputs(id: string): Promise<Map<number, RowOutput>> {
    const outputs = new Map<number, RowOutput>();
    let text: string;
    try {
      text = await fs.readFile(this.outputsPath(id), 'utf8');
    } catch {
      return outputs;
    }
    for (const line of text.split('\n')) {
      try {
        const entry = JSON.parse(line) as RowOutput;
        if (typeof entry.row === 'number') {
          outputs.set(entry.row, entry);
        }
      } catch {
        // A line cut by a crash: the ones before it still count.
      }
    }
    return outputs;
  }

  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()].map((w) => w.catch(() => undefined)));
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  private noteChange(id: string): void {
    this.changesHere.set(id, (this.changesHere.get(id) ?? 0) + 1);
  }

  private persist(id: string): Promise<void> {
    const previous = this.writes.get(id) ?? Promise.resolve();
    const write = previous
      .catch(() => undefined)
      .then(async () => {
        const batch = this.batches.get(id);
        if (batch && (await this.flagged(id, 'removed'))) {
          this.batches.delete(id); // Removed in another window: never re-created here.
          this.changeEmitter.fire([id]);
        } else if (batch) {
          await fs.mkdir(this.dir, { recursive: true });
          await writeFileAtomic(this.batchPath(id), JSON.stringify(batch));
          // Removed in another window while this write was on its way (it checked before the tombstone
          // existed): the remover's delete may have come first, so the write is undone here.
          if (await this.flagged(id, 'removed')) {
            await fs.rm(this.batchPath(id), { force: true });
            this.batches.delete(id);
            this.changeEmitter.fire([id]);
          }
        }
      });
    this.writes.set(id, write);
    void write.finally(() => {
      if (this.writes.get(id) === write) {
        this.writes.delete(id);
      }
    }).catch(() => undefined);
    return write;
  }

  /** `mayBeGone`: a missing file is no surprise (removed elsewhere), so it is not logged. */
  private async readBatch(file: string, mayBeGone = false): Promise<Batch | undefined> {
    try {
      const value = JSON.parse(await fs.readFile(file, 'utf8')) as Batch;
      if (value?.version === 1 && typeof value.id === 'string' && Array.isArray(value.rows) && typeof value.crewUrl === 'string') {
        return value;
      }
      this.logger.warn(`Batch file ${path.basename(file)} is not a batch; left alone.`);
    } catch (e) {
      if (mayBeGone && errorCode(e) === 'ENOENT') {
        return undefined;
      }
      this.logger.warn(`Could not read batch file ${path.basename(file)}: ${errorText(e)}`);
    }
    return undefined;
  }

  private async flagged(id: string, flag: 'cancel' | 'removed'): Promise<boolean> {
    try {
      await fs.access(this.flagPath(id, flag));
      return true;
    } catch {
      return false;
    }
  }

  private flagPath(id: string, flag: 'cancel' | 'removed'): string {
    return path.join(this.dir, `${id}.${flag}`);
  }

  private batchPath(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private outputsPath(id: string): string {
    return path.join(this.dir, `${id}.outputs.jsonl`);
  }
}
