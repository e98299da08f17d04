// The run model: a small summary per run kept in its record file (shown in every window), and the heavy
// details (outputs, raw body, history) kept in one details file per run and read only when opened.

import * as l10n from '@vscode/l10n';
import type { EventUsage, FinalOutput, Progress, RunState, StatusSnapshot, TaskOutput } from '../api/types';
import { FINAL_STATES } from '../api/types';
import { type Inputs, inputLine } from '../api/inputValues';

/** What meaningfully changed in a run between two polls (runTracking/changes.ts finds them; the reporter words them). */
export type RunChange =
  /** A task output the run had not seen; `retried`: a new output of a task seen before (feedback sent it back). */
  | { kind: 'taskFinished'; task: string; agent?: string; retried: boolean }
  /** More new task outputs than are named in one poll. */
  | { kind: 'moreTasksFinished'; count: number }
  /** The crew listed more tasks than a run keeps. */
  | { kind: 'tasksCapped'; listed: number; kept: number }
  | { kind: 'progress'; unit: Progress['unit']; completed: number; total: number | null }
  /**
   * The run's state. `feedbackTask`: the task waiting for review; `rawState`: the service's word for an
   * unfamiliar state; `message`: the store's account of a run the server forgot (a bare HTTP 404).
   */
  | { kind: 'state'; state: RunState; rawState?: string; feedbackTask?: string; message?: string }
  | { kind: 'working'; task: string; agent?: string }
  | { kind: 'error'; text: string };

/** Why a run that has not ended is no longer watched. */
export type StopReason =
  /** The watch deadline passed: the run may still be going. */
  | 'deadline'
  /** The user chose Stop Watching. */
  | 'user'
  /** The service has not known the run for too long ("unknown or expired"). */
  | 'expired'
  /** The crew's token was refused; resumes once a token is supplied. */
  | 'unauthorized'
  /** No token is stored for the crew (forgotten, or the crew removed); resumes once one is. */
  | 'noToken';

export interface RunRecord {
  /** Local, stable id (uuid): survives the kickoff id changing on resume. */
  id: string;
  /**
   * Bumped by every write. A window applies a change to the latest stored version, and applies a status
   * it polled only if the revision is still the one it polled (see RunStore). 0 for records from before.
   */
  revision: number;
  /** Normalised base URL: the crew's identity. */
  crewUrl: string;
  /** The crew's display name when the run started. */
  crewName: string;
  kickoffId: string;
  /** Earlier kickoff ids of this run, oldest first (a resume may continue under a new id). */
  previousKickoffIds: string[];
  /** Epoch milliseconds, like every time in this model. */
  startedAt: number;
  /** Last time anything in the record or its details changed. */
  updatedAt: number;
  finishedAt?: number;
  state: RunState;
  /** False after the watch deadline, Stop Watching, a refused token, expiry or a final state. */
  watching: boolean;
  stopReason?: StopReason;
  /** When the current watch began (start, resume of watching, or a resume with feedback): the deadline counts from here. */
  watchSince: number;
  /** Latest transient problem in plain words; cleared on the next successful check. */
  warning?: string;
  needsFeedback: boolean;
  /** The feedback wait was inferred (the service stopped listing a running run), not reported. */
  feedbackInferred?: boolean;
  message?: string;
  progress?: Progress;
  currentTask?: string;
  /** Short label for lists, from the inputs or the start time. */
  label: string;
  /** Task id remembered for /resume. */
  taskId?: string;
  /** Set when the run is a row of a batch: the tree says which, and the batch, not the row, notifies. */
  batch?: BatchOrigin;
  /** When the current kickoff id was assigned: the NOT FOUND grace period counts from here. */
  kickoffIdSince: number;
  /** The service has reported a real state (not NOT FOUND) for the current kickoff id. */
  seenBySource: boolean;
  /** First NOT FOUND of the current streak; cleared by any other state. */
  notFoundSince?: number;
}

export interface StateChange {
  state: RunState;
  at: number;
  message?: string;
  /** Set when this entry records the run moving on to another task (the state may be unchanged). */
  task?: string;
}

export interface FeedbackRound {
  at: number;
  approve: boolean;
  feedback: string;
  taskId: string;
  /** The output the human reviewed. */
  output?: string;
}

