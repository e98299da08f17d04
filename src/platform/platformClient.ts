// The platform (organization) API client. The personal token goes only to the configured platform origin,
// with the crew tokens' rules: the same transport (dist/transport.js, loaded on the first request: proxy
// settings, http only for loopback, bounded bodies, a total deadline), no redirects followed, the token
// redacted from everything read before anything else sees it, and never logged.
import type { ReadLimits } from '../api/boundedJson';
import { lastLogLines, LOG_READ_LIMITS, logText, type LogText } from '../api/logLines';
import { parseJson } from '../api/responses';
import { redact, redactResponse } from '../api/redact';
import { parseRetryAfter } from '../api/retry';
import type * as TransportModule from '../api/transport';
import { DEFAULT_NETWORK_SETTINGS, isTransportFailure, type HttpResponse, type NetworkSettings, type Transport } from '../api/transportTypes';
import { normaliseCrewUrl, originOf } from '../api/url';
import { classifySendFailure, type SendFailure } from '../runTracking/sendOnce';
import { type Deployment, type DeploymentStatus, type LogLine, type Organization, parseDeployments, parseDeploymentStatus, parseOrganizations, parseRedeploy, platformErrorWords } from './parse';

export type PlatformErrorKind = 'unauthorized' | 'forbidden' | 'notFound' | 'invalid' | 'rateLimited' | 'server' | 'network' | 'refused' | 'badResponse' | 'aborted';

export class PlatformError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    /** The platform's own words (token redacted), when it gave any. */
    readonly serverWords?: string,
    readonly status?: number,
    /** A 429's Retry-After, in ms, when it gave a usable one. */
    readonly retryAfterMs?: number,
    /** Nothing of the request left this machine (refused before sending, or the connection failed). */
    readonly notSent = false,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

export interface PlatformCredentials {
  /** The normalised platform base URL. */
  baseUrl: string;
  token: string;
  /** Sent as X-Crewai-Organization-Id when set. */
  organizationId?: string;
}

export interface PlatformClientOptions {
  getNetworkSettings?(): NetworkSettings;
  createTransport?(settings: NetworkSettings): Transport;
  userAgent?: string;
}

const API = ['crewai_plus', 'api', 'v1'];

export class PlatformClient {
  private transport?: Transport;

  constructor(private readonly options: PlatformClientOptions = {}) {}

  async organizations(credentials: PlatformCredentials, signal?: AbortSignal): Promise<Organization[]> {
    return parseOrganizations(await this.json(credentials, 'GET', ['me', 'organizations'], signal));
  }

  async deployments(credentials: PlatformCredentials, signal?: AbortSignal): Promise<{ deployments: Deployment[]; skipped: number }> {
    return parseDeployments(await this.json(credentials, 'GET', ['crews'], signal));
  }

  async status(credentials: PlatformCredentials, uuid: string, signal?: AbortSignal): Promise<DeploymentStatus> {
    return parseDeploymentStatus(await this.json(credentials, 'GET', ['crews', uuid, 'status'], signal));
  }

  /**
   * The deployment log's last lines, read on the status reader's thread (api/logBody.ts): those of its last
   * MAX_LOG_LINES entries, however long the log (the crew replies' first 10,000 lost a long log's end, where the
   * error is), that fit in MAX_LOG_TEXT_CHARS; `dropped` counts the earlier ones.
   */
  async logs(credentials: PlatformCredentials, uuid: string, signal?: AbortSignal): Promise<{ lines: LogLine[]; dropped: number; unread: number }> {
    const response = await this.request(credentials, 'GET', ['crews', uuid, 'logs', 'deployment'], signal, { log: 'lines' });
    // A transport that did not read it (none in the product: the reader's thread, or this one, does) is read here.
    const { lines, dropped } = response.logLines ?? lastLogLines(parseJson(response, LOG_READ_LIMITS));
    return { lines, dropped, unread: 0 };
  }

  /** The deployment log as its document shows it: the same lines as `logs`, made into that text on the reader's thread. */
  async logText(credentials: PlatformCredentials, uuid: string, signal?: AbortSignal): Promise<LogText> {
    const response = await this.request(credentials, 'GET', ['crews', uuid, 'logs', 'deployment'], signal, { log: 'text' });
    return response.logText ?? logText(parseJson(response, LOG_READ_LIMITS));
  }

  /** Rebuilds a live service: only ever called after the user confirmed it. */
  async redeploy(credentials: PlatformCredentials, uuid: string, signal?: AbortSignal): Promise<DeploymentStatus> {
    return parseRedeploy(await this.json(credentials, 'POST', ['crews', uuid, 'deploy'], signal));
  }

  /** A GET of another route, read within `limits`: the automation triggers (triggerApps.ts checks each segment first). */
  async getJson(credentials: PlatformCredentials, path: string[], signal?: AbortSignal, limits?: ReadLimits): Promise<unknown> {
    return this.json(credentials, 'GET', path, signal, limits);
  }

