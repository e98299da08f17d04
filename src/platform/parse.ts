// The platform's bodies (platform-api.md), read tolerantly: unknown fields are ignored, a missing one is
// undefined, one odd entry never fails a list, status prose is matched loosely, and every count is bounded.
// Pure: no vscode, unit-tested.
import { omittedEntries } from '../api/boundedJson';
import { readLogLines, type LogLine } from '../api/logLines';
import { normaliseCrewUrl } from '../api/url';
import { inertScalar } from '../util/inertText';
import { isPlainObject, listIn } from '../util/objects';

export { MAX_LOG_LINES, type LogLine } from '../api/logLines';

export const MAX_ORGANIZATIONS = 200;
export const MAX_DEPLOYMENTS = 2000;
const MAX_NAME = 200;
const MAX_STATUS = 200;
const MAX_TOKEN = 4096;

export interface Organization {
  uuid: string;
  name: string;
}

export type DeploymentState = 'online' | 'deploying' | 'failed' | 'unknown';

export interface Deployment {
  uuid: string;
  name: string;
  /** The server's own words (a line, clipped), or undefined when it gave none. */
  status?: string;
  state: DeploymentState;
  /** A usable crew URL (https, or http on loopback), normalised; undefined when absent or unusable. */
  publicUrl?: string;
}

export interface DeploymentStatus {
  name?: string;
  status?: string;
  state: DeploymentState;
  publicUrl?: string;
  /** The deployment's bearer token, when the installation gives it as a string. */
  token?: string;
  /** The uuid the body names, if any (a redeploy's reply is documented to). */
  uuid?: string;
  /** The deployment's numeric id (the deployment API's), from `deployment_id`, `deploymentId` or `deployment.id`. */
  deploymentId?: string;
  /** When the deployment was last (re)deployed, as the platform wrote it: a change shows a redeploy started. */
  deployedAt?: string;
}

/** An id the platform gave, usable as one path segment. */
function id(value: unknown): string | undefined {
  const s = typeof value === 'number' && Number.isInteger(value) ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  return s && s.length <= 200 && /^[A-Za-z0-9._~-]+$/.test(s) ? s : undefined;
}

/** Online / enqueued-building-deploying / failed-error / anything else, from the server's prose. */
export function classifyStatus(status: string | undefined): DeploymentState {
  const s = (status ?? '').toLowerCase();
  if (!s) {
    return 'unknown';
  }
  if (/fail|error|crash|unhealthy|could not|couldn't/.test(s)) {
    return 'failed';
  }
  if (/enqueue|queued|build|deploying|provision|pending|starting|progress|updating|creating/.test(s)) {
    return 'deploying';
  }
  if (/online|running|ready|healthy|deployed|live|active/.test(s)) {
    return 'online';
  }
  return 'unknown';
}

function usableUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') {
    return undefined;
  }
  const result = normaliseCrewUrl(value);
  return result.ok ? result.url : undefined;
}

export function parseOrganizations(body: unknown): Organization[] {
  const result: Organization[] = [];
  const seen = new Set<string>();
  for (const entry of listIn(body, ['organizations', 'data', 'items']).slice(0, MAX_ORGANIZATIONS * 2)) {
    if (!isPlainObject(entry)) {
      continue;
    }
    const uuid = id(entry.uuid ?? entry.id);
    if (!uuid || seen.has(uuid)) {
      continue;
    }
    seen.add(uuid);
    result.push({ uuid, name: inertScalar(entry.name, MAX_NAME) ?? uuid });
    if (result.length >= MAX_ORGANIZATIONS) {
      break;
    }
  }
  return result;
}

function deploymentId(entry: Record<string, unknown>): string | undefined {
  const nested = isPlainObject(entry.deployment) ? entry.deployment.id ?? entry.deployment.uuid : undefined;
  return id(entry.uuid ?? entry.id ?? entry.deployment_id ?? entry.deploymentId ?? nested);
}

