// The `selfhosted` dialect's own bodies: what a small FastAPI app wrapping `crew.kickoff()` returns
// (see the API notes, "Self-hosted servers of the same API"). Its errors are FastAPI's (`{detail}`),
// like the live service's, and come from ./dialects.

import type { Reply } from './types';
import type { CompletedTask, SimRun } from './runEngine';
import { inputSchema } from './inputTypes';
import type { CrewConfig, InputDetails } from './types';

const json = (status: number, body: object): Reply => ({ status, body });
const seconds = (ms: number): number => Math.round(ms) / 1000;

/** Required unless the server says otherwise or gives a default (a Pydantic field with a default). */
export function isRequiredDetail(details: InputDetails | undefined): boolean {
  return details?.required ?? details?.default === undefined;
}

/** GET /inputs: the inputs model's JSON Schema (Pydantic's `model_json_schema()`), or no route, or a page. */
export function selfHostedInputs(config: Pick<CrewConfig, 'name' | 'inputs' | 'inputDetails' | 'selfHostedInputs'>): Reply {
  switch (config.selfHostedInputs) {
    case 'absent':
      return json(404, { detail: 'Not Found' });
    case 'unreadable':
      return { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: `<html><body><h1>${config.name}</h1><p>POST /kickoff to start a run.</p></body></html>` };
    default: {
      const properties = Object.fromEntries(
        config.inputs.map((name) => {
          const details = config.inputDetails?.[name];
          const title = name.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
          return [name, { title, ...inputSchema(details), ...details, type: inputSchema(details).type, fields: undefined, required: undefined }];
        }),
      );
      return json(200, {
        title: 'KickoffInputs',
        type: 'object',
        properties,
        required: config.inputs.filter((name) => isRequiredDetail(config.inputDetails?.[name])),
      });
    }
  }
}

/** POST /kickoff: the id under `id`, as many wrappers name it. */
export function selfHostedKickoff(runId: string): Reply {
  return json(202, { id: runId, status: 'accepted' });
}

/** GET /status for an id the server does not hold (unknown, or lost in a restart): a bare HTTP 404. */
export function selfHostedNotFound(kickoffId: string): Reply {
  return json(404, { detail: `Run ${kickoffId} not found` });
}

export interface SelfHostedStatusOptions {
  exposeTaskId: boolean;
  usage: Record<string, number>;
}

/** GET /status: lower-case states, `elapsed` while going, crewai's CrewOutput (or a flow's value) when done. */
export function selfHostedStatus(run: SimRun, now: number, options: SelfHostedStatusOptions): Reply {
  const id = run.kickoffId;
  const elapsed = seconds((run.finishedAt ?? now) - run.createdAt);
  const progress = { completed: run.completed.length, total: run.kind === 'flow' ? null : run.tasks.length };
  switch (run.phase) {
    case 'pending':
      return json(200, { id, status: 'pending', result: null, elapsed });
    case 'running':
      return json(200, { id, status: 'running', current_task: run.currentTask?.name ?? null, progress, result: null, elapsed });
    case 'paused':
      return json(200, {
        id,
        status: 'pending_human_input',
        current_task: run.currentTask?.name ?? null,
        ...(options.exposeTaskId ? { task_id: run.taskIds[run.currentTaskIndex] } : {}),
        task_output: run.lastCompleted?.output ?? null,
        progress,
        elapsed,
      });
    case 'succeeded':
      return json(200, { id, status: 'completed', result: result(run, options.usage), duration_seconds: elapsed });
    case 'failed':
      return json(200, { id, status: 'error', error: run.failure ?? 'Crew execution failed', duration_seconds: elapsed });
    case 'stopped':
      // No stop route here (see hasStopRoute), but a run can still end without finishing (the demo's server going).
      return json(200, { id, status: 'cancelled', result: null, duration_seconds: elapsed });
  }
}

/** A crew's `CrewOutput.model_dump()`; a flow returns its last step's value as it is. */
function result(run: SimRun, usage: Record<string, number>): unknown {
  const last = run.lastCompleted;
  if (run.kind === 'flow') {
    return last?.json ?? last?.output ?? null;
  }
  return {
    raw: last?.output ?? '',
    pydantic: null,
    json_dict: last?.json ?? null,
    tasks_output: run.completed.map((task) => taskOutput(run, task)),
    token_usage: usage,
  };
}

/** A `TaskOutput.model_dump()`, with the LLM conversation that produced it. */
function taskOutput(run: SimRun, task: CompletedTask): object {
  const description = run.taskDescription(task.index);
  return {
    description,
    name: task.name,
    expected_output: run.expectedOutput(task.index),
    summary: `${description.split(/\s+/).slice(0, 10).join(' ')}...`,
    raw: task.output,
    pydantic: null,
    json_dict: task.json ?? null,
    agent: task.agent,
    output_format: task.json === undefined ? 'raw' : 'json',
    messages: [
      { role: 'system', content: `You are ${task.agent}. Work carefully and give your best complete final answer.` },
      { role: 'user', content: `Current Task: ${description}` },
      { role: 'assistant', content: `Thought: I now know the final answer\nFinal Answer: ${task.output}` },
    ],
  };
}