  async dispose(): Promise<void> {
    const transport = this.transport;
    this.transport = undefined;
    await transport?.close();
  }

  private async json(credentials: PlatformCredentials, method: 'GET' | 'POST', path: string[], signal?: AbortSignal, limits?: ReadLimits): Promise<unknown> {
    return parseJson(await this.request(credentials, method, path, signal, { limits }), limits);
  }

  /** A 2xx reply, the token out of it, read on the reader's thread (as JSON within `limits`, or as a log's text); else the error. */
  private async request(credentials: PlatformCredentials, method: 'GET' | 'POST', path: string[], signal: AbortSignal | undefined, read: { limits?: ReadLimits; log?: 'text' | 'lines' }): Promise<HttpResponse> {
    const base = normaliseCrewUrl(credentials.baseUrl);
    if (!base.ok) {
      throw new PlatformError('refused', `The platform URL is not usable (${base.problem}); nothing was sent.`, undefined, undefined, undefined, true);
    }
    const url = [base.url, ...API, ...path.map(encodeURIComponent)].join('/');
    const { token } = credentials;
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? 'crew-runs',
      ...(credentials.organizationId ? { 'x-crewai-organization-id': credentials.organizationId } : {}),
      ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
    };
    let response: HttpResponse;
    try {
      // The reply is read on the reader's thread (api/jsonBody.ts, api/logBody.ts): the host gets its value or text.
      const reading = read.log ? { readLog: { token, as: read.log } } : { readJson: { token, ...(read.limits ? { limits: read.limits } : {}) } };
      response = redactResponse(await this.getTransport().request({ method, url, headers, body: method === 'POST' ? '{}' : undefined, signal, ...reading }), token);
    } catch (e) {
      throw fromFailure(e, token);
    }
    if (response.status >= 200 && response.status < 300) {
      return response;
    }
    throw errorFor(response, originOf(url), token);
  }

  private getTransport(): Transport {
    if (!this.transport) {
      const settings = this.options.getNetworkSettings?.() ?? DEFAULT_NETWORK_SETTINGS;
      if (this.options.createTransport) {
        this.transport = this.options.createTransport(settings);
      } else {
        // The crews' own transport bundle (dist/transport.js), loaded on the first platform request.
        const { createTransport } = require('../api/transport') as typeof TransportModule;
        this.transport = createTransport(settings);
      }
    }
    return this.transport;
  }
}

/**
 * What a failed redeploy means for sending it again (runTracking/sendOnce.ts): the platform's refusals (4xx) and a
 * request that never left free it, a 429 may go later, anything else may have started a rebuild.
 */
export function redeploySendFailure(error: unknown): SendFailure {
  if (!(error instanceof PlatformError)) {
    return classifySendFailure(error);
  }
  if (error.notSent || error.kind === 'rateLimited') {
    return 'retryLater';
  }
  return error.kind === 'unauthorized' || error.kind === 'forbidden' || error.kind === 'notFound' || error.kind === 'invalid' || error.kind === 'refused' ? 'refused' : 'mayHaveActed';
}

function fromFailure(e: unknown, token: string): PlatformError {
  const message = redact(e instanceof Error ? e.message : String(e), token);
  if (isTransportFailure(e)) {
    if (e.transportFailure === 'aborted') {
      return new PlatformError('aborted', message);
    }
    return new PlatformError(e.transportFailure === 'tooLarge' ? 'badResponse' : 'network', message, undefined, undefined, undefined, e.beforeSending === true);
  }
  return new PlatformError('network', message);
}

function errorFor(response: HttpResponse, origin: string, token: string): PlatformError {
  const status = response.status;
  // Redacted once read: a token spelled with control characters between its own (`\u0000` escapes) is whole only now.
  const sent = platformErrorWords(parseJson(response) ?? response.bodyText.slice(0, 300));
  const words = sent === undefined ? undefined : redact(sent, token);
  const said = words ? `: ${words}` : '.';
  if (status >= 300 && status < 400) {
    return new PlatformError('refused', `The platform at ${origin} answered with a redirect. Redirects are not followed, so that your personal token only goes to the platform URL; check the setting.`, undefined, status);
  }
  switch (status) {
    case 401:
      return new PlatformError('unauthorized', `The platform at ${origin} refused the personal access token (401): wrong or expired${said}`, words, status);
    case 403:
      return new PlatformError('forbidden', `The platform at ${origin} does not allow this (403)${said}`, words, status);
    case 404:
      return new PlatformError('notFound', `Not found at ${origin} (404)${said} Another organization may be selected.`, words, status);
    case 422:
      return new PlatformError('invalid', `The platform refused the request (422)${said}`, words, status);
    case 429:
      return new PlatformError('rateLimited', `The platform is limiting requests (429)${said}`, words, status, parseRetryAfter(response.headers['retry-after']));
    default:
      return new PlatformError('server', `The platform's server failed (${status})${said}`, words, status);
  }
}
