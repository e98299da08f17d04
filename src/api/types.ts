// Shapes the rest of the extension works with, independent of which body family the service sent.
import type { Inputs, InputValue } from './inputValues';

/** A run's state after normalisation (see the shared API notes, "Normalising a status"). */
export type RunState =
  | 'queued'
  | 'running'
  | 'awaitingFeedback'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'notFound'
  /** A state word we do not know: treated as still running, never as an end. */
  | 'unknown';

/**
 * The name given to a task the service did not name (shown translated: taskName.ts). Here rather than beside its
 * translation so that the normaliser imports no l10n: it also runs on the status reader's thread, where there is no
 * `vscode` (api/statusReader.ts).
 */
export const UNNAMED_TASK = 'Unnamed task';

export const FINAL_STATES: ReadonlySet<RunState> = new Set(['succeeded', 'failed', 'cancelled']);

export interface TaskOutput {
  /** Task name (or description when the service sends no name). */
  name: string;
  output: string;
  agent?: string;
  description?: string;
  taskId?: string;
  executionTime?: number;
  /** 2, 3, ... when this is a later output of a task already seen (retried after human feedback). */
  attempt?: number;
}

export interface Progress {
  unit: 'task' | 'step';
  completed?: number;
  /** Absent or null: unknown total ("step N", not a percentage). */
  total?: number | null;
  current?: string;
  currentAgent?: string;
}

/** The latest agent step, whichever of its fields the service sent. */
export interface AgentStep {
  prompt?: string;
  thought?: string;
  action?: string;
  tool?: string;
  toolInput?: string;
  result?: string;
}

export interface FinalOutput {
  /** `json` when the output parsed as JSON (object or array); `text` is then its pretty print. */
  kind: 'json' | 'markdown';
  text: string;
  json?: unknown;
}

/** What a paused run asks a human to review. */
export interface FeedbackRequest {
  /** Task id for /resume when the body reveals it; otherwise the user must supply it. */
  taskId?: string;
  taskName?: string;
  /** The task output to review. */
  output?: string;
  /** `flow_id` of a flow waiting for feedback: flows may take feedback through the platform's HITL callback, not /resume. */
  flowId?: string;
}

export interface StatusSnapshot {
  state: RunState;
  /** The state word as received (`state`, else `status`), before normalisation. */
  rawState?: string;
  /** The service's human message (live `status` when `state` is present, docs `message`). */
  message?: string;
  currentTask?: string;
  currentAgent?: string;
  progress?: Progress;
  lastStep?: AgentStep;
  /** `last_executed_task` of this body, when present. */
  lastTask?: TaskOutput;
  /** Per-task outputs this body carries (result.tasks, else tasks_output, else [lastTask]). */
  tasks: TaskOutput[];
  /** Where `tasks` came from: a complete list (`result.tasks`, `tasks_output`) or only the latest task. */
  tasksSource?: 'result' | 'tasks_output' | 'last_executed_task';
  finalOutput?: FinalOutput;
  error?: string;
  usage?: Record<string, number>;
  /** How many usage entries the crew sent, when that is more than `usage` keeps (STATUS_LIMITS). */
  usageListed?: number;
  /** How many tasks the crew listed, when that is more than `tasks` keeps (STATUS_LIMITS). */
  tasksListed?: number;
  executionTime?: number;
  /** Set when the run waits for human feedback. */
  feedback?: FeedbackRequest;
  /**
   * Not found was an HTTP 404 (the server's own words in `message`), not the hosted service's
   * `200 {state: "NOT FOUND"}` body: after a run was seen, the server forgot it.
   */
  httpNotFound?: boolean;
  /** The event log this reply carried (newer runtimes; see status-events.md). */
  eventLog?: StatusEventLog;
  /** The body as received, for the raw-JSON view. */
  raw: unknown;
}

/** One input a crew takes, with whatever the crew said about it (hosted crews give names only). */
export interface InputSpec {
  name: string;
  /** Shown as the prompt of the input's step. */
  description?: string;
  /** The step's initial value. */
  default?: string;
  /** The only values the crew accepts: offered as picks. */
  enum?: string[];
  /** Undefined when the crew does not say: then every input is required but a flow's `id`. */
  required?: boolean;
  /**
   * The declared type word (`string`, `integer`, `object`, …): the step's editor follows it (see inputKind),
   * and the prompt shows it.
   */
  type?: string;
  /** For an object or a list: what its JSON editor starts from (a default, else the schema's fields, empty). */
  skeleton?: InputValue;
}

