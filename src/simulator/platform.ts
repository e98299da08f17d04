// The platform (organization) routes of the simulator, under `/crewai_plus/api/v1/`: organizations, deployments
// (in the shapes installations are known to answer with), one deployment's status, its deployment log, and a
// redeploy that goes enqueued → building → online (or fails, with logs that say why), by the `/crews/{uuid}/deploy`
// route or the deployment API's `/deployments/{id}/redeploy` (./platformDeploys.ts). See platform-api.md.

import type { IncomingMessage } from 'node:http';
import { RateLimiter } from './faults';
import { demoTriggerApps, triggerReply } from './platformTriggers';
import { advanceLogs, deployedAtOf, deploymentsRoute, type LogLine, newDeployment, type SimDeployment, startDeploy, statusOf as deployStatusOf } from './platformDeploys';
import type { PlatformConfig, PlatformDeploymentConfig, PlatformShape, PlatformStats, Reply } from './types';

export const PLATFORM_PREFIX = 'crewai_plus';
export const DEMO_PLATFORM_TOKEN = 'crewai-demo-token';
/** The personal access token a CI step may use with the deployment API (`pat_…`). */
export const DEMO_CI_TOKEN = 'pat_crewai-demo-ci-token';
const DEFAULT_ORGANIZATION = { uuid: '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d', name: 'Demo organization' };

/** What the platform needs of the crews the simulator serves. */
export interface PlatformCrews {
  /** The crew's base URL and organization token, or undefined when no such crew is served. */
  crew(crewId: string): { url: string; token: string } | undefined;
}

export interface PlatformSimulator {
  readonly token: string;
  readonly organizations: readonly { uuid: string; name: string }[];
  /** Deployment uuids and their number of redeploys, by either route (tests). */
  deploys(uuid: string): number;
  /** A deployment's numeric id (the deployment API's), by its uuid. */
  idOf(uuid: string): string | undefined;
  setFailNextDeploy(uuid: string, fail: boolean): void;
  /** Answers GET /me/organizations with this status (401, 403) while the other routes take the token; undefined: lists them. */
  refuseOrganizations(status: number | undefined): void;
  /** Real ms each answer waits (config.latencyMs). */
  readonly latencyMs: number;
  /** Live counts (tests and the bench read them; in-flight is kept by the server around each request). */
  readonly stats: PlatformStats;
  resetStats(): void;
  /** A request arrived: counted in flight until the returned function is called (once). */
  begin(): () => void;
  /** The 429 reply when the presented token is over config.rateLimitPerSecond now, else undefined. */
  limit(req: IncomingMessage, now: number): Reply | undefined;
  handle(req: IncomingMessage, rest: string[]): Reply;
}

/**
 * A log's JSON, made once per log (a redeploy's phases make a new list): as a platform serves a stored log, not
 * 8 MB of it written anew on every read, which cost the simulator's process some 6× the client's JSON.parse of it.
 */
const logBytes = new WeakMap<readonly LogLine[], Buffer>();
function logsJson(logs: readonly LogLine[]): Buffer {
  let bytes = logBytes.get(logs);
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(logs), 'utf8');
    logBytes.set(logs, bytes);
  }
  return bytes;
}

