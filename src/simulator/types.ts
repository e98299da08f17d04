// Configuration and inspection types of the crew simulator. Everything a config file may hold is
// JSON-compatible, so the same objects work in tests, in the extension and in `--config file.json`.

/**
 * Which family of bodies a crew answers with (see the API notes, crew-api.md): the hosted service as
 * it answers (`live`), as documented (`docs`), or a self-hosted server wrapping `crew.kickoff()`
 * (`selfhosted`: FastAPI errors, a JSON Schema for /inputs, `{id}` from /kickoff, lower-case states,
 * crewai's CrewOutput as the result, HTTP 404 for an unknown or forgotten run).
 */
export type Dialect = 'live' | 'docs' | 'selfhosted';

export const DIALECTS: readonly Dialect[] = ['live', 'docs', 'selfhosted'];

/** JSON Schema's type words, as a Pydantic model declares an input. */
export type InputType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/** What a self-hosted server says about one input in its /inputs schema. */
export interface InputDetails {
  /**
   * Default `string`. Any other type is checked at kickoff, in every dialect: a value of another type is a
   * 422 in Pydantic's shape (`detail: [{type, loc: ["body", "inputs", name], msg, input}]`).
   */
  type?: InputType;
  /** For an `object`: its required fields and their types (checked too, `loc` then names the field). */
  fields?: Record<string, InputType>;
  description?: string;
  default?: string;
  enum?: string[];
  /** Default: required unless it has a default. */
  required?: boolean;
}

/**
 * What a run does:
 * - `ok` (default): every task succeeds.
 * - `fail`: the first task raises (same as `failAtTask:0`).
 * - `failAtTask:N`: task N (0-based) raises when it would have finished; earlier tasks succeed.
 * - `notFoundAfterKickoff`: /status says "not found" for `notFoundForMs` after kickoff, then runs normally.
 * - `hang`: the last task never finishes (the run stays RUNNING forever).
 * - `lost`: /status says "not found" for the whole life of the run (an expired or unknown id).
 */
export type Scenario = 'ok' | 'fail' | `failAtTask:${number}` | 'notFoundAfterKickoff' | 'hang' | 'lost';

/**
 * A task's output. `{placeholders}` in strings (also in JSON string leaves) are replaced by the
 * kickoff's inputs, falling back to the crew's `defaults`; unknown placeholders stay as they are.
 * - string: Markdown or plain text.
 * - `{ json }`: a JSON value; live `result` is its text and `result_json` the value.
 * - `{ fencedJson }`: JSON wrapped in a ```json fence, as LLMs often answer; live `result_json` is null.
 * - `{ repeat, bytes }`: `repeat` repeated until the output is `bytes` characters long (large outputs).
 */
export type TaskOutputSpec = string | { json: unknown } | { fencedJson: unknown } | { repeat: string; bytes: number };

export interface TaskConfig {
  /** Task name (`research_task`), or the method name for a flow step. */
  name: string;
  agent: string;
  description?: string;
  expectedOutput?: string;
  /** Simulated duration; multiplied by the simulator's `timeScale`. */
  durationMs: number;
  output: TaskOutputSpec;
  /** Pause the run for human feedback after this task finishes (POST /resume continues it). */
  humanInput?: boolean;
}

/** How the live dialect shows a run waiting for human input. */
export type LivePausedState = 'PAUSED' | 'NOT FOUND';

