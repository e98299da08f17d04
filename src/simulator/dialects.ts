// The body families of the API notes (crew-api.md): `live` (what deployed crews answer:
// FastAPI errors, upper-case `state`, `result` as a string), `docs` (the published OpenAPI:
// lower-case `status`, `result.output`, `{error, message}` errors) and `selfhosted` (a FastAPI app
// wrapping `crew.kickoff()`; its own bodies are in ./selfHosted). A new family adds its errors'
// style to ERROR_STYLE and its endpoints to the tables below.

import { type LoggedEvent, runEvents, stableUuid, usageTotals } from './eventLog';
import type { CompletedTask, SimRun } from './runEngine';
import { selfHostedInputs, selfHostedKickoff, selfHostedNotFound, selfHostedStatus } from './selfHosted';
import type { CrewConfig, Dialect, LivePausedState, Reply, SimRunPhase } from './types';


const json = (status: number, body: object, headers?: Record<string, string>): Reply => ({ status, body, headers });

/** Whose error bodies a dialect sends: FastAPI's `{detail}` or the documented `{error, message}`. */
const ERROR_STYLE: Record<Dialect, 'fastapi' | 'docs'> = { live: 'fastapi', docs: 'docs', selfhosted: 'fastapi' };
const fastApi = (dialect: Dialect): boolean => ERROR_STYLE[dialect] === 'fastapi';

export const LIVE_NOT_FOUND_STATUS = { state: 'NOT FOUND', status: 'Task not found or Invalid kickoff id' };

export function routeNotFound(dialect: Dialect): Reply {
  return fastApi(dialect)
    ? json(404, { detail: 'Not Found' })
    : json(404, { error: 'Not Found', message: 'The requested resource was not found' });
}

export function methodNotAllowed(dialect: Dialect, allowed: string): Reply {
  const headers = { Allow: allowed };
  return fastApi(dialect)
    ? json(405, { detail: 'Method Not Allowed' }, headers)
    : json(405, { error: 'Method Not Allowed', message: `Use ${allowed}` }, headers);
}

export function unauthorized(dialect: Dialect): Reply {
  return fastApi(dialect)
    ? json(401, { detail: 'Invalid or missing authentication credentials' })
    : json(401, { error: 'Unauthorized', message: 'Invalid or missing bearer token' });
}

export function forbidden(dialect: Dialect): Reply {
  return fastApi(dialect)
    ? json(403, { detail: 'Not enough permissions' })
    : json(403, { error: 'Forbidden', message: 'This token is not allowed to resume executions' });
}

/** Live answers a body that is not JSON with FastAPI's bare 500; the docs promise a 400. */
export function malformedJson(dialect: Dialect): Reply {
  return fastApi(dialect)
    ? { status: 500, body: 'Internal Server Error' }
    : json(400, { error: 'Bad Request', message: 'Request body is not valid JSON' });
}

export function bodyTooLarge(dialect: Dialect): Reply {
  return fastApi(dialect)
    ? json(413, { detail: 'Request body too large' })
    : json(413, { error: 'Payload Too Large', message: 'Request body too large' });
}

export function missingInputs(dialect: Dialect, names: string[]): Reply {
  return fastApi(dialect)
    ? json(422, { detail: `Missing inputs: ${names.join(', ')}` })
    : json(422, { error: 'Validation Error', message: 'Missing required inputs', details: { missing_inputs: names } });
}

/** FastAPI's answer to a body its Pydantic model refuses: every error, with where it is. */
export function pydanticValidation(errors: readonly object[]): Reply {
  return json(422, { detail: errors });
}

export function tooManyRequests(dialect: Dialect, retryAfterSeconds: number): Reply {
  const headers = { 'Retry-After': String(retryAfterSeconds) };
  return fastApi(dialect)
    ? json(429, { detail: 'Too Many Requests' }, headers)
    : json(429, { error: 'Too Many Requests', message: 'Rate limit exceeded' }, headers);
}

export function inputsReply(dialect: Dialect, crew: Pick<CrewConfig, 'name' | 'inputs' | 'inputDetails' | 'selfHostedInputs'>): Reply {
  return dialect === 'selfhosted' ? selfHostedInputs(crew) : json(200, { inputs: [...crew.inputs] });
}

/** The hosted service's answer carrying a kickoff id (POST /kickoff, and a live POST /resume). */
export function kickoffReply(kickoffId: string): Reply {
  return json(200, { kickoff_id: kickoffId });
}

