// The run view's message protocol and view model, shared by the extension host (runPanel.ts) and the
// page (runView.ts). Pure: no `vscode`, no DOM, so it is unit-tested in plain Node.
//
// The host turns a run (RunRecord + RunDetails) into a RunView, sends it whole once (`init`), then
// only what changed (`update`, built by diffViews). Long outputs travel in segments: a preview in
// the view, the rest on request (`loadMore` → `outputChunk`), so no message is ever huge.

import type { AgentStep, Progress, RunState } from '../../api/types';
import type { FeedbackRound, RunDetails, RunRecord, StateChange, StopReason } from '../../runs/model';

// ---- limits ----

/** Target size of one output segment (characters). */
export const SEGMENT_TARGET = 128 * 1024;
/** A segment is cut here even without a good boundary. */
export const SEGMENT_MAX = 256 * 1024;
/** How much of the final output the view carries up front. */
export const FINAL_PREVIEW = 200 * 1024;
/** How much of each task output the view carries up front. */
export const TASK_PREVIEW = 64 * 1024;
/** Agent step fields, feedback texts and the reviewed outputs in feedback rounds are cut to this. */
export const FIELD_MAX = 16 * 1024;
/** The raw status JSON shown in the page is cut to this. */
export const RAW_MAX = 512 * 1024;

// ---- view model ----

export type OutputTarget = 'final' | number;

export interface OutputView {
  /** `markdown` renders as Markdown; `json` as pretty-printed text. */
  kind: 'markdown' | 'json';
  /** Length of the whole text in characters. */
  length: number;
  segmentCount: number;
  /** The first `previewSegments` segments, joined (already prefixed where a segment needs it). */
  preview: string;
  previewSegments: number;
  /** Changes whenever the text does; a `loadMore` names it so stale requests are ignored. */
  key: string;
}

export interface TaskView {
  name: string;
  agent?: string;
  description?: string;
  attempt?: number;
  executionTime?: number;
  taskId?: string;
  output: OutputView;
}

export interface FeedbackRoundView {
  at: number;
  approve: boolean;
  feedback: string;
  taskId: string;
  output?: string;
  outputTruncated?: boolean;
}

/** Everything in the header and the small sections: compared key by key. */
export interface RunSummary {
  runId: string;
  crewName: string;
  crewUrl: string;
  kickoffId: string;
  previousKickoffIds: string[];
  label: string;
  inputs: Record<string, string>;
  startedAt: number;
  finishedAt?: number;
  updatedAt: number;
  state: RunState;
  message?: string;
  warning?: string;
  watching: boolean;
  stopReason?: StopReason;
  needsFeedback: boolean;
  feedbackInferred?: boolean;
  feedbackTask?: string;
  progress?: Progress;
  currentTask?: string;
  currentAgent?: string;
  lastStep?: AgentStep;
  usage?: Record<string, number>;
  /** Usage keys and tasks left out of the page (over MAX_SHOWN_USAGE / MAX_SHOWN_TASKS). */
  usageHidden?: number;
  tasksHidden?: number;
  error?: string;
  hasRaw: boolean;
  /** False once the run left the store: actions are then disabled. */
  exists: boolean;
}

export interface RunView {
  summary: RunSummary;
  history: StateChange[];
  tasks: TaskView[];
  final: OutputView | null;
  feedbackRounds: FeedbackRoundView[];
}

/** A list change: drop everything from `from` on, then append `items`. */
export interface ListPatch<T> {
  from: number;
  items: T[];
}

export interface ViewPatch {
  set?: Partial<RunSummary>;
  unset?: (keyof RunSummary)[];
  history?: ListPatch<StateChange>;
  tasks?: ListPatch<TaskView>;
  /** Present when the final output appeared or changed (null: it went away). */
  final?: OutputView | null;
  feedbackRounds?: ListPatch<FeedbackRoundView>;
}

// ---- messages ----