/** Per-response behaviour that can be set for the whole simulator and overridden per crew. */
export interface ResponseBehaviour {
  /** Default `live`. */
  dialect?: Dialect;
  /**
   * Default `PAUSED` (the platform guide). `NOT FOUND` is what the live service was seen to answer
   * while a human-input task waited: the same body as for an unknown id.
   */
  livePausedState?: LivePausedState;
  /**
   * Default true: while paused, the task id for /resume is in the status body (live:
   * `last_executed_task.id`, docs: top-level `task_id`). False: the user must paste it (and events carry no
   * `task_id` either).
   */
  exposeTaskId?: boolean;
  /**
   * Live only, the event log of newer runtimes (status-events.md): `events`, `events_count`, `events_by_type` and
   * `last_event` in every status reply. Default true; false is `CREWAI_STATUS_EVENTS` switched off (those four null).
   */
  statusEvents?: boolean;
  /** `CREWAI_STATUS_MAX_EVENTS`: a reply lists only the newest this many events (`events_count` counts all); default 1000. */
  statusMaxEvents?: number;
  /**
   * `CREWAI_STATUS_EVENT_FLUSH_SECONDS`, in simulated ms (times timeScale): replies list an event only this long
   * after it happened, so a poll lags the run; default 0.
   */
  statusEventFlushMs?: number;
  /**
   * Live only: a deployment built on crewai ≤ 1.15.21: the event fields and `progress` are null (a redeploy on a
   * newer runtime turns them on). Default false.
   */
  oldRuntime?: boolean;
}

export interface CrewConfig extends ResponseBehaviour {
  /** URL path segment: the crew's base URL is `<origin>/<id>`. */
  id: string;
  name: string;
  kind: 'crew' | 'flow';
  /** GET /inputs. Crews: all required. Flows: state fields (often with `id`), none required. */
  inputs: string[];
  /** Values for placeholders the kickoff did not send (a flow's default state). */
  defaults?: Record<string, string>;
  /** Self-hosted only: descriptions, defaults, allowed values of the inputs in its /inputs schema. */
  inputDetails?: Record<string, InputDetails>;
  /**
   * Self-hosted only: how GET /inputs answers: `schema` (default; a JSON Schema), `absent` (no such
   * route: 404) or `unreadable` (200 with an HTML page).
   */
  selfHostedInputs?: 'schema' | 'absent' | 'unreadable';
  tasks: TaskConfig[];
  /** Random per start when absent. */
  orgToken?: string;
  /** Random per start when absent. */
  userToken?: string;
  /** Default true. False: the user token gets 403 on POST /resume (it is "user-scoped, fewer permissions"). */
  userTokenCanResume?: boolean;
  scenario?: Scenario;
  /** A kickoff with an input value containing this text runs the `fail` scenario (batches with some failing rows). */
  failWhenInputContains?: string;
  /**
   * A kickoff with an input value containing this text has a slow tool call: in the first task, one call takes twice
   * the task's duration on top of it (the task and the run take that much longer).
   */
  slowToolWhenInputContains?: string;
  /** Exception text of a failing run; default `ValueError: Simulated failure in task '<name>'`. */
  failureMessage?: string;
  /** Simulated time a run stays PENDING after kickoff (and after a live resume); default 1500. */
  pendingMs?: number;
  /** For `notFoundAfterKickoff`: simulated time /status answers "not found"; default 3000. */
  notFoundForMs?: number;
  /** POST /kickoff answers 400 when an input value is longer than this (a crew that checks its inputs). */
  maxInputLength?: number;
  /**
   * After it takes a resume, the crew's status still reports the pause it answered for this long (a
   * service whose status lags behind its resume endpoint). Default 0.
   */
  resumeLagMs?: number;
  /** Requests per second this crew accepts (all endpoints); above it: 429 with Retry-After. 0 refuses every request. */
  rateLimitPerSecond?: number;
  /** Answer every request of this crew with `302 Location: <redirectTo><endpoint path>` (security tests). */
  redirectTo?: string;
  /**
   * Live only: like the observed service, POST /resume with an unknown execution id answers 200 with a
   * new kickoff id whose run fails ("'NoneType' object is not subscriptable"). Default false: 404.
   */
  liveResumeAcceptsUnknownExecution?: boolean;
  /** Live only: send `last_executed_task` as a plain string (its output), as some deployments do. */
  liveLastExecutedTaskAsString?: boolean;
  /** Live only: send `progress: null` (older runtimes). */
  liveOmitProgress?: boolean;
  /**
   * A hostile server (security tests): every 2xx status reply echoes the request's Authorization header in each of
   * its text fields one level deep (`status`, `result`, a task's name and output), and in a `token` field.
   */
  echoToken?: boolean;
  /** Faults for this crew only, merged over the simulator's. */
  faults?: FaultOptions;
  /**
   * `POST /stop/{id}` stops a run, as the hosted service does (crew-api.md "Stopping a run"); the
   * default in the hosted dialects, not in `selfhosted`. False: a deployment without the route (a
   * generic 404, or 405 with `stopAnswers405`).
   */
  stopRoute?: boolean;
  /** With `stopRoute: false`, answer 405 instead of the generic 404. */
  stopAnswers405?: boolean;
  /** A conversational flow: GET /inspect says it chats and the /chat routes answer (./chatFlow.ts). */
  chat?: ChatFlowConfig;
}