export function kickoffAccepted(dialect: Dialect, kickoffId: string): Reply {
  return dialect === 'selfhosted' ? selfHostedKickoff(kickoffId) : kickoffReply(kickoffId);
}

const STATUS_NOT_FOUND: Record<Dialect, (kickoffId: string) => Reply> = {
  live: () => json(200, { ...LIVE_NOT_FOUND_STATUS }),
  docs: (kickoffId) => json(404, { error: 'Execution not found', message: `No execution found with ID: ${kickoffId}` }),
  selfhosted: selfHostedNotFound,
};

/** Unknown, expired or hidden kickoff id: live says so with HTTP 200, the docs and self-hosted servers with a 404. */
export function statusNotFound(dialect: Dialect, kickoffId: string): Reply {
  return STATUS_NOT_FOUND[dialect](kickoffId);
}

// --- POST /resume -------------------------------------------------------------------------------

/** Live: FastAPI's validation error for a body without the camelCase fields. */
export function liveResumeValidation(missingFields: string[]): Reply {
  return json(422, {
    detail: missingFields.map((field) => ({ type: 'missing', loc: ['body', field], msg: 'Field required', input: null })),
  });
}

export function docsResumeValidation(missingFields: string[]): Reply {
  return json(422, { error: 'Validation Error', message: 'Missing required fields', details: { missing_fields: missingFields } });
}

export function executionNotFound(dialect: Dialect): Reply {
  return fastApi(dialect) ? json(404, { detail: 'Execution not found' }) : json(404, { error: 'Not Found', message: 'Execution ID not found' });
}

export function taskNotFound(dialect: Dialect): Reply {
  return fastApi(dialect) ? json(404, { detail: 'Task not found' }) : json(404, { error: 'Not Found', message: 'Task ID not found' });
}

/** 400 for a body that is JSON but not acceptable input. */
export function badInput(dialect: Dialect, message: string): Reply {
  return fastApi(dialect) ? json(400, { detail: message }) : json(400, { error: 'Invalid Request', message });
}

export function notPendingHumanInput(dialect: Dialect): Reply {
  const message = 'Execution is not in pending human input state';
  return fastApi(dialect) ? json(400, { detail: message }) : json(400, { error: 'Invalid Request', message });
}

export function docsResumeReply(status: 'resumed' | 'retrying' | 'completed'): Reply {
  const messages = {
    resumed: 'Execution resumed successfully',
    retrying: 'Task will be retried with your feedback',
    completed: 'Execution completed',
  };
  return json(200, { status, message: messages[status] });
}

// --- POST /stop/{id} (hosted, not in the public reference; the same bodies in both hosted families) --

/** Hosted families have POST /stop/{id}; a self-hosted wrapper of `crew.kickoff()` usually does not. */
const STOP_ROUTE: Record<Dialect, boolean> = { live: true, docs: true, selfhosted: false };

/** Whether a crew serves POST /stop/{id}: its dialect's default, unless the crew's `stopRoute` says otherwise. */
export function hasStopRoute(dialect: Dialect, config: Pick<CrewConfig, 'stopRoute'>): boolean {
  return config.stopRoute ?? STOP_ROUTE[dialect];
}

/** The state word the hosted service names in its 400 (`Current state: SUCCESS`). */
const HOSTED_STATE: Record<SimRunPhase, string> = {
  pending: 'PENDING',
  running: 'RUNNING',
  paused: 'PAUSED',
  succeeded: 'SUCCESS',
  failed: 'FAILED',
  stopped: 'REVOKED',
};

export function stopReply(kickoffId: string): Reply {
  return json(200, { status: 'stopped', kickoffId });
}

export function stopAlreadyEnded(phase: SimRunPhase): Reply {
  return json(400, { detail: `Cannot stop execution. Current state: ${HOSTED_STATE[phase]}` });
}

export function stopUnknownExecution(kickoffId: string): Reply {
  return json(404, { error: 'Execution not found', message: `No execution found with ID: ${kickoffId}` });
}

// --- GET /status --------------------------------------------------------------------------------

/** The event log a live status carries (status-events.md), as the deployment's runtime and settings make it. */
export interface EventLogOptions {
  /** `off`: `CREWAI_STATUS_EVENTS` switched off; `oldRuntime`: crewai ≤ 1.15.21, progress null too. */
  mode: 'on' | 'off' | 'oldRuntime';
  /** How many of the newest events a reply lists. */
  maxEvents: number;
  /** Real ms an event waits before replies list it (the runtime flushes its log now and then). */
  flushMs: number;
}

