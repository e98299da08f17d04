// This window's side of the shared index: the changes it has not written yet, and writing them over
// the latest stored index (other windows' changes survive; a removal always wins), one write at a time.

import * as l10n from '@vscode/l10n';
import type { Clock } from '../util/clock';
import type { Logger, RunRecord } from './model';
import { findInIndex, type IndexChange, type IndexView, mergeIndex, readIndex } from './runIndex';

/** The part of VS Code's Memento the store needs. */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Promise<void>;
}

export class SharedIndex {
  /** This window's changes not yet in the stored index. */
  readonly pending = new Map<string, IndexChange>();
  /** Runs recorded here whose index write failed: kept in memory, their warning says so until saved. */
  readonly unsaved = new Set<string>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly kv: KeyValueStore,
    private readonly key: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  view(): IndexView & { legacyInputs?: Map<string, Record<string, string>> } {
    return readIndex(this.kv.get(this.key), () => this.logger.warn(l10n.t('Run index: skipped an entry that is not a run record.')));
  }

  find(id: string): { removed: boolean; record?: RunRecord } {
    return findInIndex(this.kv.get(this.key), id);
  }

  /**
   * Writes the pending changes. `adopt` is told, right after the write, of each run whose copy here lost
   * (another window wrote or removed it at the same moment, or its "not saved" warning is now cleared):
   * the record the index holds, or undefined when removed.
   */
  save(adopt: (id: string, winner: RunRecord | undefined) => void): Promise<void> {
    const write = this.chain.then(async () => {
      if (this.pending.size === 0) {
        return; // An earlier queued write already carried these changes.
      }
      const changes = [...this.pending.values()];
      // A run kept here after a failed save loses its "not saved" warning in the write that saves it.
      const toWrite = changes.map((c) => ('record' in c && this.unsaved.has(c.id) ? { id: c.id, record: { ...c.record, warning: undefined } } : c));
      const { index, runs: saved } = mergeIndex(this.view(), toWrite, this.clock.now());
      await this.kv.update(this.key, index);
      for (const c of changes) {
        if (this.pending.get(c.id) === c) {
          this.pending.delete(c.id);
        }
        this.unsaved.delete(c.id);
        const winner = saved.get(c.id);
        if ('record' in c && winner !== c.record && !this.pending.has(c.id)) {
          adopt(c.id, winner);
        }
      }
    });
    this.chain = write.catch(() => undefined);
    return write;
  }

  async idle(): Promise<void> {
    await this.chain;
  }
}
