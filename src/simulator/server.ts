/**
 * Crew simulator: a real HTTP server (node:http only) that behaves like deployed CrewAI crews, so the
 * extension can be tried and tested without a network. Bodies follow the team's API notes (crew-api.md).
 *
 * In-process: `import { startSimulator } from '…/simulator/server'` (bundled as dist/simulator.js).
 * CLI: ./main.ts (dist/simulator-cli.js, `npm run simulator -- --help`).
 *
 * API
 *   startSimulator(options?: SimulatorOptions): Promise<Simulator>
 *     options: host ('127.0.0.1'), port (0 = random), dialect ('live' | 'docs' | 'selfhosted', default 'live'),
 *     livePausedState ('PAUSED' | 'NOT FOUND', default 'PAUSED'), exposeTaskId (default true),
 *     timeScale (default 1; multiplies every simulated duration), crews (default demoCrews()),
 *     faults (FaultOptions), seed (fault PRNG; default random). See ./types for every field.
 *   Simulator
 *     port, origin ('http://127.0.0.1:<port>'), crewUrl(id) (base URL, no trailing slash),
 *     crews: ServedCrew[] ({ id, name, kind, url, orgToken, userToken }; tokens random per start
 *       unless the config gives them),
 *     requestLog: { entries, counts(crewId?), clear() } — never holds a token,
 *     resumes: ResumeRecord[] — every POST /resume that passed auth, with its body and style,
 *     faults / setFaults(f) — replaces the simulator-wide faults at runtime,
 *     updateCrew(id, patch) — e.g. scenario, dialect, tokens, rateLimitPerSecond, redirectTo, faults;
 *       response knobs apply to the next request, run knobs (tasks, scenario) to the next kickoff,
 *     getRun(kickoffId) / listRuns() — RunInfo: phase, finishedAt (exact real ms the run ended),
 *       completed tasks, paused task id, resumes,
 *     close() — stops listening and destroys every open socket (keep-alive, stalled): nothing lingers.
 *
 * Routes (per crew, base URL `<origin>/<crewId>`): GET /inputs, POST /kickoff, GET /status/{id},
 * POST /resume, POST /stop/{id} (hosted dialects; `stopRoute` overrides), all with `Authorization: Bearer <orgToken|userToken>`. Anything else: 404 (405 for a
 * wrong method). A request first meets, in order: redirect (crew.redirectTo), cold start, latency,
 * rate limit, read faults (GET /inputs and GET /status only), then routing, then auth.
 *
 * Decisions the client side must know:
 * - Paused runs: live `state: "PAUSED"` with the task id in `last_executed_task.id`, or, with
 *   livePausedState 'NOT FOUND', the very body of an unknown id (no task id anywhere); docs
 *   `status: "pending_human_input"` with top-level `task_id` and `task_output`. exposeTaskId=false hides
 *   the id in both. Task ids are UUIDs, stable across retries; docs also accept the task name.
 * - Live resume: camelCase only (snake_case → FastAPI 422 naming executionId and taskId); answers
 *   `{kickoff_id: <new id>}`; the run continues under the new id (PENDING, then the next task, with
 *   execution_origin 'hitl-resume', progress counting all tasks). The OLD id answers NOT FOUND from then
 *   on, like a finished Celery task the service no longer tracks. Resume accepts any id of the run.
 * - Docs resume: snake_case (camelCase tolerated) → `{status: resumed|retrying|completed, message}`,
 *   same id. `is_approve` defaults to true when absent, in both dialects.
 * - `is_approve: false` reruns the paused task; its output gains "Revised after feedback: …" lines
 *   (JSON outputs: a `revised_after_feedback` field) and the run pauses again.
 * - userTokenCanResume=false: the user token gets 403 on POST /resume; it works everywhere else.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { demoCrews } from './demoCrews';
import * as dialects from './dialects';
import type { Reply } from './dialects';
import { DEFAULT_IDLE_AFTER_MS, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_STALL_MS, RateLimiter, faultReply, pickReadFault, seededRandom } from './faults';
import { RequestLog } from './requestLog';
import { SimRun } from './runEngine';
import { isRequiredDetail } from './selfHosted';
import { isPlainObject } from '../util/objects';
import type {
  CrewConfig,
  Dialect,
  Endpoint,
  FaultOptions,
  RequestLogEntry,
  ResumeRecord,
  ResumeStyle,
  RunInfo,
  ServedCrew,
  SimulatorOptions,
} from './types';

export * from './types';
export { demoCrews } from './demoCrews';
export { RequestLog } from './requestLog';

export interface Simulator {
  readonly port: number;
  readonly origin: string;
  readonly crews: readonly ServedCrew[];
  readonly requestLog: RequestLog;
  readonly resumes: readonly ResumeRecord[];
  readonly faults: FaultOptions;
  crewUrl(crewId: string): string;
  setFaults(faults: FaultOptions): void;
  updateCrew(crewId: string, patch: Partial<Omit<CrewConfig, 'id'>>): ServedCrew;
  getRun(kickoffId: string): RunInfo | undefined;
  listRuns(): RunInfo[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_PENDING_MS = 1500;
const DEFAULT_NOT_FOUND_FOR_MS = 3000;

interface CrewState {
  config: CrewConfig & { orgToken: string; userToken: string };
  limiter: RateLimiter;
  lastRequestAt?: number;
}

/** What one request turned into, filled in as it goes and logged when the socket is done with it. */
interface RequestContext {
  started: number;
  crew?: CrewState;
  endpoint: Endpoint;
  method: string;
  path: string;
  /** Path segments after the crew id. */
  rest: string[];
  tokenKind: RequestLogEntry['tokenKind'];
  fault?: RequestLogEntry['fault'];
}

