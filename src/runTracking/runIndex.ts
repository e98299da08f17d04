// A run's summary in storage (StoredRun: short keys, bounded texts), as each run's record file holds it
// (recordFiles.ts), and the index older versions kept in globalState, read once to move it to those
// files (RunStore.load). Pure functions, no I/O.

import type { Progress } from '../api/types';
import type { RunRecord } from './model';

/** A run removed while the index was in globalState. */
interface Tombstone {
  id: string;
  at: number;
}

/**
 * What older versions kept in globalState under the index key: a summary per run (version 2), or whole
 * records with their inputs (version 1). Read once and moved to the runs' files (RunStore.load).
 */
export interface StoredIndex {
  version: 2;
  /** [url, name] pairs the runs point into, so a crew's URL is stored once, not once per run. */
  crews: [string, string][];
  runs: StoredRun[];
  tombstones?: Tombstone[];
}

/** A run's summary with short keys; times after the start are offsets from it; defaults are left out. */
export interface StoredRun {
  id: string;
  /** revision */ v: number;
  /** index into `crews` */ c: number;
  /** kickoff id */ k: string;
  /** earlier kickoff ids */ p?: string[];
  /** startedAt */ t: number;
  /** updatedAt − t */ u?: number;
  /** finishedAt − t */ f?: number;
  /** state */ s: RunRecord['state'];
  /** label */ l: string;
  /** watching */ w?: 1;
  /** stop reason */ r?: RunRecord['stopReason'];
  /** watchSince − t */ ws?: number;
  /** kickoffIdSince − t */ ks?: number;
  /** seen by the service */ sb?: 1;
  /** notFoundSince − t */ nf?: number;
  /** needs feedback */ fb?: 1;
  /** feedback inferred */ fi?: 1;
  /** message */ m?: string;
  /** warning */ x?: string;
  /** current task */ ct?: string;
  /** progress */ g?: Progress;
  /** task id for /resume */ ti?: string;
  /** batch source and row, 1 while the batch awaits the run's end, and 1 for a suite's case (#50) */ b?: [string, number] | [string, number, 0 | 1] | [string, number, 0 | 1, 1];
}

export interface IndexView {
  runs: Map<string, RunRecord>;
  tombstones: Map<string, number>;
}

/** Longest text kept in a summary per field (the run's details file and the run view have the whole of it). */
export const SUMMARY_LIMITS = { batchSource: 100, label: 60, crewName: 100, message: 160, warning: 300, currentTask: 100, taskId: 200, kickoffId: 200, previousKickoffIds: 10 } as const;

/** What was stored, decoded; `legacyInputs` are the inputs a version 1 index still held, to move to the runs' files. */
export function readIndex(value: unknown, skipped: () => void = () => undefined): IndexView & { legacyInputs?: Map<string, Record<string, string>> } {
  const view: IndexView & { legacyInputs?: Map<string, Record<string, string>> } = { runs: new Map(), tombstones: new Map() };
  if (typeof value !== 'object' || value === null) {
    return view;
  }
  const stored = value as Partial<StoredIndex> | { version: 1; runs?: unknown[]; tombstones?: unknown };
  for (const t of Array.isArray(stored.tombstones) ? (stored.tombstones as Partial<Tombstone>[]) : []) {
    if (typeof t?.id === 'string' && typeof t.at === 'number') {
      view.tombstones.set(t.id, t.at);
    }
  }
  const legacy = stored.version === 1 || stored.version === undefined;
  if (legacy) {
    view.legacyInputs = new Map();
  }
  const crews = Array.isArray((stored as Partial<StoredIndex>).crews) ? (stored as StoredIndex).crews : [];
  for (const entry of Array.isArray(stored.runs) ? (stored.runs as unknown[]) : []) {
    const record = legacy ? fromLegacy(entry, view.legacyInputs) : decodeRun(entry, crews);
    if (!record) {
      skipped();
    } else if (!view.tombstones.has(record.id)) {
      view.runs.set(record.id, record);
    }
  }
  return view;
}

/** The record as this window keeps it: bounded like the stored summary, keys in one order (to compare copies). */
export function canonical(r: RunRecord): RunRecord {
  const crews: [string, string][] = [];
  return decodeRun(encodeRun(r, crews), crews)!;
}

export function sameRun(a: RunRecord | undefined, b: RunRecord | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && JSON.stringify(canonical(a)) === JSON.stringify(canonical(b)));
}