/** What GET /inputs told about a crew's inputs. */
export type CrewInputs =
  | { described: true; inputs: InputSpec[] }
  /**
   * The crew answered and took the token, but does not describe its inputs (no /inputs route, or a
   * body that is no input list): the user names them. `reason` is in the server's words when it gave any.
   */
  | { described: false; reason: string };

export interface KickoffRequest {
  /** Any JSON value per input: the type the user gave is the type sent. */
  inputs: Inputs;
  meta?: Record<string, unknown>;
  taskWebhookUrl?: string;
  stepWebhookUrl?: string;
  crewWebhookUrl?: string;
}

export interface ResumeRequest {
  executionId: string;
  taskId: string;
  humanFeedback: string;
  isApprove: boolean;
  taskWebhookUrl?: string;
  stepWebhookUrl?: string;
  crewWebhookUrl?: string;
}

export type ResumeResult =
  /** The run goes on under the same id; `status` as the service said it (resumed, retrying, completed). */
  | { kind: 'resumed'; status?: string; message?: string }
  /** The live service answered with a new kickoff id: follow the run under it. */
  | { kind: 'continuedAs'; kickoffId: string };

/** What the poller needs from the API client (the client implements it). */
export interface StatusSource {
  /**
   * GET /status/{kickoffId} on the crew at `crewUrl` (normalised base URL), normalised.
   * Throws CrewApiError; a 404 or a `NOT FOUND` body is returned as state `notFound`, not thrown.
   */
  getStatus(crewUrl: string, kickoffId: string, signal?: AbortSignal, knownEvents?: KnownEvents): Promise<StatusSnapshot>;
}

/**
 * One entry of a status's event log (status-events.md), as read: every field optional, texts clipped, the crew's
 * words untrusted. The service does not publish an entry's fields: what is not understood stays in `extra`.
 */
export interface RunEvent {
  /** What deduplicates it across polls: `id:<event_id>`, else `h:<hash of the whole entry>`. */
  key: string;
  /** snake_case type word (`task_started`, `llm_call_completed`, …); `unknown` when the entry has none. */
  type: string;
  /** Epoch milliseconds of `timestamp`, when it parsed. */
  at?: number;
  /** `emission_sequence`: orders events of the same instant. */
  seq?: number;
  id?: string;
  parentId?: string;
  /** On an ending event: the `event_id` of its start. */
  startedId?: string;
  taskId?: string;
  taskName?: string;
  agentId?: string;
  agentRole?: string;
  /** Model calls: `model`, `call_id`; `finish_reason`. */
  model?: string;
  callId?: string;
  finishReason?: string;
  /** Tool calls: `tool_name`, `tool_args` (as compact text), `from_cache`. */
  toolName?: string;
  toolArgs?: string;
  fromCache?: boolean;
  /** Flows: `method_name`, `flow_name`. */
  methodName?: string;
  flowName?: string;
  /** `error` (or a failure's message). */
  error?: string;
  /** Token counts where the event says (`usage` of a model call). */
  usage?: EventUsage;
  /** Tool ends: `started_at` / `finished_at` as epoch milliseconds. */
  startedAt?: number;
  finishedAt?: number;
  /** Fields not read above, each as clipped compact text (at most a few). */
  extra?: Record<string, string>;
}

export interface EventUsage {
  promptTokens?: number;
  completionTokens?: number;
  cachedPromptTokens?: number;
  totalTokens?: number;
}

/**
 * The events a run already keeps, as 53-bit hashes of their keys (statusEvents.ts eventKeyHash): the status reader
 * leaves them out of the snapshot, so a poll hands the host only the events it has not seen. A typed array: it
 * crosses to the reader's thread as one block.
 */
export type KnownEvents = Float64Array;

/** The event log fields of one status reply (status-events.md), bounded. */
export interface StatusEventLog {
  /** The reply carried an event list (possibly empty); false when the fields were absent or null (older runtimes). */
  present: boolean;
  /** This reply's window, oldest first, as read (at most EVENT_LIMITS.perReply). */
  events: RunEvent[];
  /** Entries this reply listed but that were not read (beyond the limit). */
  notRead?: number;
  /** Entries left out because the run already keeps them (KnownEvents). */
  known?: number;
  /** `events_count`: how many events the run has emitted in all. */
  count?: number;
  byType?: Record<string, number>;
  /** `usage_metrics` as run totals. */
  usage?: EventUsage & { successfulRequests?: number };
  triggeredBy?: { type: string; id?: string };
  origin?: string;
  /** `source`: `memory` or `application` (no events for `application`). */
  source?: string;
}