const newToken = (): string => randomBytes(16).toString('hex');

/** The defaults a self-hosted crew's schema declares fill its placeholders like a flow's defaults. */
function schemaDefaults(config: CrewConfig): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config.inputDetails ?? {}).flatMap(([name, details]) => (details.default === undefined ? [] : [[name, details.default]])),
  );
}

function validateCrews(crews: CrewConfig[]): void {
  const seen = new Set<string>();
  for (const crew of crews) {
    if (!/^[A-Za-z0-9._~-]+$/.test(crew.id)) {
      throw new Error(`Crew id ${JSON.stringify(crew.id)} must be a non-empty URL path segment`);
    }
    if (seen.has(crew.id)) {
      throw new Error(`Duplicate crew id ${crew.id}`);
    }
    seen.add(crew.id);
  }
}

function classify(rest: string[]): Endpoint {
  if (rest.length === 1 && (rest[0] === 'inputs' || rest[0] === 'kickoff' || rest[0] === 'resume')) {
    return rest[0];
  }
  if (rest.length === 2 && rest[1] !== '' && (rest[0] === 'status' || rest[0] === 'stop')) {
    return rest[0];
  }
  return 'other';
}


function resumeStyle(body: Record<string, unknown>): ResumeStyle {
  const snake = ['execution_id', 'task_id', 'human_feedback', 'is_approve'].some((key) => key in body);
  const camel = ['executionId', 'taskId', 'humanFeedback', 'isApprove'].some((key) => key in body);
  return snake && camel ? 'mixed' : snake ? 'snake' : camel ? 'camel' : 'neither';
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

type Parsed = { ok: true; value: unknown } | { ok: false; raw: string };

function parseJson(text: string): Parsed {
  if (text.trim() === '') {
    return { ok: true, value: {} };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, raw: text };
  }
}