/** Host → page. */
export type HostMessage =
  | { type: 'init'; strings: PageStrings; view: RunView; now: number }
  | { type: 'update'; patch: ViewPatch; now: number }
  | { type: 'outputChunk'; target: OutputTarget; key: string; segment: number; text: string; last: boolean }
  | { type: 'raw'; text: string; truncated: boolean; length: number }
  /** Renders the whole final output, as the Show All button does. */
  | { type: 'showAll' };

export type PageAction =
  | 'copyOutput'
  | 'saveOutputAs'
  | 'openOutputInEditor'
  | 'compareOutput'
  | 'runAgain'
  | 'giveFeedback'
  | 'copyKickoffId';

export const PAGE_ACTIONS: readonly PageAction[] = [
  'copyOutput',
  'saveOutputAs',
  'openOutputInEditor',
  'compareOutput',
  'runAgain',
  'giveFeedback',
  'copyKickoffId',
];

/** What the page reports after every render, for tests and diagnostics. */
export interface PageReport {
  /** Text of the state badge. */
  stateText: string;
  message: string;
  elapsedText: string;
  progressText: string;
  currentTask: string;
  taskSections: number;
  hasFinalOutput: boolean;
  /** Characters of text rendered in the final output container. */
  finalOutputTextLength: number;
  /** All segments of the final output are rendered. */
  finalOutputComplete: boolean;
  hasError: boolean;
  timelineEntries: number;
  feedbackRounds: number;
  /** `<script>` elements found inside output containers (must be 0). */
  scriptElements: number;
  /** Attributes named on* inside output containers (must be 0). */
  eventHandlerAttributes: number;
  /** Elements carrying a style attribute or <style>/<iframe>/<object>/<embed>/<svg>/<img> inside output containers (must be 0). */
  unsafeElements: number;
  /** Links inside output containers. */
  links: number;
  /** Of those, links whose href is not http(s) (must be 0). */
  unsafeLinks: number;
  /** Milliseconds the last render took. */
  renderMs: number;
  /** Messages from the host handled so far. */
  messagesHandled: number;
}

/** Page → host. */
export type PageMessage =
  | { type: 'ready' }
  | { type: 'rendered'; report: PageReport }
  | { type: 'action'; action: PageAction }
  | { type: 'openLink'; href: string }
  | { type: 'loadMore'; target: OutputTarget; key: string; segment: number }
  | { type: 'openTaskOutput'; index: number }
  | { type: 'requestRaw' }
  | { type: 'copyFinalJson' };

const REPORT_NUMBERS = [
  'taskSections',
  'finalOutputTextLength',
  'timelineEntries',
  'feedbackRounds',
  'scriptElements',
  'eventHandlerAttributes',
  'unsafeElements',
  'links',
  'unsafeLinks',
  'renderMs',
  'messagesHandled',
] as const;
const REPORT_STRINGS = ['stateText', 'message', 'elapsedText', 'progressText', 'currentTask'] as const;
const REPORT_BOOLEANS = ['hasFinalOutput', 'finalOutputComplete', 'hasError'] as const;
const MAX_REPORT_STRING = 4096;
const MAX_HREF = 8192;
const MAX_KEY = 256;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isTarget(value: unknown): value is OutputTarget {
  return value === 'final' || (Number.isInteger(value) && (value as number) >= 0 && (value as number) < 100_000);
}

/**
 * Validates a message from the page: only known types with fields of the right types pass; the
 * result is a fresh object holding only those fields. Anything else returns undefined.
 */
