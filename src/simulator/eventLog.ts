// A run's event log (status-events.md) as a pure function of the run and a moment: the events its runtime
// would have emitted by then, drawn from the run's task attempts. What varies (how many model calls, which
// tools, token counts) comes from a seed of the crew, the inputs and the attempt, and every id from the run's
// id, so each poll of a run sees the same log, only longer, and tests see stable shapes. Summaries carry
// no prompts and no outputs, as the service's do.

import { createHash } from 'node:crypto';
import { seededRandom } from './faults';
import type { SimRun, TaskAttempt } from './runEngine';

/** One event summary as a status reply lists it, and the real ms it happened at. */
export interface LoggedEvent {
  at: number;
  event: Record<string, unknown>;
}

export interface UsageTotals {
  total_tokens: number;
  prompt_tokens: number;
  cached_prompt_tokens: number;
  completion_tokens: number;
  successful_requests: number;
}

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini'];
const TOOLS: readonly { name: string; args: (query: string, task: string) => Record<string, string> }[] = [
  { name: 'search_tool', args: (query) => ({ search_query: query }) },
  { name: 'scrape_website', args: (_query, task) => ({ website_url: `https://example.com/${task.replace(/_/g, '-')}` }) },
  { name: 'read_file', args: (_query, task) => ({ file_path: `knowledge/${task}.md` }) },
];
/** Long enough to find again, short enough that an input cannot fill the log. */
const QUERY_CHARS = 60;

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A UUID (version 4 layout) that the same text always gives. */
export function stableUuid(text: string): string {
  const bytes = sha256(text).subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const iso = (ms: number): string => new Date(ms).toISOString();

interface Step {
  kind: 'llm' | 'tool';
  weight: number;
  /** Tool steps: this one raises (a failing run's last step). */
  fails?: boolean;
  /** Tool steps: this one takes the attempt's slow-tool time on top of its share. */
  slow?: boolean;
  fromCache?: boolean;
  tool?: (typeof TOOLS)[number];
  /** Model steps: the last, answering call. */
  final?: boolean;
}

/** What one attempt does, in order: model calls, each but the last followed by a tool call. */
function planSteps(random: () => number, fails: boolean, slow: boolean): Step[] {
  let toolCalls = Math.floor(random() * 3);
  if (slow && toolCalls === 0) {
    toolCalls = 1; // the slow call needs a tool call to be
  }
  const steps: Step[] = [];
  for (let i = 0; i < toolCalls; i++) {
    steps.push({ kind: 'llm', weight: 3 + random() * 3 });
    const fromCache = !(slow && i === 0) && random() < 0.2;
    steps.push({ kind: 'tool', weight: fromCache ? 0.3 : 1 + random() * 2, slow: slow && i === 0, fromCache, tool: TOOLS[Math.floor(random() * TOOLS.length)] });
  }
  steps.push({ kind: 'llm', weight: 3 + random() * 3, final: !fails });
  if (fails) {
    steps.push({ kind: 'tool', weight: 1 + random() * 2, fails: true, tool: TOOLS[0] });
  }
  return steps;
}

/** The first input's text, as a search would use it. */
function queryOf(run: SimRun, index: number): string {
  const first = Object.values(run.inputs).find((value) => typeof value === 'string' && value.trim() !== '');
  const words = run.tasks[index].name.replace(/_/g, ' ');
  return typeof first === 'string' ? `${first.slice(0, QUERY_CHARS)} ${words}` : words;
}

/** Collects events in emission order, giving each its id, sequence number and predecessor. */
class Emitter {
  readonly events: LoggedEvent[] = [];

  constructor(private readonly runId: string) {}

  /** An id for the next event's `salt` (its own id, a model call's id). */
  id(salt: string): string {
    return stableUuid(`${this.runId}:${salt}:${this.events.length}`);
  }

  emit(at: number, type: string, sourceType: string, parentId: string | null, fields: Record<string, unknown> = {}): string {
    const eventId = this.id('event');
    const previous = this.events[this.events.length - 1]?.event['event_id'] ?? null;
    this.events.push({
      at,
      event: {
        type,
        timestamp: iso(at),
        event_id: eventId,
        parent_event_id: parentId,
        previous_event_id: previous,
        emission_sequence: this.events.length + 1,
        source_type: sourceType,
        task_id: null,
        task_name: null,
        agent_id: null,
        agent_role: null,
        ...fields,
      },
    });
    return eventId;
  }
}

/** The events of one task attempt (a flow's method): its scope, the agent's, and the model and tool calls inside. */
function attemptEvents(run: SimRun, out: Emitter, attempt: TaskAttempt, rootId: string): void {
  const { index, retry, startedAt } = attempt;
  const task = run.tasks[index];
  const isFlow = run.kind === 'flow';
  const random = seededRandom(sha256(`${run.crewId}\n${JSON.stringify(run.inputs)}\n${index}\n${retry}`).readUInt32LE(0));
  // A hanging task never gets as far as raising.
  const fails = run.failsAt(index) && !run.hangsAt(index);
  const base = run.baseDurationMs(index);
  const slowMs = run.slowToolMs(index, retry);
  const steps = planSteps(random, fails, slowMs > 0);
  // As the run engine computes it, to the last bit: its task ends and the log's are one moment. (A stop cuts
  // the plan off where it came, with the rest of the log.)
  const end = startedAt + run.attemptDurationMs(index, retry);
  const model = MODELS[sha256(`${run.crewId}\n${task.agent}`).readUInt8(0) % MODELS.length];
  // Methods of a flow are not tasks: their events name the method instead.
  const outer = isFlow ? { method_name: task.name, flow_name: run.crewName } : { task_id: run.taskIds[index], task_name: task.name };
  const inner = { ...(isFlow ? {} : outer), agent_id: stableUuid(`${run.crewId}:agent:${task.agent}`), agent_role: task.agent };

  const scopeId = out.emit(startedAt, isFlow ? 'method_execution_started' : 'task_started', isFlow ? 'flow' : 'task', rootId, outer);
  const agentId = out.emit(startedAt, 'agent_execution_started', 'agent', scopeId, inner);

  // Each step takes its weight's share of the task's own duration; the slow tool call also the slow time.
  const total = 0.3 + 0.2 + steps.reduce((sum, step) => sum + step.weight, 0);
  let cursor = 0.3;
  let offset = 0;
  const at = (weight: number) => startedAt + offset + (base * weight) / total;
  let prompt = 0;
  let calls = 0;
  for (const step of steps) {
    const from = at(cursor);
    cursor += step.weight;
    if (step.slow) {
      offset += slowMs;
    }
    const to = at(cursor);
    if (step.kind === 'llm') {
      const callId = out.id('call');
      const started = out.emit(from, 'llm_call_started', 'agent', agentId, { ...inner, model, call_id: callId });
      if (run.hangsAt(index) && step === steps[steps.length - 1]) {
        return; // the hanging task's last call never answers
      }
      const cached = calls === 0 ? 0 : Math.floor((prompt * 0.5) / 64) * 64;
      prompt = 420 + 140 * index + 260 * calls + Math.floor(random() * 180);
      const completion = step.final ? 300 + Math.floor(random() * 500) : 40 + Math.floor(random() * 120);
      calls += 1;
      out.emit(to, 'llm_call_completed', 'agent', agentId, {
        ...inner,
        started_event_id: started,
        model,
        call_id: callId,
        call_type: 'llm_call',
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cached_prompt_tokens: cached },
        finish_reason: step.final ? 'stop' : 'tool_calls',
      });
      continue;
    }
    const tool = step.tool ?? TOOLS[0];
    const toolFields = { ...inner, tool_name: tool.name, tool_args: tool.args(queryOf(run, index), task.name) };
    const started = out.emit(from, 'tool_usage_started', 'agent', agentId, toolFields);
    if (step.fails) {
      out.emit(to, 'tool_usage_error', 'agent', agentId, { ...toolFields, started_event_id: started, error: run.failureText(index) });
    } else {
      out.emit(to, 'tool_usage_finished', 'agent', agentId, { ...toolFields, started_event_id: started, started_at: iso(from), finished_at: iso(to), from_cache: step.fromCache ?? false });
    }
  }

  if (fails) {
    const error = run.failureText(index);
    out.emit(end, 'agent_execution_error', 'agent', scopeId, { ...inner, started_event_id: agentId, error });
    out.emit(end, isFlow ? 'method_execution_failed' : 'task_failed', isFlow ? 'flow' : 'task', rootId, { ...outer, started_event_id: scopeId, error });
    return;
  }
  out.emit(end, 'agent_execution_completed', 'agent', scopeId, { ...inner, started_event_id: agentId });
  if (!isFlow || !task.humanInput) {
    out.emit(end, isFlow ? 'method_execution_finished' : 'task_completed', isFlow ? 'flow' : 'task', rootId, { ...outer, started_event_id: scopeId });
    return;
  }
  // A flow waiting for feedback: its method pauses, and ends when a human answers.
  out.emit(end, 'method_execution_paused', 'flow', scopeId, outer);
  out.emit(end, 'flow_paused', 'flow', rootId, { flow_name: run.crewName });
  if (attempt.resumedAt !== undefined) {
    out.emit(attempt.resumedAt, 'method_execution_finished', 'flow', rootId, { ...outer, started_event_id: scopeId });
  }
}