export function encodeRun(r: RunRecord, crews: [string, string][]): StoredRun {
  const L = SUMMARY_LIMITS;
  const crewName = clip(r.crewName, L.crewName) ?? '';
  let c = crews.findIndex(([url, name]) => url === r.crewUrl && name === crewName);
  if (c < 0) {
    c = crews.push([r.crewUrl, crewName]) - 1;
  }
  const t = r.startedAt;
  const offset = (at: number | undefined) => (at === undefined ? undefined : at - t);
  const entry: StoredRun = {
    id: r.id,
    v: r.revision,
    c,
    k: r.kickoffId,
    p: r.previousKickoffIds.length ? r.previousKickoffIds.slice(-L.previousKickoffIds).map((k) => k.slice(0, L.kickoffId)) : undefined,
    t,
    u: offset(r.updatedAt) || undefined,
    f: offset(r.finishedAt),
    s: r.state,
    l: clip(r.label, L.label) ?? '',
    w: r.watching ? 1 : undefined,
    r: r.stopReason,
    ws: offset(r.watchSince) || undefined,
    ks: offset(r.kickoffIdSince) || undefined,
    sb: r.seenBySource ? 1 : undefined,
    nf: offset(r.notFoundSince),
    fb: r.needsFeedback ? 1 : undefined,
    fi: r.feedbackInferred ? 1 : undefined,
    m: clip(r.message, L.message),
    x: clip(r.warning, L.warning),
    ct: clip(r.currentTask, L.currentTask),
    g: r.progress && { unit: r.progress.unit, completed: r.progress.completed, total: r.progress.total, current: clip(r.progress.current, L.currentTask) },
    ti: clip(r.taskId, L.taskId),
    b: r.batch && batchEntry(clip(r.batch.source, L.batchSource) ?? '', r.batch),
  };
  return JSON.parse(JSON.stringify(entry)) as StoredRun; // Drops the undefined fields.
}

function batchEntry(source: string, batch: NonNullable<RunRecord['batch']>): NonNullable<StoredRun['b']> {
  const awaiting = batch.awaitingEnd ? 1 : 0;
  return batch.suite ? [source, batch.row, awaiting, 1] : awaiting ? [source, batch.row, 1] : [source, batch.row];
}

export function decodeRun(value: unknown, crews: [string, string][]): RunRecord | undefined {
  const e = value as Partial<StoredRun> | null;
  if (typeof e?.id !== 'string' || typeof e.k !== 'string' || typeof e.s !== 'string' || typeof e.t !== 'number' || typeof e.c !== 'number' || !crews[e.c]) {
    return undefined;
  }
  const t = e.t;
  // Built field by field, leaving out what is undefined (as JSON would): a JSON round trip per run was
  // most of the cost of loading a long history. Arrays and objects are copied: the record is this window's.
  const record: RunRecord = {
    id: e.id,
    revision: typeof e.v === 'number' ? e.v : 0,
    crewUrl: crews[e.c][0],
    crewName: crews[e.c][1],
    kickoffId: e.k,
    previousKickoffIds: Array.isArray(e.p) ? e.p.slice() : [],
    startedAt: t,
    updatedAt: t + (typeof e.u === 'number' ? e.u : 0),
    state: e.s,
    watching: e.w === 1,
    watchSince: t + (typeof e.ws === 'number' ? e.ws : 0),
    needsFeedback: e.fb === 1,
    label: typeof e.l === 'string' ? e.l : '',
    kickoffIdSince: t + (typeof e.ks === 'number' ? e.ks : 0),
    seenBySource: e.sb === 1,
  };
  if (typeof e.f === 'number') {
    record.finishedAt = t + e.f;
  }
  if (e.r !== undefined) {
    record.stopReason = e.r;
  }
  if (e.x !== undefined) {
    record.warning = e.x;
  }
  if (e.fi === 1) {
    record.feedbackInferred = true;
  }
  if (e.m !== undefined) {
    record.message = e.m;
  }
  if (e.g !== undefined) {
    record.progress = { ...e.g };
  }
  if (e.ct !== undefined) {
    record.currentTask = e.ct;
  }
  if (e.ti !== undefined) {
    record.taskId = e.ti;
  }
  if (typeof e.nf === 'number') {
    record.notFoundSince = t + e.nf;
  }
  if (Array.isArray(e.b) && typeof e.b[0] === 'string' && Number.isSafeInteger(e.b[1])) {
    record.batch = { source: e.b[0], row: e.b[1] };
    if (e.b[2] === 1) {
      record.batch.awaitingEnd = true;
    }
    if (e.b[3] === 1) {
      record.batch.suite = true;
    }
  }
  return record;
}

/** A version 1 entry (a whole record with its inputs): the inputs go to `inputs`, to be moved to the run's file. */
function fromLegacy(value: unknown, inputs: Map<string, Record<string, string>> | undefined): RunRecord | undefined {
  if (!isRecordShape(value)) {
    return undefined;
  }
  const { inputs: legacyInputs, ...rest } = value as RunRecord & { inputs?: Record<string, string> };
  if (legacyInputs && typeof legacyInputs === 'object') {
    inputs?.set(rest.id, legacyInputs);
  }
  return canonical({ ...rest, revision: typeof rest.revision === 'number' ? rest.revision : 0 });
}

function clip(text: string | undefined, max: number): string | undefined {
  return text === undefined || text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function isRecordShape(r: unknown): r is RunRecord {
  if (typeof r !== 'object' || r === null) {
    return false;
  }
  const x = r as Partial<RunRecord>;
  return typeof x.id === 'string' && typeof x.crewUrl === 'string' && typeof x.kickoffId === 'string' && typeof x.state === 'string' && Array.isArray(x.previousKickoffIds);
}