/** How a conversational flow's turns go (flow-chat.md). Every keyword is matched in the user's message. */
export interface ChatFlowConfig {
  /** Simulated ms between two token frames (times timeScale); default 40. */
  tokenIntervalMs?: number;
  /** The answer; `{message}` is the user's message. Default: a paragraph that quotes it. */
  answer?: string;
  /** The turn fails after a few tokens; default `#fail`. */
  failKeyword?: string;
  /** Every open stream is cut once, half way through the answer (the turn goes on); default `#drop`. */
  dropKeyword?: string;
  /**
   * The cut waits for a stream to cut, and the turn goes on only once one attaches again: it is still running when
   * the client comes back, however slow the client (tests of the reattach). Default: cut what is open, go on at once.
   */
  dropWaitsForReattach?: boolean;
  /** POST /chat/{id}/message answers 500 and does not take the message; default `#500`. */
  messageErrorKeyword?: string;
  /** The turn pauses for a human's approval (POST /resume_feedback continues it); default `#approve`. */
  approveKeyword?: string;
  /** Simulated ms between keepalive comments; default 15000. */
  keepaliveMs?: number;
  /** Every token frame is followed by an `llm_stream_chunk` frame with the same text (clients prefer `token`). */
  sendChunks?: boolean;
  /** The stream route answers 502, as a proxy that does not pass streams: clients must poll /history. */
  streamUnavailable?: boolean;
  /** Token frames written back to back before each pause (a fast model, a proxy flushing late); default 1. */
  burst?: number;
  /** A frame that is not JSON and one of an unknown type, a third of the way in; default `#garbage`. */
  garbageKeyword?: string;
  /** The stream sends keepalives only (the turn goes on, its answer reaches /history alone); default `#stall`. */
  stallKeyword?: string;
  /** The turn never ends: its answer streams, then `active_kickoff_id` stays set and only keepalives come; default `#hang`. */
  hangKeyword?: string;
  /** The answer spells the caller's bearer token, split over token frames and in an event; default `#echo`. */
  echoKeyword?: string;
  /** The turn fails at once, before any stream can attach; the failure is in GET /status only; default `#failfast`. */
  failFastKeyword?: string;
}

/** Read faults: answers a flaky gateway or network gives to GET /inputs and GET /status. */
export type ReadFaultKind =
  /** Plain-text 500 Internal Server Error. */
  | '500'
  /** 502 with an HTML body, as a gateway sends. */
  | '502html'
  /** 503 with Retry-After. */
  | '503'
  /** 429 with Retry-After. */
  | '429'
  /** The socket is destroyed without an answer. */
  | 'reset'
  /** 200 with a body that is not valid JSON. */
  | 'malformed'
  /** Content-Length larger than the body sent, then the connection closes. */
  | 'truncated'
  /** The answer is held for `stallMs`, then sent (if the client still waits). */
  | 'stall';

export const READ_FAULT_KINDS: readonly ReadFaultKind[] = ['500', '502html', '503', '429', 'reset', 'malformed', 'truncated', 'stall'];