/**
 * Every event the run emitted by `now` (the run already advanced to it), oldest first. Cheap enough to
 * rebuild per poll: a run has tens of events per task.
 */
export function runEvents(run: SimRun, now: number): LoggedEvent[] {
  if (run.runningSince === undefined) {
    return [];
  }
  const out = new Emitter(run.id);
  const isFlow = run.kind === 'flow';
  const rootId = isFlow
    ? out.emit(run.runningSince, 'flow_started', 'flow', null, { flow_name: run.crewName })
    : out.emit(run.runningSince, 'crew_kickoff_started', 'crew', null, { crew_name: run.crewName });
  for (const attempt of run.attempts) {
    attemptEvents(run, out, attempt, rootId);
  }
  const endedAt = run.finishedAt;
  if (endedAt !== undefined && run.phase === 'succeeded') {
    out.emit(endedAt, isFlow ? 'flow_finished' : 'crew_kickoff_completed', isFlow ? 'flow' : 'crew', null, {
      [isFlow ? 'flow_name' : 'crew_name']: run.crewName,
      started_event_id: rootId,
    });
  } else if (endedAt !== undefined && run.phase === 'failed' && !isFlow) {
    out.emit(endedAt, 'crew_kickoff_failed', 'crew', null, { crew_name: run.crewName, started_event_id: rootId, error: run.failure ?? null });
  }
  // A stopped run's events end where it stopped; the running task's are planned ahead of time.
  const until = run.phase === 'stopped' && endedAt !== undefined ? Math.min(now, endedAt) : now;
  return out.events.filter((logged) => logged.at <= until);
}

/** Run totals of the model calls among `events` (the service's `usage_metrics`). */
export function usageTotals(events: readonly LoggedEvent[]): UsageTotals {
  const totals: UsageTotals = { total_tokens: 0, prompt_tokens: 0, cached_prompt_tokens: 0, completion_tokens: 0, successful_requests: 0 };
  for (const { event } of events) {
    const usage = event['type'] === 'llm_call_completed' ? (event['usage'] as Omit<UsageTotals, 'successful_requests'>) : undefined;
    if (usage) {
      totals.total_tokens += usage.total_tokens;
      totals.prompt_tokens += usage.prompt_tokens;
      totals.cached_prompt_tokens += usage.cached_prompt_tokens;
      totals.completion_tokens += usage.completion_tokens;
      totals.successful_requests += 1;
    }
  }
  return totals;
}
