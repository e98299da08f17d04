// Turns any GET /status body (documented or live family, see the shared API notes "Normalising a status")
// into a StatusSnapshot. Pure and never throwing: a body we cannot read becomes state 'unknown' (keep
// polling), never 'failed' or 'succeeded' — the run's end is never guessed.

import { extractErrorMessage, idString, isJsonObject, type JsonObject, nonBlankString, safeStringify } from './bodies';
import { boundedCopy, clippedMarker, omittedEntries, READ_LIMITS, readJsonBounded } from './boundedJson';
import { crewOutputOf, taskOutputValue } from './crewOutput';
import { parseFinalOutput } from './finalOutput';
import type { AgentStep, FeedbackRequest, FinalOutput, KnownEvents, Progress, RunState, StatusSnapshot, TaskOutput } from './types';
import { stripControls } from '../util/inertText';
import { withoutUndefined } from '../util/objects';
import { UNNAMED_TASK } from './types';
import { normaliseStateWord } from './stateWords';
import { readEventLog } from './statusEvents';

export { normaliseStateWord } from './stateWords';

/**
 * What one status may put into a run, at most: every size and count a crew controls is capped here, where it
 * enters; what was left out is counted (`usageListed`, `tasksListed`, a clipped text's marker) so the user sees it.
 * Depth, entries per object and string length are first bounded by the reader (boundedJson.ts READ_LIMITS).
 */
export const STATUS_LIMITS = {
  usageFigures: 100,
  tasks: 1000,
  /** Names: current task and agent, task names, the state word. */
  labelChars: 1024,
  /** Messages, descriptions, agent step fields. */
  textChars: 16 * 1024,
  errorChars: 64 * 1024,
  /** Task and final outputs (several MB are real). */
  outputChars: READ_LIMITS.maxStringChars,
} as const;

/** Name given to a task the service did not name (e.g. `last_executed_task` sent as a plain string). */
export { UNNAMED_TASK } from './types';

/**
 * Normalises one GET /status reply. `httpStatus` 404 means "not found" whatever the body says; its
 * message is then the server's own words.
 */
export function normaliseStatus(body: unknown, httpStatus = 200, knownEvents?: KnownEvents): StatusSnapshot {
  const decoded = typeof body === 'string' ? readJsonBounded(body.replace(/^\uFEFF/, '').trim()) : undefined;
  const fields: JsonObject = isJsonObject(body)
    ? body
    : decoded?.ok && isJsonObject(decoded.value)
      ? decoded.value
      : {};

  // Rule 1: `state` when it is a non-empty string (live), else `status` (docs).
  const liveStateWord = clip(nonBlankString(fields['state'])?.trim(), STATUS_LIMITS.labelChars);
  const rawState = liveStateWord ?? clip(nonBlankString(fields['status'])?.trim(), STATUS_LIMITS.labelChars);
  const state: RunState = httpStatus === 404 ? 'notFound' : rawState === undefined ? 'unknown' : normaliseStateWord(rawState);

  // Live: `status` is the human message once `state` carries the state word.
  const message =
    httpStatus === 404
      ? extractErrorMessage(body)
      : clip((liveStateWord !== undefined ? nonBlankString(fields['status'])?.trim() : undefined) ?? nonBlankString(fields['message'])?.trim(), STATUS_LIMITS.textChars);
  // Self-hosted servers return crewai's CrewOutput as `result` (or `output`).
  const crewOutput = crewOutputOf(fields);

  const progress = parseProgress(fields['progress']);
  const lastTask = parseTask(fields['last_executed_task']);
  const { tasks, tasksSource, tasksListed } = parseTasks(fields, lastTask, crewOutput);
  const finalOutput = clipOutput(parseFinalOutput(fields, state, lastTask, crewOutput));
  const usage = parseUsage(fields['usage_metrics'] ?? fields['token_usage'] ?? crewOutput?.['token_usage']);

  const snapshot: StatusSnapshot = {
    state,
    rawState,
    message,
    currentTask: labelText(fields['current_task']) ?? progress?.current,
    currentAgent: labelText(fields['current_agent']) ?? progress?.currentAgent,
    progress,
    lastStep: parseStep(fields['last_step']),
    lastTask,
    tasks,
    tasksSource,
    tasksListed,
    finalOutput,
    error: state === 'failed' ? clip(failureText(fields, liveStateWord !== undefined), STATUS_LIMITS.errorChars) : undefined,
    usage: usage?.figures,
    usageListed: usage?.listed,
    executionTime: ['execution_time', 'duration_seconds', 'elapsed'].map((key) => nonNegativeNumber(fields[key])).find((n) => n !== undefined),
    feedback: state === 'awaitingFeedback' ? parseFeedback(fields, lastTask, finalOutput) : undefined,
    httpNotFound: httpStatus === 404 ? true : undefined,
    eventLog: readEventLog(fields, knownEvents),
    raw: boundedCopy(withEventsNoted(body)),
  };
  // `raw` stays even when the body itself was undefined: the key is part of the contract. It is a bounded
  // copy (RAW_BUDGET): a run's file is rewritten on every change, so it must not grow with the body.
  return { ...withoutUndefined(snapshot), raw: snapshot.raw };
}