function serialize(reply: Reply): { headers: Record<string, string>; payload: Buffer } {
  const isText = typeof reply.body === 'string';
  const payload = Buffer.from(isText ? (reply.body as string) : JSON.stringify(reply.body), 'utf8');
  return {
    headers: {
      'Content-Type': isText ? 'text/plain; charset=utf-8' : 'application/json',
      ...reply.headers,
      'Content-Length': String(payload.length),
    },
    payload,
  };
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale >= 0) || !Number.isFinite(timeScale)) {
    throw new Error(`timeScale must be a finite number >= 0, got ${options.timeScale}`);
  }
  const defaultDialect: Dialect = options.dialect ?? 'live';
  const configs = options.crews ?? demoCrews();
  validateCrews(configs);

  const crews = new Map<string, CrewState>();
  for (const config of configs) {
    crews.set(config.id, {
      config: { ...structuredClone(config), orgToken: config.orgToken ?? newToken(), userToken: config.userToken ?? newToken() },
      limiter: new RateLimiter(),
    });
  }
  /** Every kickoff id (original and continuations) → its run. */
  const runs = new Map<string, SimRun>();
  const requestLog = new RequestLog();
  const resumes: ResumeRecord[] = [];
  const random = seededRandom(options.seed ?? randomBytes(4).readUInt32LE(0));
  let faults: FaultOptions = { ...options.faults };

  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  let origin = '';

  /** A delay that close() cancels (its promise then never settles, and its request is abandoned). */
  const sleep = (ms: number): Promise<void> =>
    ms > 0
      ? new Promise((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve();
          }, ms);
          timers.add(timer);
        })
      : Promise.resolve();

  const crewUrl = (crewId: string): string => `${origin}/${encodeURIComponent(crewId)}`;
  const dialectOf = (crew: CrewState | undefined): Dialect => crew?.config.dialect ?? defaultDialect;

  function served(state: CrewState): ServedCrew {
    const { id, name, kind, orgToken, userToken } = state.config;
    return { id, name, kind, url: crewUrl(id), orgToken, userToken };
  }

  function tokenKindOf(crew: CrewState | undefined, header: string | undefined): RequestLogEntry['tokenKind'] {
    if (header === undefined) {
      return 'none';
    }
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (match && crew) {
      if (match[1] === crew.config.orgToken) {
        return 'org';
      }
      if (match[1] === crew.config.userToken) {
        return 'user';
      }
    }
    return 'invalid';
  }

  function send(res: ServerResponse, reply: Reply): void {
    if (res.destroyed || res.headersSent) {
      return;
    }
    const { headers, payload } = serialize(reply);
    res.writeHead(reply.status, headers);
    res.end(payload);
  }

  /** Headers promise the whole body; half of it comes, then the connection drops. */
  function sendTruncated(res: ServerResponse, reply: Reply): void {
    if (res.destroyed) {
      return;
    }
    const { headers, payload } = serialize(reply);
    res.writeHead(reply.status, headers);
    res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.socket?.destroy());
  }

  // --- endpoints --------------------------------------------------------------------------------

  function kickoff(crew: CrewState, text: string): Reply {
    const { config } = crew;
    const dialect = dialectOf(crew);
    const parsed = parseJson(text);
    if (!parsed.ok) {
      return dialects.malformedJson(dialect);
    }
    // Like the live service: inputs outside the `inputs` wrapper do not count.
    const inputs = isPlainObject(parsed.value) && isPlainObject(parsed.value.inputs) ? parsed.value.inputs : {};
    // A crew that validates its inputs' format answers 400, like the documented "bad input format".
    const tooLong = config.maxInputLength === undefined ? undefined : Object.keys(inputs).find((name) => String(inputs[name]).length > config.maxInputLength!);
    if (tooLong !== undefined) {
      return dialects.badInput(dialect, `Input '${tooLong}' is too long (at most ${config.maxInputLength} characters)`);
    }
    if (config.kind === 'crew') {
      // A self-hosted crew's schema may make inputs optional (a default): those may be left out.
      const required = (name: string) => dialect !== 'selfhosted' || isRequiredDetail(config.inputDetails?.[name]);
      const missing = config.inputs.filter((name) => required(name) && (inputs[name] === undefined || inputs[name] === null)).sort();
      if (missing.length > 0) {
        return dialects.missingInputs(dialect, missing);
      }
    }
    const run = new SimRun({
      crewId: config.id,
      kind: config.kind,
      tasks: config.tasks,
      inputs,
      defaults: { ...schemaDefaults(config), ...config.defaults },
      meta: isPlainObject(parsed.value) ? parsed.value.meta : undefined,
      scenario:
        config.failWhenInputContains !== undefined && Object.values(inputs).some((v) => String(v).includes(config.failWhenInputContains!)) ? 'fail' : (config.scenario ?? 'ok'),
      failureMessage: config.failureMessage,
      timeScale,
      pendingMs: config.pendingMs ?? DEFAULT_PENDING_MS,
      notFoundForMs: config.notFoundForMs ?? DEFAULT_NOT_FOUND_FOR_MS,
      now: Date.now(),
    });
    runs.set(run.id, run);
    return dialects.kickoffAccepted(dialect, run.id);
  }

  function status(crew: CrewState, kickoffId: string): Reply {
    const dialect = dialectOf(crew);
    const run = runs.get(kickoffId);
    const now = Date.now();
    // A superseded id (the run went on under a new one after a live resume) is no longer tracked.
    if (!run || run.crewId !== crew.config.id || run.hiddenAt(now) || run.kickoffId !== kickoffId) {
      return dialects.statusNotFound(dialect, kickoffId);
    }
    run.advance(now);
    const { config } = crew;
    return dialects.statusReply(run, now, {
      dialect,
      livePausedState: config.livePausedState ?? options.livePausedState ?? 'PAUSED',
      exposeTaskId: config.exposeTaskId ?? options.exposeTaskId ?? true,
      liveLastExecutedTaskAsString: config.liveLastExecutedTaskAsString ?? false,
      liveOmitProgress: config.liveOmitProgress ?? false,
    });
  }

  function resume(crew: CrewState, text: string): Reply {
    const { config } = crew;
    const dialect = dialectOf(crew);
    const now = Date.now();
    const parsed = parseJson(text);
    const body = parsed.ok ? parsed.value : parsed.raw;
    const record: ResumeRecord = { time: now, crewId: config.id, body, style: isPlainObject(body) ? resumeStyle(body) : 'neither', status: 0 };
    resumes.push(record);
    const answer = (reply: Reply): Reply => {
      record.status = reply.status;
      return reply;
    };
    if (!parsed.ok) {
      return answer(dialects.malformedJson(dialect));
    }
    const fields = isPlainObject(parsed.value) ? parsed.value : {};
    const pick = (...keys: string[]): unknown => keys.map((key) => fields[key]).find((value) => value !== undefined);
    // The live service only knows camelCase; the docs name snake_case (and show camelCase on the same page).
    const executionId = dialect === 'live' ? fields.executionId : pick('execution_id', 'executionId');
    const taskId = dialect === 'live' ? fields.taskId : pick('task_id', 'taskId');
    const feedbackValue = dialect === 'live' ? fields.humanFeedback : pick('human_feedback', 'humanFeedback');
    const approveValue = dialect === 'live' ? fields.isApprove : pick('is_approve', 'isApprove');
    // Link the attempt to its run even when it is refused, so tests can see what a client tried.
    const namedRun = runs.get(String(fields.executionId ?? fields.execution_id ?? ''));
    if (namedRun?.crewId === config.id) {
      record.runId = namedRun.id;
    }
    const missing = [
      ...(typeof executionId === 'string' && executionId ? [] : [dialect === 'live' ? 'executionId' : 'execution_id']),
      ...(typeof taskId === 'string' && taskId ? [] : [dialect === 'live' ? 'taskId' : 'task_id']),
    ];
    if (missing.length > 0) {
      return answer(dialect === 'live' ? dialects.liveResumeValidation(missing) : dialects.docsResumeValidation(missing));
    }
    const feedback = typeof feedbackValue === 'string' ? feedbackValue : '';
    const isApprove = approveValue !== false && approveValue !== 'false';

    const run = runs.get(executionId as string);
    if (!run || run.crewId !== config.id) {
      if (dialect === 'live' && config.liveResumeAcceptsUnknownExecution) {
        return answer(acceptUnknownLiveResume(crew, record));
      }
      return answer(dialects.executionNotFound(dialect));
    }
    run.advance(now);
    if (run.phase !== 'paused') {
      return answer(dialects.notPendingHumanInput(dialect));
    }
    const index = run.currentTaskIndex;
    if (taskId !== run.taskIds[index] && !(dialect === 'docs' && taskId === run.tasks[index].name)) {
      return answer(dialects.taskNotFound(dialect));
    }
    record.action = isApprove ? 'approve' : 'retry';
    run.resumes.push(record);
    if (dialect === 'live') {
      const newId = randomUUID();
      run.addKickoffId(newId);
      runs.set(newId, run);
      record.newKickoffId = newId;
      if (isApprove) {
        run.approve(now, true);
      } else {
        run.retry(now, feedback, true);
      }
      return answer(dialects.kickoffReply(newId));
    }
    if (!isApprove) {
      run.retry(now, feedback, false);
      return answer(dialects.docsResumeReply('retrying'));
    }
    const phase = run.approve(now, false);
    return answer(dialects.docsResumeReply(phase === 'succeeded' ? 'completed' : 'resumed'));
  }

  /** What the live service was seen to do: a new kickoff id whose run fails at once. */
  function acceptUnknownLiveResume(crew: CrewState, record: ResumeRecord): Reply {
    const run = new SimRun({
      crewId: crew.config.id,
      kind: crew.config.kind,
      tasks: [{ name: 'resume', agent: 'Crew', durationMs: 0, output: '' }],
      inputs: {},
      scenario: 'fail',
      failureMessage: "TypeError: 'NoneType' object is not subscriptable",
      timeScale,
      pendingMs: crew.config.pendingMs ?? DEFAULT_PENDING_MS,
      notFoundForMs: 0,
      now: Date.now(),
    });
    run.origin = 'hitl-resume';
    runs.set(run.id, run);
    record.newKickoffId = run.id;
    return dialects.kickoffReply(run.id);
  }

  /** POST /stop/{id}: hosted crews stop a run that has not ended; see crew-api.md "Stopping a run". */
  function stop(crew: CrewState, kickoffId: string): Reply {
    const run = runs.get(kickoffId);
    if (!run || run.crewId !== crew.config.id || run.kickoffId !== kickoffId) {
      return dialects.stopUnknownExecution(kickoffId);
    }
    return run.stop(Date.now()) ? dialects.stopReply(kickoffId) : dialects.stopAlreadyEnded(run.phase);
  }

  // --- request pipeline -------------------------------------------------------------------------

  async function route(req: IncomingMessage, ctx: RequestContext & { crew: CrewState }): Promise<Reply> {
    const dialect = dialectOf(ctx.crew);
    if (ctx.endpoint === 'other') {
      return dialects.routeNotFound(dialect);
    }
    if (ctx.endpoint === 'stop' && !dialects.hasStopRoute(dialect, ctx.crew.config)) {
      // A deployment without the route (self-hosted ones by default): what such a server answers, before any auth.
      return ctx.crew.config.stopAnswers405 ? dialects.methodNotAllowed(dialect, 'GET') : dialects.routeNotFound(dialect);
    }
    const allowed = ctx.endpoint === 'inputs' || ctx.endpoint === 'status' ? 'GET' : 'POST';
    if (ctx.method !== allowed) {
      return dialects.methodNotAllowed(dialect, allowed);
    }
    if (ctx.tokenKind !== 'org' && ctx.tokenKind !== 'user') {
      return dialects.unauthorized(dialect);
    }
    switch (ctx.endpoint) {
      case 'inputs':
        return dialects.inputsReply(dialect, ctx.crew.config);
      case 'status':
        return status(ctx.crew, decodeURIComponent(ctx.rest[1]));
      case 'stop':
        return stop(ctx.crew, decodeURIComponent(ctx.rest[1]));
      case 'kickoff':
      case 'resume': {
        if (ctx.endpoint === 'resume' && ctx.tokenKind === 'user' && ctx.crew.config.userTokenCanResume === false) {
          return dialects.forbidden(dialect);
        }
        const text = await readBody(req);
        if (text === undefined) {
          return dialects.bodyTooLarge(dialect);
        }
        return ctx.endpoint === 'kickoff' ? kickoff(ctx.crew, text) : resume(ctx.crew, text);
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const crew = ctx.crew;
    if (!crew) {
      return send(res, dialects.routeNotFound(defaultDialect));
    }
    const { config } = crew;
    if (config.redirectTo) {
      ctx.fault = 'redirect';
      const target = config.redirectTo.replace(/\/+$/, '') + '/' + ctx.rest.join('/');
      return send(res, { status: 302, headers: { Location: target }, body: '' });
    }
    const effective: FaultOptions = { ...faults, ...config.faults };
    const idleAfter = effective.idleAfterMs ?? DEFAULT_IDLE_AFTER_MS;
    const isCold = crew.lastRequestAt === undefined || ctx.started - crew.lastRequestAt >= idleAfter;
    crew.lastRequestAt = ctx.started;
    await sleep((isCold ? (effective.coldStartMs ?? 0) : 0) + (effective.latencyMs ?? 0));
    if (closed) {
      return;
    }
    const retryAfter = effective.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
    if (config.rateLimitPerSecond !== undefined) {
      const wait = crew.limiter.take(config.rateLimitPerSecond, Date.now());
      if (wait > 0) {
        ctx.fault = 'rateLimit';
        return send(res, dialects.tooManyRequests(dialectOf(crew), Math.max(wait, retryAfter)));
      }
    }
    const isRead = ctx.method === 'GET' && (ctx.endpoint === 'inputs' || ctx.endpoint === 'status');
    const fault = isRead ? pickReadFault(effective, random) : undefined;
    ctx.fault = fault;
    switch (fault) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'stall':
        await sleep(effective.stallMs ?? DEFAULT_STALL_MS);
        if (closed) {
          return;
        }
        break;
      case '500':
      case '502html':
      case '503':
      case '429':
      case 'malformed':
        return send(res, faultReply(fault, retryAfter));
    }
    const route_ = await route(req, { ...ctx, crew });
    const reply = config.echoToken && ctx.endpoint === 'status' ? echoAuthorization(route_, req.headers.authorization ?? '') : route_;
    if (fault === 'truncated') {
      return sendTruncated(res, reply);
    }
    send(res, reply);
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const segments = url.pathname.split('/').slice(1);
    let crewId: string | undefined;
    try {
      crewId = decodeURIComponent(segments[0] ?? '');
    } catch {
      crewId = undefined;
    }
    const crew = crewId !== undefined ? crews.get(crewId) : undefined;
    const rest = segments.slice(1);
    const ctx: RequestContext = {
      started: Date.now(),
      crew,
      endpoint: crew ? classify(rest) : 'other',
      method: req.method ?? 'GET',
      path: url.pathname,
      rest,
      tokenKind: tokenKindOf(crew, req.headers.authorization),
    };
    res.on('close', () => {
      requestLog.add({
        time: ctx.started,
        crewId: crew?.config.id,
        endpoint: ctx.endpoint,
        method: ctx.method,
        path: ctx.path,
        status: res.headersSent ? res.statusCode : 0,
        hasAuthorization: req.headers.authorization !== undefined,
        tokenKind: ctx.tokenKind,
        ...(ctx.fault ? { fault: ctx.fault } : {}),
        durationMs: Date.now() - ctx.started,
      });
    });
    handle(req, res, ctx).catch(() => {
      // A bug here must not take the server down; answer like FastAPI does on an unhandled error.
      send(res, { status: 500, body: 'Internal Server Error' });
    });
  }

  const server = createServer(onRequest);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  function crewState(crewId: string): CrewState {
    const crew = crews.get(crewId);
    if (!crew) {
      throw new Error(`No crew with id ${crewId}`);
    }
    return crew;
  }

  return {
    port,
    origin,
    requestLog,
    resumes,
    get crews() {
      return [...crews.values()].map(served);
    },
    get faults() {
      return { ...faults };
    },
    crewUrl(crewId) {
      crewState(crewId);
      return crewUrl(crewId);
    },
    setFaults(next) {
      faults = { ...next };
    },
    updateCrew(crewId, patch) {
      const crew = crewState(crewId);
      const { id: _ignored, ...allowed } = patch as Partial<CrewConfig>;
      void _ignored;
      crew.config = { ...crew.config, ...structuredClone(allowed) };
      crew.config.orgToken ||= newToken();
      crew.config.userToken ||= newToken();
      return served(crew);
    },
    getRun(kickoffId) {
      const run = runs.get(kickoffId);
      run?.advance(Date.now());
      return run?.info();
    },
    listRuns() {
      const now = Date.now();
      return [...new Set(runs.values())].map((run) => {
        run.advance(now);
        return run.info();
      });
    },
    close() {
      if (closed) {
        return Promise.resolve();
      }
      closed = true;
      for (const timer of timers) {
        clearTimeout(timer);
      }
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) {
          socket.destroy();
        }
      });
    },
  };
}

/** `echoToken`: the Authorization header in every text field of a 2xx status reply, as a careless server might. */
function echoAuthorization(reply: Reply, authorization: string): Reply {
  if (reply.status < 200 || reply.status >= 300 || typeof reply.body !== 'object' || reply.body === null || Array.isArray(reply.body)) {
    return reply;
  }
  const echo = (value: unknown): unknown => (typeof value === 'string' ? `${value} [${authorization}]` : value);
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(reply.body)) {
    if (key === 'state') {
      body[key] = value; // the state stays readable: the run goes on and its bodies keep echoing
      continue;
    }
    const nested = isPlainObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echo(v)])) : undefined;
    body[key] = nested ?? (Array.isArray(value) ? value.map(echo) : echo(value));
  }
  body['token'] = authorization;
  return { ...reply, body };
}