/** Network-level faults. Their durations are real milliseconds: `timeScale` does not apply. */
export interface FaultOptions {
  /** Added to every response. */
  latencyMs?: number;
  /** Added to the first request to a crew after it has idled for `idleAfterMs` (and to its very first). */
  coldStartMs?: number;
  /** Default 300 000 (5 minutes). */
  idleAfterMs?: number;
  /** Probability (0..1) that a GET /inputs or GET /status gets a read fault instead of its answer. */
  readFaultRate?: number;
  /** The kinds chosen among (uniformly, by the seeded PRNG); default all of READ_FAULT_KINDS. */
  readFaultKinds?: ReadFaultKind[];
  /** How long a `stall` holds the answer; default 10 000. */
  stallMs?: number;
  /** Retry-After (seconds) on 429/503 faults and rate limiting; default 1. */
  retryAfterSeconds?: number;
}

export interface SimulatorOptions extends ResponseBehaviour {
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 0: a random free port. */
  port?: number;
  /** Multiplies every simulated duration (task, pending, not-found window); default 1. */
  timeScale?: number;
  /** Default: the demo crews (with fresh random tokens). */
  crews?: CrewConfig[];
  faults?: FaultOptions;
  /** Seed of the PRNG that picks faults; default random. Same seed, same request order: same faults. */
  seed?: number;
  /** The platform (organization) routes; served always, with demo defaults. */
  platform?: PlatformConfig;
}

/** A crew as served: where it is and the tokens it accepts. */
export interface ServedCrew {
  id: string;
  name: string;
  kind: 'crew' | 'flow';
  /** Base URL, no trailing slash. */
  url: string;
  orgToken: string;
  userToken: string;
}

export type Endpoint = 'inputs' | 'kickoff' | 'status' | 'resume' | 'stop' | 'other';

export interface RequestLogEntry {
  /** Real ms timestamp when the request arrived. */
  time: number;
  /** Undefined when the path names no crew. */
  crewId?: string;
  endpoint: Endpoint;
  method: string;
  /** Path without the query string. */
  path: string;
  /** HTTP status sent; 0 when no answer was sent (reset, or the client went away). */
  status: number;
  hasAuthorization: boolean;
  /** Which token was presented; the token itself is never stored. */
  tokenKind: 'org' | 'user' | 'invalid' | 'none';
  /** What the simulator did instead of the normal answer, if anything. */
  fault?: ReadFaultKind | 'rateLimit' | 'redirect';
  /** The crew had idled (or never answered): this request waited for its cold start. */
  coldStart?: true;
  /** Real ms from arrival to the end of the answer. */
  durationMs: number;
}

export type ResumeStyle = 'snake' | 'camel' | 'mixed' | 'neither';

export interface ResumeRecord {
  time: number;
  crewId: string;
  /** Body as received (parsed JSON; the raw text when it did not parse). */
  body: unknown;
  style: ResumeStyle;
  /** HTTP status answered. */
  status: number;
  /** What the resume did, when accepted. */
  action?: 'approve' | 'retry';
  /** The run it applied to (its original kickoff id), when one was found. */
  runId?: string;
  /** Live: the new kickoff id answered. */
  newKickoffId?: string;
}

/** Where a run is, in the simulator's own words (not a dialect's). */
export type SimRunPhase = 'pending' | 'running' | 'paused' | 'succeeded' | 'failed' | 'stopped';

export interface CompletedTaskInfo {
  name: string;
  agent: string;
  /** The output text as the service shows it (`raw`). */
  output: string;
  /** Real ms timestamps. */
  startedAt: number;
  finishedAt: number;
  /** Feedback that produced this output (retries after `is_approve: false`). */
  feedback: string[];
}

