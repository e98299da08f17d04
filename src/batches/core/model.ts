// A batch: one crew run per row of a table of inputs. The record (rows, what was sent, results in
// brief) is one JSON file per batch under the extension's storage; full outputs go to a second,
// append-only file. Pure: no `vscode` here.
import type { Inputs } from '../../api/inputValues';
import type { EventUsage, RunState } from '../../api/types';
import { FINAL_STATES } from '../../api/types';
import { stripControls } from '../../util/inertText';

export type RowStatus =
  /** Waiting to be sent. */
  | 'queued'
  /** Missing a required input (or a value too long): listed before sending, never sent. */
  | 'skipped'
  /** Marked durably before its POST /kickoff: if the window goes now, nobody knows whether it started. */
  | 'sending'
  /** The crew answered with a kickoff id: a run exists. */
  | 'sent'
  /** Its kickoff was in flight when the window went, or the request failed in a way that may have started it. */
  | 'unknown'
  /** The crew refused the kickoff: nothing started. */
  | 'notSent'
  /** Cancel Batch came before it was sent. */
  | 'cancelled';

export interface RowResult {
  state: RunState;
  finishedAt?: number;
  durationMs?: number;
  totalTokens?: number;
  /** Tokens by model name, for the cost estimate ('' where the crew named no model). */
  usageByModel?: Record<string, EventUsage>;
  /** The first characters of the output, one line (the full output is in the outputs file). */
  outputPreview?: string;
  error?: string;
}

export interface BatchRow {
  /** 0-based position in the source table. */
  index: number;
  inputs: Inputs;
  status: RowStatus;
  /** Why a row was skipped, not sent or is unknown, in plain words. */
  note?: string;
  runId?: string;
  kickoffId?: string;
  sentAt?: number;
  result?: RowResult;
}

export interface Batch {
  version: 1;
  id: string;
  crewUrl: string;
  crewName: string;
  /** The source's file name (no path), for labels. */
  source: string;
  createdAt: number;
  /** GET /inputs when the batch was made (undefined: the crew did not tell). */
  inputNames?: string[];
  concurrency: number;
  cancelled: boolean;
  /** Why sending stopped with rows still queued (the crew cannot take them now); Resume clears it. */
  paused?: string;
  /** The batch whose failed rows this one runs again. */
  rerunOf?: string;
  rows: BatchRow[];
}

export interface BatchProgress {
  /** Rows to run (not skipped). */
  total: number;
  /** Rows that reached an end: a final run state, not sent, unknown or cancelled. */
  done: number;
  failed: number;
  unknown: number;
  cancelled: number;
  /** Sent, run not ended yet. */
  running: number;
  queued: number;
  finished: boolean;
}

export function rowEnded(row: BatchRow): boolean {
  if (row.status === 'sent') {
    return row.result !== undefined && FINAL_STATES.has(row.result.state);
  }
  return row.status !== 'queued' && row.status !== 'sending';
}

export function rowFailed(row: BatchRow): boolean {
  return row.status === 'notSent' || (row.status === 'sent' && row.result?.state === 'failed');
}

export function batchProgress(batch: Batch): BatchProgress {
  const rows = batch.rows.filter((r) => r.status !== 'skipped');
  const count = (test: (r: BatchRow) => boolean) => rows.filter(test).length;
  const done = count(rowEnded);
  return {
    total: rows.length,
    done,
    failed: count(rowFailed),
    unknown: count((r) => r.status === 'unknown'),
    cancelled: count((r) => r.status === 'cancelled' || (r.status === 'sent' && r.result?.state === 'cancelled')),
    running: count((r) => r.status === 'sending' || (r.status === 'sent' && !rowEnded(r))),
    queued: count((r) => r.status === 'queued'),
    finished: done === rows.length,
  };
}

/** `37/120 · 2 failed · 1 unknown`: the numbers are the same in every language; the words are passed in. */
export function progressLabel(p: BatchProgress, words: { failed: string; unknown: string; cancelled: string }): string {
  return [
    `${p.done}/${p.total}`,
    p.failed ? `${p.failed} ${words.failed}` : '',
    p.unknown ? `${p.unknown} ${words.unknown}` : '',
    p.cancelled ? `${p.cancelled} ${words.cancelled}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The rows Re-run Failed Rows sends again: failed runs and refused kickoffs (never unknown ones). */
export function failedRows(batch: Batch): BatchRow[] {
  return batch.rows.filter(rowFailed);
}

/** A Re-run Failed Rows of this batch still sending or running: a second one would send the same rows twice. */
export function unfinishedRerunOf(batches: Batch[], sourceId: string): Batch | undefined {
  return batches.find((b) => b.rerunOf === sourceId && !batchProgress(b).finished);
}

const PREVIEW_CHARS = 200;

export function outputPreview(text: string | undefined): string | undefined {
  if (text === undefined) {
    return undefined;
  }
  // Shown in tables and tooltips: one line, no control or bidi characters.
  const line = stripControls(text).replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}