/**
 * The deployments, in the server's order. `skipped` counts every entry left out; `overCap` those of them past
 * MAX_DEPLOYMENTS (after the cap, or stepped over by the bounded reader: a 100,000-entry body keeps 10,000); the
 * rest could not be read (no usable id).
 */
export function parseDeployments(body: unknown): { deployments: Deployment[]; skipped: number; overCap: number } {
  const deployments: Deployment[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  const list = listIn(body, ['crews', 'deployments', 'data', 'items']);
  let over = omittedEntries(list);
  for (const entry of list) {
    if (deployments.length >= MAX_DEPLOYMENTS) {
      over += 1;
      continue;
    }
    const uuid = isPlainObject(entry) ? deploymentId(entry) : undefined;
    if (!isPlainObject(entry) || !uuid || seen.has(uuid)) {
      skipped += 1;
      continue;
    }
    seen.add(uuid);
    const status = inertScalar(entry.status, MAX_STATUS);
    deployments.push({ uuid, name: inertScalar(entry.name, MAX_NAME) ?? uuid, status, state: classifyStatus(status), publicUrl: usableUrl(entry.public_url ?? entry.publicUrl ?? entry.url) });
  }
  return { deployments, skipped: skipped + over, overCap: over };
}

export function parseDeploymentStatus(body: unknown): DeploymentStatus {
  const entry = isPlainObject(body) ? (isPlainObject(body.deployment) ? { ...body.deployment, ...body } : body) : {};
  const status = inertScalar(entry.status, MAX_STATUS);
  const token = typeof entry.token === 'string' && entry.token.trim() && entry.token.length <= MAX_TOKEN && !/[\s\u0000-\u001f]/.test(entry.token.trim()) ? entry.token.trim() : undefined;
  const nested = isPlainObject(body) && isPlainObject(body.deployment) ? body.deployment : {};
  const deploymentId = [entry.deployment_id, entry.deploymentId, nested.id].map(numericId).find((v) => v !== undefined);
  const deployedAt = inertScalar(entry.deployed_at ?? entry.deployedAt ?? entry.last_deployed_at ?? entry.updated_at ?? entry.updatedAt, 64);
  return { name: inertScalar(entry.name, MAX_NAME), status, state: classifyStatus(status), publicUrl: usableUrl(entry.public_url ?? entry.publicUrl ?? entry.url), token, uuid: id(entry.uuid), deploymentId, deployedAt };
}

/** A numeric id (a number, or a string of digits). */
function numericId(value: unknown): string | undefined {
  const s = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  return s !== undefined && /^[0-9]{1,20}$/.test(s) ? s : undefined;
}

/**
 * At most MAX_LOG_LINES (the last ones read); `dropped` says how many earlier lines were left out, `unread` how many
 * the bounded reader stepped over (api/logLines.ts: the same lines the log document shows).
 */
export function parseLogs(body: unknown): { lines: LogLine[]; dropped: number; unread: number } {
  return readLogLines(body);
}

/** The redeploy's reply: documented `{uuid, status, public_url, token}`. */
export function parseRedeploy(body: unknown): DeploymentStatus {
  return parseDeploymentStatus(body);
}

/** The platform's words from an error body: `{error}`, `{message}` or 422 `{field: [messages]}`. */
export function platformErrorWords(body: unknown): string | undefined {
  if (!isPlainObject(body)) {
    return typeof body === 'string' ? inertScalar(body, 300) : undefined;
  }
  const direct = inertScalar(body.message, 300) ?? inertScalar(body.error, 300) ?? inertScalar(body.detail, 300);
  if (direct) {
    return direct;
  }
  const fields = Object.entries(body)
    .filter(([, v]) => Array.isArray(v))
    .slice(0, 5)
    .map(([k, v]) => `${inertScalar(k, 50)}: ${(v as unknown[]).map((m) => inertScalar(m, 200)).filter(Boolean).slice(0, 3).join('; ')}`);
  return fields.length ? fields.join(' · ') : undefined;
}