export interface RunInfo {
  /** The original kickoff id. */
  id: string;
  /** The id the run currently answers to (live resumes give it a new one). */
  kickoffId: string;
  /** Every id the run had, original first. */
  kickoffIds: string[];
  crewId: string;
  inputs: Record<string, unknown>;
  scenario: Scenario;
  phase: SimRunPhase;
  /** Real ms timestamps. */
  createdAt: number;
  /** When the simulated run reached SUCCESS, FAILED or was stopped (computed exactly, not when someone looked). */
  finishedAt?: number;
  /** Index of the task running, or paused after. */
  currentTaskIndex: number;
  completedTasks: CompletedTaskInfo[];
  /** While paused: the id POST /resume expects. */
  pausedTaskId?: string;
  pausedTaskName?: string;
  /** Accepted resumes of this run. */
  resumes: ResumeRecord[];
  failure?: string;
}

/**
 * The organization-level platform API (platform-api.md) the simulator serves under `/crewai_plus/api/v1/…`.
 * - `full`: the list and the status name `public_url`; the status also gives the deployment's bearer `token`.
 * - `urlOnly`: `public_url` everywhere, never a token (the user is asked for it).
 * - `namesOnly`: name, uuid and status only.
 */
export type PlatformShape = 'full' | 'urlOnly' | 'namesOnly';

export interface PlatformDeploymentConfig {
  uuid: string;
  /** The organization it belongs to (another organization's request gets 404 deployment_not_found). */
  organization: string;
  /** The served crew behind it (its URL and organization token), if any. */
  crewId?: string;
  name: string;
  shape?: PlatformShape;
  /** The next redeploy fails ("Provisioning Failed, try again.") with logs saying why. */
  failNextDeploy?: boolean;
  /** Build log lines before the usual three (a long log: the 50,000-line case). */
  extraLogLines?: number;
  /** Its numeric id for the deployment API (default 103671 + its index). */
  deploymentId?: number;
  /** Its status names no `deployment_id` (an installation that does not say it: the user is asked for it). */
  statusWithoutId?: boolean;
  /** Its status words until a redeploy (default "Crew is Online"); e.g. "Provisioning Failed, try again.", with no crewId. */
  status?: string;
}

export interface PlatformConfig {
  /** The personal access token accepted (default `crewai-demo-token`). */
  token?: string;
  organizations?: { uuid: string; name: string }[];
  /** Default: one per served crew, in the first organization, shape `full`. */
  deployments?: PlatformDeploymentConfig[];
  /** How long each redeploy phase (enqueued, building) lasts, in real ms before timeScale; default 1500. */
  phaseMs?: number;
  /** How long after a redeploy request the status still says what it said before (ms before timeScale); default 0. */
  startLagMs?: number;
  /** Another personal access token the deployment API accepts (a CI's); default `pat_crewai-demo-ci-token`. */
  ciToken?: string;
  /** Requests per second per token (a sliding one-second window); more are answered 429 with Retry-After. */
  rateLimitPerSecond?: number;
  /** Real ms before each answer (before the rate limit, as a crew's latency is), so requests overlap as on a network. */
  latencyMs?: number;
  /** The automation triggers' apps (default: ./platformTriggers.ts's demo apps); false: their routes answer 404. */
  triggerApps?: PlatformTriggerAppConfig[] | false;
}

/** A trigger app of the platform (platform-api.md, "Automation triggers") and what each of its triggers sends. */
export interface PlatformTriggerAppConfig {
  slug: string;
  name: string;
  description?: string;
  connected: boolean;
  /** `payloadBody`: the payload route's raw reply (hostile bodies), else `{"sample_payload": samplePayload}`. */
  triggers: { slug: string; name: string; description?: string; samplePayload?: unknown; payloadBody?: string }[];
}

/** What the platform routes saw since the start (or the last resetStats()). */
export interface PlatformStats {
  requests: number;
  /** Answered 429 by the rate limit. */
  rateLimited: number;
  /** Requests received and not yet answered (or abandoned) now. */
  inFlight: number;
  /** The most requests that were in flight at once. */
  maxInFlight: number;
}

/** An answer before it is written; `body` strings go out as text/plain unless a content type is set. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Text, a value sent as JSON, or JSON's bytes made beforehand (a Buffer). */
  body: string | object;
}