export interface RunDetails {
  /** What the run was started with (absent in files written before inputs moved out of the old shared index). */
  inputs?: Inputs;
  lastSnapshot?: StatusSnapshot;
  /** Every task output seen so far (live bodies only carry the latest one). */
  tasks: TaskOutput[];
  /** The timeline: its first entry and the newest (MAX_HISTORY in all, see snapshotFold.ts). */
  history: StateChange[];
  /** Timeline entries dropped between the first and the newest. */
  historyOmitted?: number;
  finalOutput?: FinalOutput;
  error?: string;
  feedbackRounds: FeedbackRound[];
  /** Feedback typed but not sent (the request failed): offered again, also after a reload. */
  feedbackDraft?: FeedbackDraft;
  /** The run's event log on disk (eventFiles.ts): events it holds, and events over its cap (counted, not kept). */
  events?: EventCounts;
}

export interface EventCounts {
  kept: number;
  dropped: number;
  /**
   * Tokens of the model calls seen, by model name ('' where the event named none): what a cost is estimated from
   * without reading the events (batch results, the tree).
   */
  byModel?: Record<string, EventUsage>;
}

export interface FeedbackDraft {
  text: string;
  at: number;
  /** Why it was not sent, in a word or two. */
  problem?: string;
  /** The feedback round it was written for (sendResume.ts `roundOf`); offered in that round only. */
  round?: number;
}

/** What the caller knows the moment a kickoff id arrives. */
/** Which batch row a run is: the batch's source file name and the row's number (1-based). */
export interface BatchOrigin {
  source: string;
  row: number;
  /**
   * Set from the kickoff until the batch has recorded the run's end: the history cap keeps the run, in every
   * window, however stale that window's copy of the batch (RunStore.batchEndRecorded clears it).
   */
  awaitingEnd?: boolean;
  /** A case of a test suite (src/suites/): `source` names the suite and the case, `row` its place in the suite's run. */
  suite?: boolean;
}

export interface NewRun {
  /** Its local id when chosen before the kickoff (the kickoff's send-once mark is named by it); else a new one. */
  id?: string;
  crewUrl: string;
  crewName: string;
  kickoffId: string;
  inputs: Inputs;
  batch?: BatchOrigin;
  /** Defaults to now. */
  startedAt?: number;
}

export function emptyDetails(): RunDetails {
  return { tasks: [], history: [], feedbackRounds: [] };
}

export function isFinished(run: Pick<RunRecord, 'state'>): boolean {
  return FINAL_STATES.has(run.state);
}

/** A run the poller should be checking. */
export function isActive(run: Pick<RunRecord, 'state' | 'watching'>): boolean {
  return run.watching && !isFinished(run);
}

/** May be dropped by the history cap: it ended, or the service no longer knows it. */
export function isDisposable(run: Pick<RunRecord, 'state' | 'stopReason' | 'watching'>): boolean {
  return isFinished(run) || (!run.watching && run.stopReason === 'expired');
}

const LABEL_MAX = 40;
/** How many values a structured input is searched through for its first text, breadth first. */
const LABEL_SEARCH_NODES = 200;

function firstTextInside(value: object): string | undefined {
  const queue: unknown[] = [value];
  for (let seen = 0; seen < queue.length && seen < LABEL_SEARCH_NODES; seen++) {
    const next = queue[seen];
    if (typeof next === 'string' && next.trim()) {
      return next;
    }
    if (typeof next === 'object' && next !== null) {
      queue.push(...Object.values(next).slice(0, LABEL_SEARCH_NODES));
    }
  }
  return undefined;
}

export function runLabel(inputs: Inputs, startedAt: number): string {
  for (const value of Object.values(inputs)) {
    // A structured value names the run by the first text inside it: raw JSON reads badly in a tree or a tab.
    const source = typeof value === 'object' && value !== null ? firstTextInside(value) : inputLine(value);
    // Labels reach the tree, panel titles and log lines: no control characters (ANSI escapes) there.
    const text = (source ?? '').replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
    if (text) {
      return text.length > LABEL_MAX ? `${text.slice(0, LABEL_MAX - 1).trimEnd()}…` : text;
    }
  }
  const t = new Date(startedAt);
  const pad = (n: number) => String(n).padStart(2, '0');
  return l10n.t('Run of {0}', `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${pad(t.getHours())}:${pad(t.getMinutes())}`);
}
