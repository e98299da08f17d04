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
 *     statusEvents (default true), statusMaxEvents (default 1000), statusEventFlushMs (default 0), oldRuntime
 *     (default false): the live status's event log (every response knob can also be set per crew),
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
 *     forgetChatSessions(id) — the flow forgets its chat sessions, as a restarted deployment does,
 *     close() — stops listening and destroys every open socket (keep-alive, stalled): nothing lingers.
 *
 * Platform routes (`<origin>/crewai_plus/api/v1/…`, personal token `platform.token`, default `crewai-demo-token`):
 * organizations, deployments, status, deployment logs, redeploy; see ./platform.ts and options.platform (its
 * rateLimitPerSecond answers 429 with Retry-After per token; `platform.stats` counts requests, 429s and the most in flight).
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
 * - Live statuses carry the event log of newer runtimes (status-events.md; built in ./eventLog.ts): crew_kickoff_*,
 *   task_*, agent_execution_*, llm_call_* (usage on completions, summed in usage_metrics), tool_usage_*; flows
 *   flow_*, method_execution_*. Ids are UUIDs, ends name their start (`started_event_id`), scopes their parent.
 *   A failing task fails in a tool call (tool_usage_error, then agent_execution_error, task_failed,
 *   crew_kickoff_failed); `slowToolWhenInputContains` makes one tool call slow. A stopped run's log ends where it
 *   stopped. With exposeTaskId=false the events carry no task_id. The docs and self-hosted bodies carry no log.
 */

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { forgetChatSessions } from './chatFlow';
import { demoCrews } from './demoCrews';
import { RateLimiter, seededRandom } from './faults';
import { classify, send, tokenKindOf } from './http';
import { handle, type Pipeline, type RequestContext } from './pipeline';
import { createPlatform, PLATFORM_PREFIX, type PlatformSimulator } from './platform';
import { RequestLog } from './requestLog';
import type { SimRun } from './runEngine';
import type { CrewConfig, FaultOptions, RequestLogEntry, ResumeRecord, RunInfo, ServedCrew, SimulatorOptions } from './types';
import { type CrewState, newToken, type SimWorld } from './world';

export * from './types';
export { demoCrews, demoPlatformOnlyCrews, triggerDemoCrew } from './demoCrews';
export { RequestLog } from './requestLog';
export { DEMO_PLATFORM_TOKEN, type PlatformSimulator } from './platform';

export interface Simulator {
  readonly port: number;
  readonly origin: string;
  readonly crews: readonly ServedCrew[];
  readonly requestLog: RequestLog;
  readonly resumes: readonly ResumeRecord[];
  readonly faults: FaultOptions;
  /** The platform (organization) routes under `<origin>/crewai_plus/api/v1/` (./platform.ts). */
  readonly platform: PlatformSimulator;
  crewUrl(crewId: string): string;
  setFaults(faults: FaultOptions): void;
  updateCrew(crewId: string, patch: Partial<Omit<CrewConfig, 'id'>>): ServedCrew;
  getRun(kickoffId: string): RunInfo | undefined;
  listRuns(): RunInfo[];
  /** A chat flow restarted: every chat session of the crew forgotten (their routes answer 404); how many there were. */
  forgetChatSessions(crewId: string): number;
  close(): Promise<void>;
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

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale >= 0) || !Number.isFinite(timeScale)) {
    throw new Error(`timeScale must be a finite number >= 0, got ${options.timeScale}`);
  }
  const configs = options.crews ?? demoCrews();
  validateCrews(configs);

  const crews = new Map<string, CrewState>();
  for (const config of configs) {
    crews.set(config.id, {
      config: { ...structuredClone(config), orgToken: config.orgToken ?? newToken(), userToken: config.userToken ?? newToken() },
      limiter: new RateLimiter(),
    });
  }
  const runs = new Map<string, SimRun>();
  const requestLog = new RequestLog();
  const resumes: ResumeRecord[] = [];
  const world: SimWorld = { crews, runs, resumes, options, timeScale, defaultDialect: options.dialect ?? 'live' };
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
  const pipeline: Pipeline = { world, faults: () => faults, random, sleep, closed: () => closed };

  function served(state: CrewState): ServedCrew {
    const { id, name, kind, orgToken, userToken } = state.config;
    return { id, name, kind, url: crewUrl(id), orgToken, userToken };
  }

  const platform = createPlatform(options.platform, [...crews.keys()], {
    crew: (crewId) => {
      const state = crews.get(crewId);
      return state ? { url: crewUrl(crewId), token: state.config.orgToken } : undefined;
    },
  }, timeScale);

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const segments = url.pathname.split('/').slice(1);
    if (segments[0] === PLATFORM_PREFIX && !crews.has(PLATFORM_PREFIX)) {
      const started = Date.now();
      const end = platform.begin();
      let fault: RequestLogEntry['fault'];
      res.on('close', () => {
        end();
        requestLog.add({
          time: started,
          endpoint: 'other',
          method: req.method ?? 'GET',
          path: url.pathname,
          status: res.headersSent ? res.statusCode : 0,
          hasAuthorization: req.headers.authorization !== undefined,
          tokenKind: req.headers.authorization === undefined ? 'none' : req.headers.authorization === `Bearer ${platform.token}` ? 'org' : 'invalid',
          ...(fault ? { fault } : {}),
          durationMs: Date.now() - started,
        });
      });
      req.resume(); // The redeploy's body says nothing the simulator needs.
      req.on('end', () => {
        void sleep(platform.latencyMs).then(() => {
          if (closed) {
            return;
          }
          const limited = platform.limit(req, Date.now());
          fault = limited ? 'rateLimit' : undefined;
          send(res, limited ?? platform.handle(req, segments.slice(1)));
        });
      });
      return;
    }
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
        ...(ctx.coldStart ? { coldStart: true } : {}),
        durationMs: Date.now() - ctx.started,
      });
    });
    handle(pipeline, req, res, ctx).catch(() => {
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
    platform,
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
    forgetChatSessions(crewId) {
      return forgetChatSessions(crewState(crewId));
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

