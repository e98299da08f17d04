// The shared index of runs (VS Code's globalState, seen by every window): reading it defensively and
// merging one window's changes into the latest stored version. Pure functions, no I/O.

import type { RunRecord } from './model';

/** A removed run: no window may write it back, whatever stale copy it holds. */
export interface Tombstone {
  id: string;
  at: number;
}

/** Persisted under the index key. */
export interface StoredIndex {
  version: 1;
  runs: RunRecord[];
  tombstones?: Tombstone[];
}

export interface IndexView {
  runs: Map<string, RunRecord>;
  tombstones: Map<string, number>;
}

/** A window's pending change to one run: its record, or its removal. */
export type IndexChange = { id: string; record: RunRecord } | { id: string; removedAt: number };

/** Long enough for any window to have re-read the index (every 30 s, and on focus); bounded in number too. */
const TOMBSTONE_TTL_MS = 7 * 24 * 3_600_000;
const MAX_TOMBSTONES = 2_000;

export function readIndex(value: unknown, skipped: () => void = () => undefined): IndexView {
  const view: IndexView = { runs: new Map(), tombstones: new Map() };
  if (typeof value !== 'object' || value === null) {
    return view;
  }
  const stored = value as Partial<StoredIndex>;
  for (const t of Array.isArray(stored.tombstones) ? stored.tombstones : []) {
    if (typeof t?.id === 'string' && typeof t.at === 'number') {
      view.tombstones.set(t.id, t.at);
    }
  }
  for (const r of Array.isArray(stored.runs) ? stored.runs : []) {
    if (!isRecordShape(r)) {
      skipped();
    } else if (!view.tombstones.has(r.id)) {
      view.runs.set(r.id, { ...r, revision: typeof r.revision === 'number' ? r.revision : 0 });
    }
  }
  return view;
}

/** Which of two copies of a run is the truth: the higher revision; the stored one when equal. */
export function newer(stored: RunRecord | undefined, mine: RunRecord | undefined): RunRecord | undefined {
  if (!stored || !mine) {
    return stored ?? mine;
  }
  return mine.revision > stored.revision ? mine : stored;
}

/**
 * The index to store: the stored one with this window's changes on top. A removal always wins; a
 * record replaces the stored one only if it is not older (another window may have written meanwhile).
 */
export function mergeIndex(stored: IndexView, changes: IndexChange[], now: number): StoredIndex {
  const runs = new Map(stored.runs);
  const tombstones = new Map(stored.tombstones);
  for (const change of changes) {
    if ('removedAt' in change) {
      runs.delete(change.id);
      tombstones.set(change.id, change.removedAt);
    } else if (!tombstones.has(change.id) && newer(runs.get(change.id), change.record) === change.record) {
      runs.set(change.id, change.record);
    }
  }
  const kept = [...tombstones]
    .filter(([, at]) => now - at < TOMBSTONE_TTL_MS)
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_TOMBSTONES)
    .map(([id, at]) => ({ id, at }));
  return { version: 1, runs: [...runs.values()], tombstones: kept };
}

function isRecordShape(r: unknown): r is RunRecord {
  if (typeof r !== 'object' || r === null) {
    return false;
  }
  const x = r as Partial<RunRecord>;
  return typeof x.id === 'string' && typeof x.crewUrl === 'string' && typeof x.kickoffId === 'string' && typeof x.state === 'string' && Array.isArray(x.previousKickoffIds);
}

/** One run of the stored index, without reading the rest: its record, or that it was removed. */
export function findInIndex(value: unknown, id: string): { removed: boolean; record?: RunRecord } {
  const stored = (typeof value === 'object' && value !== null ? value : {}) as Partial<StoredIndex>;
  if (Array.isArray(stored.tombstones) && stored.tombstones.some((t) => t?.id === id)) {
    return { removed: true };
  }
  const found = Array.isArray(stored.runs) ? stored.runs.find((r) => (r as Partial<RunRecord> | undefined)?.id === id) : undefined;
  return { removed: false, record: isRecordShape(found) ? { ...found, revision: typeof found.revision === 'number' ? found.revision : 0 } : undefined };
}
