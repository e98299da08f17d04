// The simulator platform's redeploys (./platform.ts holds the routes): a redeploy's phases on the scaled clock —
// for `startLagMs` the platform still says what it said before (as the real one does just after the request),
// then enqueued → building → online, or failed with a build log whose error says why — and the deployment API for
// automation, `POST /crewai_plus/api/v1/deployments/{numeric id}/redeploy` with a `pat_` token (platform-api.md).

import type { IncomingMessage } from 'node:http';
import type { PlatformDeploymentConfig, Reply } from './types';

export interface LogLine {
  timestamp: string;
  level: string;
  message: string;
}

/** One deployment as the platform keeps it. */
export interface SimDeployment {
  config: PlatformDeploymentConfig;
  /** Its numeric id (the deployment API's). */
  id: string;
  /** When the redeploy under way was requested (real ms); undefined when none ran. */
  deployStartedAt?: number;
  /** Whether that redeploy fails. */
  deployFails: boolean;
  deploys: number;
  logs: LogLine[];
  /** What the status said when the redeploy was requested: said on through the start lag. */
  statusBefore: string;
  /** The deployment time the status names (ISO): the last redeploy's start, once the platform took it. */
  deployedAt: string;
  deployedAtBefore: string;
}

export interface DeployClock {
  /** Each phase (enqueued, building), in real ms. */
  phaseMs: number;
  /** Real ms after a request before the platform shows the redeploy at all. */
  startLagMs: number;
}

export const ONLINE = 'Crew is Online';
const FAILED = 'Provisioning Failed, try again.';

export function newDeployment(config: PlatformDeploymentConfig, id: string, at: string, logs: LogLine[]): SimDeployment {
  return { config, id, deployFails: false, deploys: 0, logs, statusBefore: config.status ?? ONLINE, deployedAt: at, deployedAtBefore: at };
}

export function statusOf(d: SimDeployment, now: number, clock: DeployClock): string {
  if (d.deployStartedAt === undefined) {
    return d.config.status ?? ONLINE;
  }
  const elapsed = now - d.deployStartedAt - clock.startLagMs;
  if (elapsed < 0) {
    return d.statusBefore;
  }
  if (elapsed < clock.phaseMs) {
    return 'Deploy Enqueued';
  }
  if (elapsed < 2 * clock.phaseMs) {
    return 'Building Image';
  }
  return d.deployFails ? FAILED : ONLINE;
}

/** The deployment time the status gives now: the new one only once the platform shows the redeploy. */
export function deployedAtOf(d: SimDeployment, now: number, clock: DeployClock): string {
  return d.deployStartedAt !== undefined && now - d.deployStartedAt < clock.startLagMs ? d.deployedAtBefore : d.deployedAt;
}

/** A redeploy requested now (by either route). */
export function startDeploy(d: SimDeployment, now: number, clock: DeployClock): void {
  d.statusBefore = statusOf(d, now, clock);
  d.deployedAtBefore = deployedAtOf(d, now, clock);
  d.deploys += 1;
  d.deployStartedAt = now;
  d.deployedAt = new Date(now + clock.startLagMs).toISOString();
  d.deployFails = d.config.failNextDeploy === true;
  d.config.failNextDeploy = false;
  advanceLogs(d, now, clock);
}

/** The log lines a redeploy has earned by now (each phase adds its own once). */
export function advanceLogs(d: SimDeployment, now: number, clock: DeployClock): void {
  if (d.deployStartedAt === undefined) {
    return;
  }
  const start = d.deployStartedAt + clock.startLagMs;
  const marker = `Deploy ${d.deploys} enqueued`;
  const from = d.logs.findIndex((l) => l.message === marker);
  const kept = from >= 0 ? d.logs.slice(0, from) : d.logs;
  if (now < start) {
    d.logs = kept;
    return;
  }
  const at = (ms: number) => new Date(start + ms).toISOString();
  const wanted: LogLine[] = [{ timestamp: at(0), level: 'INFO', message: marker }];
  if (now - start >= clock.phaseMs) {
    wanted.push({ timestamp: at(clock.phaseMs), level: 'INFO', message: 'Building image' });
  }
  if (now - start >= 2 * clock.phaseMs) {
    wanted.push(
      d.deployFails
        ? { timestamp: at(2 * clock.phaseMs), level: 'ERROR', message: 'pip install failed: No matching distribution found for crewai-tools==0.0.0-missing' }
        : { timestamp: at(2 * clock.phaseMs), level: 'INFO', message: ONLINE },
    );
  }
  d.logs = [...kept, ...wanted];
}

/**
 * `deployments/{id}/redeploy` (the route after `api/v1/`): a personal access token (`pat_…`, one of `tokens`),
 * the numeric id; the documented replies.
 */
export function deploymentsRoute(req: IncomingMessage, route: string[], tokens: readonly string[], byId: (id: string) => SimDeployment | undefined, start: (d: SimDeployment) => void): Reply {
  const auth = /^Bearer\s+(\S+)$/i.exec((req.headers.authorization ?? '').trim());
  if (!auth || !auth[1].startsWith('pat_') || !tokens.includes(auth[1])) {
    return { status: 401, body: { error: 'Authentication failed', message: 'Invalid or expired Personal Access Token' } };
  }
  const deployment = route.length === 3 && route[2] === 'redeploy' && /^[0-9]+$/.test(route[1]) ? byId(route[1]) : undefined;
  if (!deployment) {
    return { status: 404, body: { error: 'Deployment not found', message: `No deployment with id ${route[1] ?? ''}`.slice(0, 200) } };
  }
  if (req.method !== 'POST') {
    return { status: 405, body: { error: 'Method Not Allowed' } };
  }
  start(deployment);
  return { status: 200, body: { message: 'Deployment triggered successfully', deployment_id: deployment.id, status: 'enqueued' } };
}