export function parsePageMessage(value: unknown): PageMessage | undefined {
  if (!isObject(value) || typeof value.type !== 'string') {
    return undefined;
  }
  switch (value.type) {
    case 'ready':
    case 'requestRaw':
    case 'copyFinalJson':
      return { type: value.type };
    case 'action':
      return typeof value.action === 'string' && (PAGE_ACTIONS as readonly string[]).includes(value.action)
        ? { type: 'action', action: value.action as PageAction }
        : undefined;
    case 'openTaskOutput':
      return Number.isInteger(value.index) && (value.index as number) >= 0 ? { type: 'openTaskOutput', index: value.index as number } : undefined;
    case 'openLink':
      return typeof value.href === 'string' && value.href.length <= MAX_HREF ? { type: 'openLink', href: value.href } : undefined;
    case 'loadMore':
      return isTarget(value.target) && typeof value.key === 'string' && value.key.length <= MAX_KEY && Number.isInteger(value.segment) && (value.segment as number) >= 0
        ? { type: 'loadMore', target: value.target, key: value.key, segment: value.segment as number }
        : undefined;
    case 'rendered': {
      const report = parseReport(value.report);
      return report ? { type: 'rendered', report } : undefined;
    }
    default:
      return undefined;
  }
}

function parseReport(value: unknown): PageReport | undefined {
  if (!isObject(value)) {
    return undefined;
  }
  const report: Record<string, unknown> = {};
  for (const key of REPORT_NUMBERS) {
    if (!isCount(value[key])) {
      return undefined;
    }
    report[key] = value[key];
  }
  for (const key of REPORT_STRINGS) {
    if (typeof value[key] !== 'string') {
      return undefined;
    }
    report[key] = (value[key] as string).slice(0, MAX_REPORT_STRING);
  }
  for (const key of REPORT_BOOLEANS) {
    if (typeof value[key] !== 'boolean') {
      return undefined;
    }
    report[key] = value[key];
  }
  return report as unknown as PageReport;
}