/**
 * The body for the raw view, its event list replaced by a note: the events are kept apart (the run's trace), and a
 * run's details are rewritten on every change, so they must not carry a copy of the list in each status.
 */
function withEventsNoted(body: unknown): unknown {
  if (!isJsonObject(body) || !Array.isArray(body['events'])) {
    return body;
  }
  const listed = body['events'].length + omittedEntries(body['events']);
  return { ...body, events: `[${listed} events: see the run's trace]` };
}

/** Room for a cut's marker: a text the reader already cut to `max` is not cut again. */
const MARKER_ROOM = 48;

/** At most `max` characters (and a marker), a cut marked with how much was left out. */
export function clip(text: string | undefined, max: number): string | undefined {
  return text === undefined || text.length <= max + MARKER_ROOM ? text : text.slice(0, max) + clippedMarker(text.length - max);
}

function clipOutput(output: FinalOutput | undefined): FinalOutput | undefined {
  const text = clip(output?.text, STATUS_LIMITS.outputChars);
  return output && text !== output.text ? { kind: output.kind, text: text! } : output;
}

/** Any scalar or structure as display text (objects as compact JSON), at most `max` characters. */
function toText(value: unknown, max: number = STATUS_LIMITS.textChars): string | undefined {
  if (typeof value === 'string') {
    return clip(value, max);
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  if (typeof value === 'object' && value !== null) {
    return clip(safeStringify(boundedCopy(value, max)), max);
  }
  return undefined;
}

/** A short label: a non-blank string or number, or the `name`/`role` of an object. */
function labelText(value: unknown): string | undefined {
  const label = isJsonObject(value) ? (idString(value['name']) ?? idString(value['role'])) : idString(value);
  return clip(label, STATUS_LIMITS.labelChars);
}

/** An id: one longer than a label is no id a crew could take back. */
function idText(value: unknown): string | undefined {
  const id = idString(value);
  return id !== undefined && id.length <= STATUS_LIMITS.labelChars ? id : undefined;
}

/** Finite, non-negative number; numeric strings accepted because some gateways stringify numbers. */
function nonNegativeNumber(value: unknown): number | undefined {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

// Rule 6: docs {completed_tasks, total_tasks} or live {unit, completed, total, current, current_agent}.
function parseProgress(value: unknown): Progress | undefined {
  if (!isJsonObject(value)) {
    return undefined;
  }
  const completed = nonNegativeNumber(value['completed']) ?? nonNegativeNumber(value['completed_tasks']);
  // A null or missing total is "unknown total": show "step N", never a percentage.
  const total = nonNegativeNumber('total' in value ? value['total'] : value['total_tasks']) ?? null;
  const current = labelText(value['current']);
  const currentAgent = labelText(value['current_agent']);
  if (completed === undefined && total === null && current === undefined && currentAgent === undefined) {
    return undefined;
  }
  const unitWord = typeof value['unit'] === 'string' ? value['unit'].trim().toLowerCase() : '';
  const unit: Progress['unit'] = unitWord === 'task' || unitWord === 'step' ? unitWord : total === null ? 'step' : 'task';
  return withoutUndefined<Progress>({ unit, completed, total, current, currentAgent });
}

/** `{prompt, thought, tool, tool_input, result}` or `{action, result}`; a bare string is taken as the action. */
function parseStep(value: unknown): AgentStep | undefined {
  if (typeof value === 'string') {
    return value.trim() === '' ? undefined : { action: value };
  }
  if (!isJsonObject(value)) {
    return undefined;
  }
  const step = withoutUndefined<AgentStep>({
    prompt: toText(value['prompt']),
    thought: toText(value['thought']),
    action: toText(value['action']),
    tool: toText(value['tool']),
    toolInput: toText(value['tool_input'] ?? value['toolInput']),
    result: toText(value['result']),
  });
  return Object.keys(step).length === 0 ? undefined : step;
}

/**
 * One task's output from `last_executed_task`, `result.tasks[]` or `tasks_output[]`. A plain string is the
 * task's output (crewAI prints a TaskOutput as its raw text); an object without any name, id or output
 * (the `{}` placeholder) is no task at all.
 */
function parseTask(value: unknown): TaskOutput | undefined {
  if (typeof value === 'string') {
    return value.trim() === '' ? undefined : { name: UNNAMED_TASK, output: value };
  }
  if (!isJsonObject(value)) {
    return undefined;
  }
  // Bidi and control characters would make a name read as something else (in the tree, the log, the run view).
  const rawName = nonBlankString(value['name']);
  const name = rawName === undefined ? undefined : clip(nonBlankString(stripControls(rawName.slice(0, 2 * STATUS_LIMITS.labelChars)))?.trim(), STATUS_LIMITS.labelChars);
  const description = clip(nonBlankString(value['description']), STATUS_LIMITS.textChars);
  const taskId = idText(value['task_id']) ?? idText(value['id']);
  // Docs `output`; crewai's TaskOutput: `raw`, else `json_dict`, else `pydantic` (never its `messages`).
  const output = toText(value['output'] ?? taskOutputValue(value), STATUS_LIMITS.outputChars);
  const summary = clip(nonBlankString(value['summary'])?.trim(), STATUS_LIMITS.labelChars);
  if (name === undefined && description === undefined && taskId === undefined && output === undefined && summary === undefined) {
    return undefined;
  }
  const agent = value['agent'];
  return withoutUndefined<TaskOutput>({
    name: name ?? summary ?? description?.trim() ?? taskId ?? UNNAMED_TASK,
    output: output ?? '',
    agent: isJsonObject(agent) ? labelText(agent) : clip(nonBlankString(agent)?.trim(), STATUS_LIMITS.labelChars),
    description,
    taskId,
    executionTime: nonNegativeNumber(value['execution_time']),
  });
}

/** The first STATUS_LIMITS.tasks tasks of a list, and how many entries it had when more. */
function parseTaskList(value: unknown): { tasks: TaskOutput[]; listed?: number } {
  if (!Array.isArray(value)) {
    return { tasks: [] };
  }
  const tasks: TaskOutput[] = [];
  for (let i = 0; i < value.length && tasks.length < STATUS_LIMITS.tasks; i++) {
    const task = parseTask(value[i]);
    if (task !== undefined) {
      tasks.push(task);
    }
  }
  const listed = value.length + omittedEntries(value);
  return { tasks, listed: tasks.length === STATUS_LIMITS.tasks && listed > tasks.length ? listed : undefined };
}

// Rule 5: result.tasks → tasks_output (of the body, else of its CrewOutput) → this body's last_executed_task
// (empty lists fall through).
function parseTasks(
  fields: JsonObject,
  lastTask: TaskOutput | undefined,
  crewOutput: JsonObject | undefined,
): Pick<StatusSnapshot, 'tasks' | 'tasksSource' | 'tasksListed'> {
  const result = fields['result'];
  const resultTasks = isJsonObject(result) ? parseTaskList(result['tasks']) : { tasks: [] };
  if (resultTasks.tasks.length > 0) {
    return { tasks: resultTasks.tasks, tasksSource: 'result', tasksListed: resultTasks.listed };
  }
  const topLevel = parseTaskList(fields['tasks_output']);
  const tasksOutput = topLevel.tasks.length > 0 ? topLevel : parseTaskList(crewOutput?.['tasks_output']);
  if (tasksOutput.tasks.length > 0) {
    return { tasks: tasksOutput.tasks, tasksSource: 'tasks_output', tasksListed: tasksOutput.listed };
  }
  return lastTask === undefined ? { tasks: [] } : { tasks: [lastTask], tasksSource: 'last_executed_task' };
}

/**
 * Docs `error` (text or `{message}`); live FAILED carries the exception text in `status`; else `message`; else the
 * `result`, where some servers put a failed run's error (text, or `{error}` / `{message}`).
 */
function failureText(fields: JsonObject, statusIsMessage: boolean): string | undefined {
  const error = fields['error'];
  const result = fields['result'];
  return (
    nonBlankString(error)?.trim() ??
    (isJsonObject(error) ? nonBlankString(error['message'])?.trim() : undefined) ??
    (statusIsMessage ? nonBlankString(fields['status'])?.trim() : undefined) ??
    nonBlankString(fields['message'])?.trim() ??
    nonBlankString(result)?.trim() ??
    (isJsonObject(result) ? (nonBlankString(result['error']) ?? nonBlankString(result['message']))?.trim() : undefined)
  );
}

/** Token counts and the like: the first STATUS_LIMITS.usageFigures numeric entries, and how many entries there were when more. */
function parseUsage(value: unknown): { figures: Record<string, number>; listed?: number } | undefined {
  if (!isJsonObject(value)) {
    return undefined;
  }
  const keys = Object.keys(value);
  const figures: Record<string, number> = {};
  let kept = 0;
  for (let i = 0; i < keys.length && kept < STATUS_LIMITS.usageFigures; i++) {
    const figure = value[keys[i]];
    if (typeof figure === 'number' && Number.isFinite(figure)) {
      Object.defineProperty(figures, keys[i], { value: figure, enumerable: true, writable: true, configurable: true });
      kept++;
    }
  }
  const listed = keys.length + omittedEntries(value);
  return kept === 0 ? undefined : { figures, listed: kept === STATUS_LIMITS.usageFigures && listed > kept ? listed : undefined };
}

/**
 * What a paused run asks to review. Task id from `task_id`, `pending_task_id`, `last_executed_task.id`,
 * `last_executed_task.task_id` (else the user pastes it); output from `last_executed_task.output`, the
 * human-input webhook's `task_output`, else the result.
 */
function parseFeedback(
  fields: JsonObject,
  lastTask: TaskOutput | undefined,
  finalOutput: FinalOutput | undefined,
): FeedbackRequest {
  const lastTaskFields = fields['last_executed_task'];
  const taskId =
    idText(fields['task_id']) ??
    idText(fields['pending_task_id']) ??
    (isJsonObject(lastTaskFields) ? idText(lastTaskFields['id']) ?? idText(lastTaskFields['task_id']) : undefined);
  const lastOutput = lastTask !== undefined && lastTask.output.trim() !== '' ? lastTask.output : undefined;
  return withoutUndefined<FeedbackRequest>({
    taskId,
    // Docs bodies name the waiting task in current_task and carry no last_executed_task.
    taskName: (lastTask !== undefined && lastTask.name !== UNNAMED_TASK ? lastTask.name : undefined) ?? labelText(fields['current_task']),
    output: lastOutput ?? nonBlankString(toText(fields['task_output'], STATUS_LIMITS.outputChars)) ?? finalOutput?.text,
    flowId: idText(fields['flow_id']),
  });
}
