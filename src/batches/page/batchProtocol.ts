// Messages between the batch results view and the extension, and the table the page shows. Shared
// by both sides (no `vscode` here): every message from the page is validated before it is used.

import { isPlainObject } from '../../util/objects';

export interface ResultRow {
  /** 0-based row in the source table. */
  index: number;
  inputs: Record<string, string>;
  /** Sort and filter key: a RunState, or what happened to a row that has no run. */
  stateKey: string;
  /** The state in words. */
  state: string;
  durationMs?: number;
  tokens?: number;
  /** Estimated cost in US dollars (prices from the settings); undefined when nothing could be priced. */
  costUsd?: number;
  /** The start of the run's output, one line. */
  output?: string;
  /** Why the row did not succeed: its run's error, or why it was not sent (lines kept, capped). */
  error?: string;
  note?: string;
  hasRun: boolean;
}

export interface BatchTable {
  title: string;
  progress: string;
  inputColumns: string[];
  rows: ResultRow[];
  canRerunFailed: boolean;
  /** Sums over every row (not just those shown). `costPartial`: some tokens had no price, the cost is a floor. */
  totals: { durationMs: number; tokens: number; costUsd?: number; costPartial: boolean };
}

/** Words the page shows, already in the user's language. */
export interface BatchPageStrings {
  filter: string;
  allStates: string;
  row: string;
  state: string;
  duration: string;
  tokens: string;
  cost: string;
  /** `{0}` duration, `{1}` tokens. */
  totals: string;
  /** `{0}`: an amount. */
  totalsCost: string;
  costPartial: string;
  output: string;
  error: string;
  /** The Error cell's tooltip: what a click does. */
  errorExpand: string;
  exportJsonl: string;
  exportCsv: string;
  rerunFailed: string;
  compare: string;
  empty: string;
  shown: string;
}

export type BatchHostMessage = { type: 'init'; strings: BatchPageStrings; table: BatchTable } | { type: 'table'; table: BatchTable };

export type BatchPageAction = 'exportJsonl' | 'exportCsv' | 'rerunFailed' | 'compare';

export interface BatchPageReport {
  rowsRendered: number;
  /** Milliseconds the page took to build the table. */
  renderMs: number;
  sortedBy?: string;
  filter?: string;
}

export type BatchPageMessage =
  | { type: 'ready' }
  | { type: 'openRun'; index: number }
  | { type: 'action'; action: BatchPageAction }
  | { type: 'rendered'; report: BatchPageReport };

const ACTIONS: readonly BatchPageAction[] = ['exportJsonl', 'exportCsv', 'rerunFailed', 'compare'];
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 1_000_000;

/** The page's message, or undefined for anything malformed or unknown (ignored). */
export function parseBatchPageMessage(value: unknown): BatchPageMessage | undefined {
  if (!isPlainObject(value) || typeof value.type !== 'string') {
    return undefined;
  }
  switch (value.type) {
    case 'ready':
      return { type: 'ready' };
    case 'openRun':
      return isCount(value.index) ? { type: 'openRun', index: value.index } : undefined;
    case 'action':
      return typeof value.action === 'string' && (ACTIONS as readonly string[]).includes(value.action) ? { type: 'action', action: value.action as BatchPageAction } : undefined;
    case 'rendered': {
      const r = value.report;
      if (!isPlainObject(r) || !isCount(r.rowsRendered) || typeof r.renderMs !== 'number' || !Number.isFinite(r.renderMs)) {
        return undefined;
      }
      const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : undefined);
      return { type: 'rendered', report: { rowsRendered: r.rowsRendered, renderMs: r.renderMs, sortedBy: text(r.sortedBy), filter: text(r.filter) } };
    }
    default:
      return undefined;
  }
}

export type SortKey = 'row' | 'state' | 'error' | 'duration' | 'tokens' | 'cost' | 'output' | `input:${string}`;

/** The Error cell's text: the reason's first line that says something (the rest is a click or a hover away). */
export function firstLine(text: string): string {
  return text.split('\n').map((line) => line.trim()).find(Boolean) ?? '';
}

/** Rows matching the filter (any input, the state, the error or the output contains it, case-insensitive) and the state. */
export function filterRows(rows: ResultRow[], text: string, stateKey: string): ResultRow[] {
  const needle = text.trim().toLowerCase();
  return rows.filter(
    (r) =>
      (!stateKey || r.stateKey === stateKey) &&
      (!needle || [r.state, r.output ?? '', r.error ?? '', r.note ?? '', ...Object.values(r.inputs)].some((v) => v.toLowerCase().includes(needle))),
  );
}

export function sortRows(rows: ResultRow[], key: SortKey, descending: boolean): ResultRow[] {
  const value = (r: ResultRow): string | number => {
    switch (key) {
      case 'row':
        return r.index;
      case 'state':
        return r.state;
      case 'duration':
        return r.durationMs ?? -1;
      case 'tokens':
        return r.tokens ?? -1;
      case 'cost':
        return r.costUsd ?? -1;
      case 'error':
        return r.error ?? '';
      case 'output':
        return r.output ?? '';
      default:
        return r.inputs[key.slice('input:'.length)] ?? '';
    }
  };
  const sorted = [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return order || a.index - b.index;
  });
  return descending ? sorted.reverse() : sorted;
}
