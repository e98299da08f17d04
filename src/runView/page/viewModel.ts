// The run view's model: what the host makes of a run (RunRecord + RunDetails) for the page. Pure.
// Long outputs carry a preview; the rest travels in segments on request (see segments.ts).

import { messageRepeatsState } from '../../api/stateWords';
import { type Inputs, inputText } from '../../api/inputValues';
import { taskNameText } from '../../api/taskName';
import type { AgentStep, Progress, RunState } from '../../api/types';
import type { FeedbackRound, RunDetails, RunRecord, StateChange, StopReason } from '../../runTracking/model';
import { withoutUndefined } from '../../util/objects';
import { type SegmentCache, segmentContent } from './segments';

/** How much of the final output the view carries up front: about one segment, so the first screen is
 *  quick; Show All renders the rest a slice at a time. */
export const FINAL_PREVIEW = 64 * 1024;
/** How much of each task output the view carries up front. */
export const TASK_PREVIEW = 64 * 1024;
/** Agent step fields, feedback texts and the reviewed outputs in feedback rounds are cut to this. */
export const FIELD_MAX = 16 * 1024;
/** The raw status JSON shown in the page is cut to this. */
export const RAW_MAX = 512 * 1024;

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
  /**
   * The preview of a markdown final output as the host rendered it (the same rules, markdown.ts), in `init` only:
   * the page's first screen then needs no markdown-it, which is cold in every new page and warm in the host.
   */
  previewHtml?: string;
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
  /** The reviewed task's name, when one of the run's tasks has that id. */
  taskName?: string;
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
  /** Each input as text: a structured value (object, list, number…) as indented JSON. */
  inputs: Record<string, string>;
  /** The inputs whose value is not text: shown as JSON, folded when long. */
  jsonInputs?: string[];
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
  /** Usage keys and tasks left out of the page (over MAX_SHOWN_USAGE / MAX_SHOWN_TASKS, or not kept by the store). */
  usageHidden?: number;
  tasksHidden?: number;
  /** Timeline entries the run no longer keeps (between its first and the newest). */
  historyHidden?: number;
  error?: string;
  /** The task the crew is doing again after "Request Changes": its progress went back, and the page says why. */
  redoing?: string;
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
    // CrewAI's thoughts start with "Thought:", and the page labels them already.
    const value = key === 'thought' ? cut(step.thought?.replace(/^\s*Thought\s*:\s*/i, '')) : cut(step[key]);
    if (value !== undefined && value !== '') {
      out[key] = value;
    }
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * After "Request Changes" the crew runs the reviewed task again, and its progress goes back (2 of 3 → 1 of 3): the
 * page then says "Redoing review_task" rather than show a step back. Known only when the crew names the task.
 */
function redoingTask(record: RunRecord, details: RunDetails, currentTask: string | undefined): string | undefined {
  const last = details.feedbackRounds[details.feedbackRounds.length - 1];
  if (!last || last.approve || (record.state !== 'running' && record.state !== 'queued') || record.needsFeedback || currentTask === undefined) {
    return undefined;
  }
  const reviewed = namedTask(details, last.taskId) ?? last.taskId;
  return reviewed === currentTask ? currentTask : undefined;
}

/** The view of a run; `record` undefined when the run left the store (the last view is kept, marked gone). */
/** What the page shows at most: a crew may list tens of thousands of tasks or usage keys (the raw JSON has all). */
export const MAX_SHOWN_TASKS = 200;
export const MAX_SHOWN_USAGE = 100;

function namedTask(details: RunDetails, taskId: string | undefined): string | undefined {
  const task = taskId === undefined ? undefined : details.tasks.find((t) => t.taskId === taskId);
  return task && taskNameText(task.name);
}

/** The inputs whose value is not text (absent when every one is). */
function jsonInputNames(inputs: Inputs | undefined): string[] | undefined {
  const names = Object.entries(inputs ?? {}).filter(([, value]) => typeof value !== 'string').map(([name]) => name);
  return names.length > 0 ? names : undefined;
}

export function buildView(record: RunRecord, details: RunDetails, cache: SegmentCache): RunView {
  const snap = details.lastSnapshot;
  const usageEntries = Object.entries(snap?.usage ?? {});
  const usageShown = Math.min(usageEntries.length, MAX_SHOWN_USAGE);
  const usageHidden = Math.max(snap?.usageListed ?? 0, usageEntries.length) - usageShown;
  const tasksHidden = Math.max(snap?.tasksListed ?? 0, details.tasks.length) - Math.min(details.tasks.length, MAX_SHOWN_TASKS);
  const summary: RunSummary = withoutUndefined({
    runId: record.id,
    crewName: record.crewName,
    crewUrl: record.crewUrl,
    kickoffId: record.kickoffId,
    previousKickoffIds: [...record.previousKickoffIds],
    label: record.label,
    inputs: Object.fromEntries(Object.entries(details.inputs ?? {}).map(([name, value]) => [name, inputText(value)])),
    jsonInputs: jsonInputNames(details.inputs),
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    updatedAt: record.updatedAt,
    state: record.state,
    // "Task is Running" under a Running badge says nothing more.
    message: messageRepeatsState(record.message, record.state) ? undefined : cut(record.message),
    warning: cut(record.warning),
    watching: record.watching,
    stopReason: record.stopReason,
    needsFeedback: record.needsFeedback,
    feedbackInferred: record.feedbackInferred,
    feedbackTask: record.needsFeedback ? cut(snap?.feedback?.taskName ?? (snap?.lastTask && taskNameText(snap.lastTask.name)), 1024) : undefined,
    progress: record.progress ?? snap?.progress,
    currentTask: cut(record.currentTask ?? snap?.currentTask, 1024),
    currentAgent: cut(snap?.currentAgent ?? snap?.progress?.currentAgent, 1024),
    lastStep: cutStep(snap?.lastStep),
    usage: usageEntries.length ? Object.fromEntries(usageEntries.slice(0, MAX_SHOWN_USAGE)) : undefined,
    usageHidden: usageHidden > 0 ? usageHidden : undefined,
    tasksHidden: tasksHidden > 0 ? tasksHidden : undefined,
    historyHidden: details.historyOmitted || undefined,
    error: cut(details.error ?? snap?.error, 64 * 1024),
    redoing: cut(redoingTask(record, details, record.currentTask ?? snap?.currentTask), 1024),
    hasRaw: snap !== undefined && snap.raw !== undefined,
    exists: true,
  });
  const final = details.finalOutput;
  return {
    summary,
    history: details.history.map((h) => withoutUndefined({ state: h.state, at: h.at, message: messageRepeatsState(h.message, h.state) ? undefined : cut(h.message, 2048), task: cut(h.task, 1024) })),
    tasks: details.tasks.slice(0, MAX_SHOWN_TASKS).map((t) =>
      withoutUndefined({
        name: cut(taskNameText(t.name), 1024) ?? '',
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
      return withoutUndefined({
        at: r.at,
        approve: r.approve,
        feedback: cut(r.feedback) ?? '',
        taskId: r.taskId,
        taskName: cut(namedTask(details, r.taskId), 1024),
        output,
        outputTruncated: r.output !== undefined && r.output.length > FIELD_MAX ? true : undefined,
      });
    }),
  };
}