export function createPlatform(config: PlatformConfig | undefined, crewIds: string[], crews: PlatformCrews, timeScale: number): PlatformSimulator {
  const token = config?.token ?? DEMO_PLATFORM_TOKEN;
  const ciToken = config?.ciToken ?? DEMO_CI_TOKEN;
  const organizations = config?.organizations?.length ? config.organizations.map((o) => ({ ...o })) : [DEFAULT_ORGANIZATION];
  const configs: PlatformDeploymentConfig[] =
    config?.deployments ??
    crewIds.map((crewId, i) => ({ uuid: `d${String(i + 1).padStart(7, '0')}-5d1e-4f7a-9c3e-${crewId.replace(/[^a-z0-9]/gi, '').slice(0, 12).padEnd(12, '0')}`, organization: organizations[0].uuid, crewId, name: crewId, shape: 'full' }));
  const clock = { phaseMs: (config?.phaseMs ?? 1500) * timeScale, startLagMs: (config?.startLagMs ?? 0) * timeScale };
  const triggerApps = config?.triggerApps ?? demoTriggerApps();
  const deployments = new Map<string, SimDeployment>();
  const started = new Date().toISOString();
  const limiters = new Map<string, RateLimiter>();
  const stats: PlatformStats = { requests: 0, rateLimited: 0, inFlight: 0, maxInFlight: 0 };
  let organizationsRefused: number | undefined;
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARNING'];
  for (const [index, c] of configs.entries()) {
    deployments.set(
      c.uuid,
      newDeployment({ ...c }, String(c.deploymentId ?? 103_671 + index), started, [
        ...Array.from({ length: c.extraLogLines ?? 0 }, (_, i) => ({
          timestamp: started,
          level: levels[i % levels.length],
          message: `Step ${i + 1}: pip install crewai-tools (layer ${i % 97}) — ${'resolved dependency '.repeat(1 + (i % 3))}`.trim(),
        })),
        { timestamp: started, level: 'INFO', message: `Building image for ${c.name}` },
        { timestamp: started, level: 'INFO', message: 'Image built; provisioning' },
        c.status === undefined || !/fail|error/i.test(c.status) ? { timestamp: started, level: 'INFO', message: c.status ?? 'Crew is Online' } : { timestamp: started, level: 'ERROR', message: c.status },
      ]),
    );
  }

  const statusOf = (d: SimDeployment, now: number) => deployStatusOf(d, now, clock);

  const crewOf = (d: SimDeployment) => (d.config.crewId ? crews.crew(d.config.crewId) : undefined);
  const shapeOf = (d: SimDeployment): PlatformShape => d.config.shape ?? 'full';

  const listEntry = (d: SimDeployment, now: number) => {
    const crew = crewOf(d);
    return {
      name: d.config.name,
      uuid: d.config.uuid,
      status: statusOf(d, now),
      ...(shapeOf(d) !== 'namesOnly' && crew ? { public_url: crew.url } : {}),
      created_at: started,
    };
  };

  const statusBody = (d: SimDeployment, now: number) => {
    const crew = crewOf(d);
    const shape = shapeOf(d);
    return {
      name: d.config.name,
      status: statusOf(d, now),
      ...(d.config.statusWithoutId ? {} : { deployment_id: d.id }),
      deployed_at: deployedAtOf(d, now, clock),
      ...(shape !== 'namesOnly' && crew ? { public_url: crew.url } : {}),
      ...(shape === 'full' && crew ? { token: crew.token } : {}),
    };
  };

  return {
    token,
    organizations,
    deploys: (uuid) => deployments.get(uuid)?.deploys ?? 0,
    idOf: (uuid) => deployments.get(uuid)?.id,
    setFailNextDeploy(uuid, fail) {
      const d = deployments.get(uuid);
      if (d) {
        d.config.failNextDeploy = fail;
      }
    },
    refuseOrganizations(status) {
      organizationsRefused = status;
    },
    latencyMs: config?.latencyMs ?? 0,
    stats,
    resetStats() {
      // In flight stays as it is: those requests are still open.
      Object.assign(stats, { requests: 0, rateLimited: 0, maxInFlight: stats.inFlight });
    },
    begin() {
      stats.requests += 1;
      stats.inFlight += 1;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      let ended = false;
      return () => {
        if (!ended) {
          ended = true;
          stats.inFlight -= 1;
        }
      };
    },
    limit(req, now) {
      const perSecond = config?.rateLimitPerSecond;
      if (perSecond === undefined) {
        return undefined;
      }
      // Per token, as the platform counts a user's requests; a request without one shares the anonymous window.
      const key = (req.headers.authorization ?? '').trim();
      let limiter = limiters.get(key);
      if (!limiter) {
        limiter = new RateLimiter();
        limiters.set(key, limiter);
      }
      const wait = limiter.take(perSecond, now);
      if (wait === 0) {
        return undefined;
      }
      stats.rateLimited += 1;
      return { status: 429, headers: { 'Retry-After': String(wait) }, body: { error: 'rate_limited', message: 'Too many requests; retry later' } };
    },
    handle(req, rest) {
      const now = Date.now();
      const method = req.method ?? 'GET';
      if (rest[0] !== 'api' || rest[1] !== 'v1') {
        return { status: 404, body: { error: 'Not Found' } };
      }
      const route = rest.slice(2);
      if (route[0] === 'deployments') {
        const byId = (id: string) => [...deployments.values()].find((d) => d.id === id);
        return deploymentsRoute(req, route, [token, ciToken], byId, (d) => startDeploy(d, now, clock));
      }
      const auth = /^Bearer\s+(.+)$/i.exec((req.headers.authorization ?? '').trim());
      if (!auth || auth[1] !== token) {
        return { status: 401, body: { error: 'Unauthorized', message: 'Invalid or expired token' } };
      }
      const header = req.headers['x-crewai-organization-id'];
      const orgId = (Array.isArray(header) ? header[0] : header)?.trim() || organizations[0].uuid;
      if (!organizations.some((o) => o.uuid === orgId)) {
        return { status: 403, body: { error: 'You are not a member of this organization' } };
      }
      if (method === 'GET' && route.join('/') === 'me/organizations') {
        if (organizationsRefused !== undefined) {
          return { status: organizationsRefused, body: { error: 'Unauthorized', message: 'This token cannot list organizations' } };
        }
        return { status: 200, body: organizations.map((o) => ({ name: o.name, uuid: o.uuid })) };
      }
      if (route[0] === 'integrations') {
        return triggerReply(triggerApps, route, method);
      }
      if (route[0] !== 'crews') {
        return { status: 404, body: { error: 'Not Found' } };
      }
      if (route.length === 1 && method === 'GET') {
        return { status: 200, body: [...deployments.values()].filter((d) => d.config.organization === orgId).map((d) => listEntry(d, now)) };
      }
      const deployment = route[1] ? deployments.get(route[1]) : undefined;
      if (!deployment || deployment.config.organization !== orgId) {
        return { status: 404, body: { error: 'deployment_not_found', message: 'Deployment not found' } };
      }
      const action = route.slice(2).join('/');
      if (action === 'status' && method === 'GET') {
        return { status: 200, body: statusBody(deployment, now) };
      }
      if (action === 'logs/deployment' && method === 'GET') {
        advanceLogs(deployment, now, clock);
        return { status: 200, body: logsJson(deployment.logs) };
      }
      if (action === 'deploy' && method === 'POST') {
        startDeploy(deployment, now, clock);
        const crew = crewOf(deployment);
        const shape = shapeOf(deployment);
        return {
          status: 200,
          body: {
            uuid: deployment.config.uuid,
            status: 'Deploy Enqueued',
            ...(crew && shape !== 'namesOnly' ? { public_url: crew.url } : {}),
            ...(crew && shape === 'full' ? { token: crew.token } : {}),
          },
        };
      }
      return { status: 405, body: { error: 'Method Not Allowed' } };
    },
  };
}