export interface StatusOptions {
  dialect: Dialect;
  livePausedState: LivePausedState;
  exposeTaskId: boolean;
  liveLastExecutedTaskAsString: boolean;
  liveOmitProgress: boolean;
  events: EventLogOptions;
}

const STATUS: Record<Dialect, (run: SimRun, now: number, options: StatusOptions) => Reply> = {
  live: (run, now, options) => liveStatus(run, now, options),
  docs: (run, now, options) => docsStatus(run, now, options),
  selfhosted: (run, now, options) => selfHostedStatus(run, now, { exposeTaskId: options.exposeTaskId, usage: { ...usageTotals(runEvents(run, now)) } }),
};

/** `run` must already be advanced to `now`. */
export function statusReply(run: SimRun, now: number, options: StatusOptions): Reply {
  return STATUS[options.dialect](run, now, options);
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
const seconds = (ms: number): number => Math.round(ms) / 1000;

const THOUGHTS = ['I should gather what is already known.', 'I have enough material; now I structure it.', 'I can now give a great answer.'];

/** A plausible latest agent step for the running task (it changes three times per task). */
function liveLastStep(run: SimRun, now: number): object | null {
  const task = run.currentTask;
  if (run.phase !== 'running' || !task) {
    return null;
  }
  const duration = run.taskDurationMs(run.currentTaskIndex);
  const step = duration > 0 ? Math.min(2, Math.floor(((now - run.phaseStartedAt) / duration) * 3)) : 0;
  if (run.kind === 'flow') {
    return { action: `${task.name}: step ${step + 1}`, result: `${task.agent} is working (${step + 1}/3)` };
  }
  return {
    prompt: run.taskDescription(run.currentTaskIndex),
    thought: `Thought: ${THOUGHTS[step]}`,
    tool: step < 2 ? 'search_tool' : null,
    tool_input: step < 2 ? JSON.stringify({ query: task.name.replace(/_/g, ' ') }) : null,
    result: `${task.agent}: step ${step + 1} of 3 done`,
  };
}

function liveExecutedTask(run: SimRun, task: CompletedTask, options: StatusOptions): object | string {
  if (options.liveLastExecutedTaskAsString) {
    return task.output;
  }
  return {
    // The only place a paused live run reveals the id POST /resume needs (when the knob allows).
    ...(run.phase === 'paused' && options.exposeTaskId ? { id: run.taskIds[task.index] } : {}),
    name: task.name,
    description: run.taskDescription(task.index),
    expected_output: run.expectedOutput(task.index),
    output: task.output,
    agent: task.agent,
    kickoff_id: run.kickoffId,
    meta: run.meta ?? {},
  };
}

function liveProgress(run: SimRun, now: number, options: StatusOptions, events: readonly LoggedEvent[]): object | null {
  if (options.liveOmitProgress || options.events.mode === 'oldRuntime' || run.phase === 'pending' || run.phase === 'failed' || run.runningSince === undefined) {
    return null;
  }
  const isFlow = run.kind === 'flow';
  const total = run.tasks.length;
  const current = run.phase === 'succeeded' ? undefined : run.currentTask;
  return {
    unit: isFlow ? 'step' : 'task',
    completed: run.completed.length,
    total: isFlow ? null : total,
    remaining: isFlow ? null : total - run.completed.length,
    current: current?.name ?? null,
    current_agent: current?.agent ?? null,
    started_at: iso(run.runningSince),
    // Inside a task, each model or tool call is an update too.
    updated_at: iso(Math.max(run.updatedAt, events[events.length - 1]?.at ?? 0)),
    duration_seconds: seconds((run.finishedAt ?? now) - run.runningSince),
  };
}

const NO_EVENT_LOG = { events: null, events_count: null, events_by_type: null, last_event: null };

/** `events` (the newest `maxEvents`), `events_count`, `events_by_type` and `last_event`, as of the last flush. */
function liveEventLog(events: readonly LoggedEvent[], now: number, options: StatusOptions): object {
  const { mode, flushMs, maxEvents } = options.events;
  if (mode !== 'on') {
    return NO_EVENT_LOG;
  }
  const flushed = flushMs > 0 ? events.filter((logged) => logged.at <= now - flushMs) : events;
  const byType: Record<string, number> = {};
  for (const { event } of flushed) {
    const type = String(event['type']);
    byType[type] = (byType[type] ?? 0) + 1;
  }
  // An event's task_id is the id POST /resume takes: where the crew hides that id, its events do too.
  const shown = (logged: LoggedEvent | undefined) =>
    logged === undefined ? null : options.exposeTaskId || logged.event['task_id'] === null ? logged.event : { ...logged.event, task_id: null };
  return {
    events: flushed.slice(Math.max(0, flushed.length - Math.max(0, Math.floor(maxEvents)))).map(shown),
    events_count: flushed.length,
    events_by_type: byType,
    last_event: shown(flushed[flushed.length - 1]),
  };
}

const LIVE_MESSAGES = { pending: 'Task is pending', running: 'Task is Running' } as const;

function liveStatus(run: SimRun, now: number, options: StatusOptions): Reply {
  if (run.phase === 'paused' && options.livePausedState === 'NOT FOUND') {
    return json(200, { ...LIVE_NOT_FOUND_STATUS });
  }
  const last = run.lastCompleted;
  const succeeded = run.phase === 'succeeded';
  const events = runEvents(run, now);
  let state: string;
  let message: string | null;
  switch (run.phase) {
    case 'pending':
    case 'running':
      state = run.phase.toUpperCase();
      message = LIVE_MESSAGES[run.phase];
      break;
    case 'paused':
      state = 'PAUSED';
      message = `Waiting for human input on task '${run.currentTask?.name}'`;
      break;
    case 'succeeded':
      state = 'SUCCESS';
      message = null;
      break;
    case 'failed':
      state = 'FAILED';
      message = run.failure ?? 'Exception';
      break;
    case 'stopped':
      state = 'REVOKED';
      message = 'Execution was stopped';
      break;
  }
  return json(200, {
    state,
    status: message,
    result: succeeded && last ? last.output : null,
    result_json: succeeded && last?.json !== undefined ? last.json : null,
    progress: liveProgress(run, now, options, events),
    last_executed_task: last ? liveExecutedTask(run, last, options) : null,
    last_step: liveLastStep(run, now),
    ...(succeeded
      ? {
          tasks_output: run.completed.map((task) => ({
            name: task.name,
            description: run.taskDescription(task.index),
            expected_output: run.expectedOutput(task.index),
            summary: `${run.taskDescription(task.index).slice(0, 60)}...`,
            raw: task.output,
            json_dict: task.json ?? null,
            agent: task.agent,
            output_format: task.json === undefined ? 'raw' : 'json',
          })),
        }
      : {}),
    usage_metrics: usageTotals(events),
    execution_origin: run.origin,
    ...liveEventLog(events, now, options),
    triggered_by: { type: 'user', id: stableUuid(`${run.crewId}:user`) },
    // The service's own in-memory record of the run (`application` would mean no event fields).
    source: 'memory',
  });
}

function docsStatus(run: SimRun, now: number, options: StatusOptions): Reply {
  const progress = { completed_tasks: run.completed.length, total_tasks: run.kind === 'flow' ? null : run.tasks.length };
  const executionTime = seconds((run.finishedAt ?? now) - run.createdAt);
  switch (run.phase) {
    case 'pending':
      // The docs know no queued state: a run that has not started is "running" with no current task.
      return json(200, { status: 'running', current_task: null, progress });
    case 'running':
      return json(200, { status: 'running', current_task: run.currentTask?.name ?? null, progress });
    case 'paused': {
      const last = run.lastCompleted;
      return json(200, {
        status: 'pending_human_input',
        message: `Waiting for human input on task '${run.currentTask?.name}'`,
        current_task: run.currentTask?.name ?? null,
        ...(options.exposeTaskId ? { task_id: run.taskIds[run.currentTaskIndex] } : {}),
        task_output: last?.output ?? null,
        progress,
      });
    }
    case 'succeeded':
      return json(200, {
        status: 'completed',
        result: {
          output: run.lastCompleted?.output ?? '',
          tasks: run.completed.map((task) => ({
            task_id: task.name,
            output: task.output,
            agent: task.agent,
            execution_time: seconds(task.finishedAt - task.startedAt),
          })),
        },
        execution_time: executionTime,
      });
    case 'failed':
      return json(200, { status: 'error', error: run.failure ?? 'Task execution failed', execution_time: executionTime });
    case 'stopped':
      return json(200, { status: 'REVOKED', message: 'Execution was stopped', execution_time: executionTime });
  }
}