/** Only absolute http(s) URLs are links, in the page and again in the host. */
export function isSafeLink(href: string): boolean {
  const trimmed = href.trim();
  if (!/^https?:\/\//i.test(trimmed)) {
    return false;
  }
  try {
    const url = new URL(trimmed);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

// ---- segments ----

export interface Segment {
  start: number;
  end: number;
  /** A fence opener to put first: the segment starts inside a fenced code block cut in two. */
  prefix?: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Cuts text into segments of about `target` characters. Markdown is cut at blank lines outside
 * fenced code; when no such line comes before `max`, at a line end (a fence cut in two is reopened
 * in the next segment), else anywhere. Plain text is cut at line ends.
 */
export function segmentText(text: string, kind: 'markdown' | 'json', target = SEGMENT_TARGET, max = SEGMENT_MAX): Segment[] {
  if (text.length <= target) {
    return [{ start: 0, end: text.length }];
  }
  const segments: Segment[] = [];
  let start = 0;
  let prefix: string | undefined;
  let fence: { marker: string; opener: string } | undefined;
  let lastBlank = -1; // End (exclusive) of the last blank line outside fences in this segment.
  let lastLineEnd = -1;
  let fenceAtLastLineEnd: typeof fence;
  let pos = 0;
  const cut = (end: number, openFence: typeof fence) => {
    segments.push(prefix === undefined ? { start, end } : { start, end, prefix });
    start = end;
    prefix = openFence ? `${openFence.opener}\n` : undefined;
    lastBlank = -1;
    if (lastLineEnd <= end) {
      lastLineEnd = -1;
    }
  };
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    const lineEnd = nl < 0 ? text.length : nl + 1;
    if (nl < 0) {
      nl = text.length;
    }
    if (lineEnd - start > max) {
      // This line would overflow the segment: cut before it, or inside it when it alone is too long.
      if (lastBlank > start) {
        cut(lastBlank, undefined);
      } else if (lastLineEnd > start) {
        cut(lastLineEnd, fenceAtLastLineEnd);
      } else {
        cut(start + max, kind === 'markdown' ? fence : undefined);
      }
      continue;
    }
    if (kind === 'markdown') {
      const line = text.slice(pos, nl);
      const m = FENCE.exec(line);
      if (fence) {
        if (m && m[1][0] === fence.marker[0] && m[1].length >= fence.marker.length && m[2].trim() === '') {
          fence = undefined;
        }
      } else if (m && !(m[1][0] === '`' && m[2].includes('`'))) {
        fence = { marker: m[1], opener: line.replace(/^ +/, '') };
      }
      if (!fence && line.trim() === '' && lineEnd - start >= target) {
        cut(lineEnd, undefined);
        pos = lineEnd;
        continue;
      }
      if (!fence && line.trim() === '') {
        lastBlank = lineEnd;
      }
    } else if (lineEnd - start >= target) {
      cut(lineEnd, undefined);
      pos = lineEnd;
      continue;
    }
    lastLineEnd = lineEnd;
    fenceAtLastLineEnd = fence;
    pos = lineEnd;
  }
  if (start < text.length) {
    segments.push(prefix === undefined ? { start, end: text.length } : { start, end: text.length, prefix });
  }
  return segments;
}

export function segmentContent(text: string, segment: Segment): string {
  return (segment.prefix ?? '') + text.slice(segment.start, segment.end);
}

/** Cheap identity of a text: its length and samples, enough to notice a changed output. */
export function textKey(text: string): string {
  let hash = 2166136261;
  const step = Math.max(1, Math.floor(text.length / 4096));
  for (let i = 0; i < text.length; i += step) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  }
  const tail = text.length > 64 ? text.slice(-64) : text;
  for (let i = 0; i < tail.length; i++) {
    hash = Math.imul(hash ^ tail.charCodeAt(i), 16777619);
  }
  return `${text.length.toString(36)}-${(hash >>> 0).toString(36)}`;
}

/** Segments of the texts seen lately, so repeated views and loadMore calls do not cut again. */
export class SegmentCache {
  private entries = new Map<string, Segment[]>();

  constructor(private readonly capacity = 64) {}

  get(text: string, kind: 'markdown' | 'json'): { key: string; segments: Segment[] } {
    const key = `${kind[0]}${textKey(text)}`;
    let segments = this.entries.get(key);
    if (segments) {
      this.entries.delete(key);
    } else {
      segments = segmentText(text, kind);
    }
    this.entries.set(key, segments);
    while (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    return { key, segments };
  }
}

export function outputView(text: string, kind: 'markdown' | 'json', previewBudget: number, cache: SegmentCache): OutputView {
  const { key, segments } = cache.get(text, kind);
  let previewSegments = 0;
  let preview = '';
  while (previewSegments < segments.length && (previewSegments === 0 || preview.length + segments[previewSegments].end - segments[previewSegments].start <= previewBudget)) {
    preview += segmentContent(text, segments[previewSegments]);
    previewSegments++;
  }
  return { kind, length: text.length, segmentCount: segments.length, preview, previewSegments, key };
}

function cut(text: string | undefined, max = FIELD_MAX): string | undefined {
  if (text === undefined || text === null) {
    return undefined;
  }
  const s = String(text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function cutStep(step: AgentStep | undefined): AgentStep | undefined {
  if (!step) {
    return undefined;
  }
  const out: AgentStep = {};
  for (const key of ['prompt', 'thought', 'action', 'tool', 'toolInput', 'result'] as const) {
    const value = cut(step[key]);
    if (value !== undefined && value !== '') {
      out[key] = value;
    }
  }
  return Object.keys(out).length ? out : undefined;
}

function dropUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) {
      delete value[key];
    }
  }
  return value;
}

/** The view of a run; `record` undefined when the run left the store (the last view is kept, marked gone). */
/** What the page shows at most: a crew may list tens of thousands of tasks or usage keys (the raw JSON has all). */
export const MAX_SHOWN_TASKS = 200;
export const MAX_SHOWN_USAGE = 100;

export function buildView(record: RunRecord, details: RunDetails, cache: SegmentCache): RunView {
  const snap = details.lastSnapshot;
  const usageEntries = Object.entries(snap?.usage ?? {});
  const summary: RunSummary = dropUndefined({
    runId: record.id,
    crewName: record.crewName,
    crewUrl: record.crewUrl,
    kickoffId: record.kickoffId,
    previousKickoffIds: [...record.previousKickoffIds],
    label: record.label,
    inputs: { ...details.inputs },
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    updatedAt: record.updatedAt,
    state: record.state,
    message: cut(record.message),
    warning: cut(record.warning),
    watching: record.watching,
    stopReason: record.stopReason,
    needsFeedback: record.needsFeedback,
    feedbackInferred: record.feedbackInferred,
    feedbackTask: record.needsFeedback ? cut(snap?.feedback?.taskName ?? snap?.lastTask?.name, 1024) : undefined,
    progress: record.progress ?? snap?.progress,
    currentTask: cut(record.currentTask ?? snap?.currentTask, 1024),
    currentAgent: cut(snap?.currentAgent ?? snap?.progress?.currentAgent, 1024),
    lastStep: cutStep(snap?.lastStep),
    usage: usageEntries.length ? Object.fromEntries(usageEntries.slice(0, MAX_SHOWN_USAGE)) : undefined,
    usageHidden: usageEntries.length > MAX_SHOWN_USAGE ? usageEntries.length - MAX_SHOWN_USAGE : undefined,
    tasksHidden: details.tasks.length > MAX_SHOWN_TASKS ? details.tasks.length - MAX_SHOWN_TASKS : undefined,
    error: cut(details.error ?? snap?.error, 64 * 1024),
    hasRaw: snap !== undefined && snap.raw !== undefined,
    exists: true,
  });
  const final = details.finalOutput;
  return {
    summary,
    history: details.history.map((h) => dropUndefined({ state: h.state, at: h.at, message: cut(h.message, 2048) })),
    tasks: details.tasks.slice(0, MAX_SHOWN_TASKS).map((t) =>
      dropUndefined({
        name: cut(t.name, 1024) ?? '',
        agent: cut(t.agent, 1024),
        description: cut(t.description, 4096),
        attempt: t.attempt,
        executionTime: t.executionTime,
        taskId: t.taskId,
        output: outputView(String(t.output ?? ''), 'markdown', TASK_PREVIEW, cache),
      }),
    ),
    final: final ? outputView(String(final.text ?? ''), final.kind === 'json' ? 'json' : 'markdown', FINAL_PREVIEW, cache) : null,
    feedbackRounds: details.feedbackRounds.map((r: FeedbackRound) => {
      const output = cut(r.output);
      return dropUndefined({
        at: r.at,
        approve: r.approve,
        feedback: cut(r.feedback) ?? '',
        taskId: r.taskId,
        output,
        outputTruncated: r.output !== undefined && r.output.length > FIELD_MAX ? true : undefined,
      });
    }),
  };
}

// ---- diffing ----

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function taskSame(a: TaskView, b: TaskView): boolean {
  const { output: ao, ...ar } = a;
  const { output: bo, ...br } = b;
  return ao.key === bo.key && ao.previewSegments === bo.previewSegments && same(ar, br);
}

function listPatch<T>(prev: T[], next: T[], eq: (a: T, b: T) => boolean = same): ListPatch<T> | undefined {
  let common = 0;
  while (common < prev.length && common < next.length && eq(prev[common], next[common])) {
    common++;
  }
  if (common === prev.length && common === next.length) {
    return undefined;
  }
  return { from: common, items: next.slice(common) };
}

/** What the page must be told to go from `prev` to `next`; undefined when nothing changed. */
export function diffViews(prev: RunView, next: RunView): ViewPatch | undefined {
  const patch: ViewPatch = {};
  const set: Partial<RunSummary> = {};
  const unset: (keyof RunSummary)[] = [];
  const keys = new Set([...Object.keys(prev.summary), ...Object.keys(next.summary)]) as Set<keyof RunSummary>;
  for (const key of keys) {
    const a = prev.summary[key];
    const b = next.summary[key];
    if (b === undefined) {
      if (a !== undefined) {
        unset.push(key);
      }
    } else if (!same(a, b)) {
      (set as Record<string, unknown>)[key] = b;
    }
  }
  if (Object.keys(set).length) {
    patch.set = set;
  }
  if (unset.length) {
    patch.unset = unset;
  }
  const history = listPatch(prev.history, next.history);
  if (history) {
    patch.history = history;
  }
  const tasks = listPatch(prev.tasks, next.tasks, taskSame);
  if (tasks) {
    patch.tasks = tasks;
  }
  if ((prev.final?.key ?? null) !== (next.final?.key ?? null) || prev.final?.previewSegments !== next.final?.previewSegments) {
    patch.final = next.final;
  }
  const rounds = listPatch(prev.feedbackRounds, next.feedbackRounds);
  if (rounds) {
    patch.feedbackRounds = rounds;
  }
  return Object.keys(patch).length ? patch : undefined;
}

function applyList<T>(list: T[], patch: ListPatch<T> | undefined): T[] {
  return patch ? [...list.slice(0, patch.from), ...patch.items] : list;
}

/** The page's side of diffViews: applyPatch(prev, diffViews(prev, next)) equals next. */
export function applyPatch(view: RunView, patch: ViewPatch): RunView {
  const summary = { ...view.summary, ...(patch.set ?? {}) } as RunSummary;
  for (const key of patch.unset ?? []) {
    delete summary[key];
  }
  return {
    summary,
    history: applyList(view.history, patch.history),
    tasks: applyList(view.tasks, patch.tasks),
    final: patch.final === undefined ? view.final : patch.final,
    feedbackRounds: applyList(view.feedbackRounds, patch.feedbackRounds),
  };
}

// ---- formatting shared by the page ----

export { formatDuration } from '../../util/duration';

/** `{0}` style placeholders, as vscode.l10n.t. */
export function fill(template: string, ...args: (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}

// ---- page strings (translated by the host, sent in `init`) ----

export const PAGE_STRING_KEYS = [
  'kickoffId',
  'previousKickoffIds',
  'copyKickoffId',
  'inputs',
  'noInputs',
  'elapsed',
  'took',
  'progress',
  'progressTasksOf',
  'progressStepsOf',
  'progressTaskN',
  'progressStepN',
  'currentTask',
  'currentAgent',
  'latestStep',
  'stepThought',
  'stepAction',
  'stepTool',
  'stepToolInput',
  'stepResult',
  'timeline',
  'tasks',
  'tasksHidden',
  'usageHidden',
  'taskAttempt',
  'taskAgent',
  'taskTime',
  'emptyOutput',
  'output',
  'noOutputYet',
  'copyJson',
  'showingPart',
  'showAll',
  'rendering',
  'error',
  'usage',
  'feedbackRounds',
  'approved',
  'sentBack',
  'reviewedOutput',
  'feedbackTaskId',
  'awaitingFeedback',
  'awaitingFeedbackOn',
  'feedbackInferred',
  'raw',
  'rawTruncated',
  'noRaw',
  'loading',
  'actions',
  'copyOutput',
  'saveOutputAs',
  'openOutputInEditor',
  'compareOutput',
  'runAgain',
  'giveFeedback',
  'removed',
  'notWatching',
  'stop.deadline',
  'stop.user',
  'stop.expired',
  'stop.unauthorized',
  'stop.noToken',
  'state.queued',
  'state.running',
  'state.awaitingFeedback',
  'state.succeeded',
  'state.failed',
  'state.cancelled',
  'state.notFound',
  'state.unknown',
] as const;

export type PageStringKey = (typeof PAGE_STRING_KEYS)[number];
export type PageStrings = Record<PageStringKey, string>;
