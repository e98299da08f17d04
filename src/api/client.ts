// The four calls of a deployed crew, with tolerant parsing and one typed error for every failure.
import type { CrewInputs, KickoffRequest, ResumeRequest, ResumeResult, StatusSnapshot, StatusSource } from './types';
import { CrewApiError } from './errors';
import { endpointUrl, isPlausibleKickoffId, normaliseCrewUrl, originOf } from './url';
import { backoffDelay, jitter, parseRetryAfter } from './retry';
import { normaliseStatus } from './normalize';
import { redact, redactResponse } from './redact';
import {
  extractErrorMessage,
  extractMissingInputs,
  namesCamelCaseResumeFields,
  clipText,
  KICKOFF_ID_KEYS,
  parseKickoffBody,
  parseResumeBody,
} from './bodies';
import { parseInputsBody } from './inputsBody';
import type * as TransportModule from './transport';
import {
  DEFAULT_NETWORK_SETTINGS,
  isTransportFailure,
  type HttpResponse,
  type NetworkSettings,
  type Transport,
} from './transportTypes';

export interface ReadRetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out here; the error goes to the caller. */
  maxRetryAfterMs: number;
}

export interface CrewClientOptions {
  /** The token stored for a normalised crew URL. */
  getToken(crewUrl: string): Promise<string | undefined>;
  /** Network settings, read on each new transport (see `resetTransport`). */
  getNetworkSettings?(): NetworkSettings;
  /** Replaces the undici transport (tests). */
  createTransport?(settings: NetworkSettings): Transport | Promise<Transport>;
  retry?: Partial<ReadRetryPolicy>;
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
  random?(): number;
  userAgent?: string;
}

/** What POST /stop/{id} answered, when it answered in one of the ways the API notes list. */
export type StopResult =
  | { kind: 'stopped' }
  /** 400: the run had already ended; the server's words name its state. */
  | { kind: 'alreadyEnded'; serverMessage?: string }
  /** 404 `Execution not found`: the service does not know the run. */
  | { kind: 'unknownRun'; serverMessage?: string }
  /** Generic 404 or 405: the crew does not offer stopping. */
  | { kind: 'unsupported' };

export interface CallOptions {
  /** Use this token instead of the stored one (validating a token before saving it). */
  token?: string;
  signal?: AbortSignal;
}

const DEFAULT_RETRY: ReadRetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5_000, maxRetryAfterMs: 30_000 };

export class CrewClient implements StatusSource {
  private transport?: Promise<Transport>;
  private readonly retry: ReadRetryPolicy;

  constructor(private readonly options: CrewClientOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  /**
   * GET /inputs: the inputs the crew expects. Also the way to validate a URL and token. A crew that
   * answers 404/405 (no such route) or a body that is no input list has answered all the same: it
   * just does not describe its inputs.
   */
  async getInputs(crewUrl: string, call: CallOptions = {}): Promise<CrewInputs> {
    let response: HttpResponse;
    try {
      response = await this.read(crewUrl, ['inputs'], call);
    } catch (e) {
      if (e instanceof CrewApiError && (e.status === 404 || e.status === 405)) {
        return { described: false, reason: e.serverMessage ?? `HTTP ${e.status}` };
      }
      throw e;
    }
    const inputs = parseInputsBody(parseJson(response));
    if (!inputs) {
      // Its words as text (an HTML page's visible text), clipped.
      const sent = extractErrorMessage(response.bodyText);
      return { described: false, reason: sent === undefined ? 'an empty reply' : `a reply that is no input list: ${sent}` };
    }
    return { described: true, inputs };
  }

  /** POST /kickoff. Never retried: after a timeout the run may have started. */
  async kickoff(crewUrl: string, request: KickoffRequest, call: CallOptions = {}): Promise<string> {
    const response = await this.send(crewUrl, ['kickoff'], 'POST', JSON.stringify(request), call);
    const kickoffId = parseKickoffBody(parseJson(response));
    if (!kickoffId) {
      const sent = clipText(response.bodyText);
      throw new CrewApiError(
        'badResponse',
        `The crew accepted the kickoff but its reply named no run id (looked for ${KICKOFF_ID_KEYS.join(', ')}); it sent ${sent === undefined ? 'an empty reply' : `"${sent}"`}.`,
        { status: response.status, serverMessage: sent, origin: originOf(crewUrl) },
      );
    }
    return plausibleKickoffId(kickoffId, response.status);
  }

  /** GET /status/{id}, normalised. NOT FOUND (200 body or 404) is a state, not an error. */
  async getStatus(crewUrl: string, kickoffId: string, signal?: AbortSignal): Promise<StatusSnapshot> {
    try {
      const response = await this.read(crewUrl, ['status', kickoffId], { signal });
      const body = parseJson(response);
      if (body === undefined) {
        throw new CrewApiError('badResponse', 'The crew sent a status that is not valid JSON.', { status: response.status });
      }
      return normaliseStatus(body, response.status);
    } catch (e) {
      if (e instanceof CrewApiError && e.kind === 'notFound') {
        return normaliseStatus(e.body ?? {}, 404);
      }
      throw e;
    }
  }

  /**
   * POST /resume. The documented snake_case body first; the live service wants camelCase and says
   * so with a 422 naming `executionId`/`taskId`: then, and only then, once more in camelCase.
   */
  async resume(crewUrl: string, request: ResumeRequest, call: CallOptions = {}): Promise<ResumeResult> {
    const webhooks = {
      ...(request.taskWebhookUrl ? { taskWebhookUrl: request.taskWebhookUrl } : {}),
      ...(request.stepWebhookUrl ? { stepWebhookUrl: request.stepWebhookUrl } : {}),
      ...(request.crewWebhookUrl ? { crewWebhookUrl: request.crewWebhookUrl } : {}),
    };
    const documented = {
      execution_id: request.executionId,
      task_id: request.taskId,
      human_feedback: request.humanFeedback,
      is_approve: request.isApprove,
      ...webhooks,
    };
    let response: HttpResponse;
    try {
      response = await this.send(crewUrl, ['resume'], 'POST', JSON.stringify(documented), call);
    } catch (e) {
      if (!(e instanceof CrewApiError && e.status === 422 && namesCamelCaseResumeFields(e.body))) {
        throw e;
      }
      const camelCase = {
        executionId: request.executionId,
        taskId: request.taskId,
        humanFeedback: request.humanFeedback,
        isApprove: request.isApprove,
        ...webhooks,
      };
      response = await this.send(crewUrl, ['resume'], 'POST', JSON.stringify(camelCase), call);
    }
    const result = parseResumeBody(parseJson(response)) ?? { kind: 'resumed' };
    if (result.kind !== 'continuedAs') {
      return result;
    }
    try {
      return { ...result, kickoffId: plausibleKickoffId(result.kickoffId, response.status) };
    } catch {
      // The crew took the answer (2xx); an id we cannot use must not turn it into a failure that invites a second resume.
      return { kind: 'resumed' };
    }
  }

  /**
   * POST /stop/{id} (hosted, not in the public reference; crew-api.md "Stopping a run"). Never
   * retried. The run's end itself is left to polling (the status then reads REVOKED).
   */
  async stop(crewUrl: string, kickoffId: string, call: CallOptions = {}): Promise<StopResult> {
    try {
      await this.send(crewUrl, ['stop', kickoffId], 'POST', '{}', call);
      return { kind: 'stopped' };
    } catch (e) {
      if (!(e instanceof CrewApiError)) {
        throw e;
      }
      if (e.status === 400) {
        return { kind: 'alreadyEnded', serverMessage: e.serverMessage };
      }
      if (e.status === 404 && isExecutionNotFound(e.body)) {
        return { kind: 'unknownRun', serverMessage: e.serverMessage };
      }
      // A generic 404 (`{"detail":"Not Found"}`) or 405: this deployment has no stop route.
      if (e.status === 404 || e.status === 405) {
        return { kind: 'unsupported' };
      }
      throw e;
    }
  }

  /** Drops pooled connections; the next call builds a transport from fresh settings. */
  async resetTransport(): Promise<void> {
    const previous = this.transport;
    this.transport = undefined;
    await (await previous?.catch(() => undefined))?.close();
  }

  async dispose(): Promise<void> {
    await this.resetTransport();
  }

  private async read(crewUrl: string, path: string[], call: CallOptions): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.send(crewUrl, path, 'GET', undefined, call);
      } catch (e) {
        const last = attempt + 1 >= this.retry.attempts;
        if (!(e instanceof CrewApiError) || !e.transient || last || call.signal?.aborted) {
          throw e;
        }
        if (e.retryAfterMs !== undefined && e.retryAfterMs > this.retry.maxRetryAfterMs) {
          throw e;
        }
        const backoff = jitter(backoffDelay(attempt, this.retry.baseDelayMs, this.retry.maxDelayMs), 0.2, this.options.random);
        await this.sleep(Math.max(backoff, e.retryAfterMs ?? 0), call.signal);
      }
    }
  }

  private async send(crewUrl: string, path: string[], method: 'GET' | 'POST', body: string | undefined, call: CallOptions): Promise<HttpResponse> {
    const normalised = normaliseCrewUrl(crewUrl);
    if (!normalised.ok) {
      throw new CrewApiError('refused', `The crew URL is not usable (${normalised.problem}).`, { urlProblem: normalised.problem, notSent: true });
    }
    const baseUrl = normalised.url;
    const token = call.token ?? (await this.options.getToken(baseUrl));
    if (!token) {
      throw new CrewApiError('noToken', 'No token is stored for this crew. Set its token first.');
    }
    const url = endpointUrl(baseUrl, ...path);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? 'crew-runs',
    };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
    }
    let response: HttpResponse;
    try {
      const transport = await this.getTransport();
      // Redacted before anything reads it: messages are cut to length, bodies stored, logged and shown.
      response = redactResponse(await transport.request({ method, url, headers, body, signal: call.signal }), token);
    } catch (e) {
      throw this.fromTransportFailure(e, token);
    }
    if (response.status >= 200 && response.status < 300) {
      return response;
    }
    throw errorForResponse(response, url, token);
  }

  private fromTransportFailure(e: unknown, token: string): unknown {
    if (!isTransportFailure(e)) {
      // Not the transport's own tagged failure (a bug, or a transport that failed to load): its
      // message could still quote the request, so the token is taken out of it too.
      if (e instanceof Error && token && (e.message.includes(token) || e.stack?.includes(token))) {
        e.message = redact(e.message, token);
        e.stack = e.stack === undefined ? undefined : redact(e.stack, token);
      }
      return e;
    }
    const message = redact(e.message, token);
    switch (e.transportFailure) {
      case 'aborted': {
        const abort = new Error(message);
        abort.name = 'AbortError';
        return abort;
      }
      case 'timeout':
        return new CrewApiError('timeout', message, { notSent: e.beforeSending });
      case 'tooLarge':
        return new CrewApiError('badResponse', message);
      default:
        return new CrewApiError('network', message, { notSent: e.beforeSending });
    }
  }

  private getTransport(): Promise<Transport> {
    if (!this.transport) {
      const settings = this.options.getNetworkSettings?.() ?? DEFAULT_NETWORK_SETTINGS;
      this.transport = (async () => {
        if (this.options.createTransport) {
          return this.options.createTransport(settings);
        }
        // Loaded on the first request, not at activation (dist/transport.js in the bundle). A plain
        // require, so the bundle loads it synchronously as CommonJS, like the extension itself.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { createTransport } = require('./transport') as typeof TransportModule;
        return createTransport(settings);
      })();
      this.transport.catch(() => (this.transport = undefined));
    }
    return this.transport;
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.options.sleep) {
      return this.options.sleep(ms, signal);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        const abort = new Error('The request was cancelled.');
        abort.name = 'AbortError';
        reject(abort);
      }, { once: true });
    });
  }
}

/** The hosted service's 404 for a run it does not know, as opposed to a route it does not have. */
function isExecutionNotFound(body: unknown): boolean {
  return typeof body === 'object' && body !== null && /execution not found/i.test(String((body as { error?: unknown }).error ?? ''));
}

/** A kickoff id is stored, shown and put in URLs: one that does not look like an id is refused, not quoted. */
function plausibleKickoffId(id: string, status: number): string {
  if (!isPlausibleKickoffId(id)) {
    throw new CrewApiError('badResponse', `The crew's reply named a kickoff id Crew Runs cannot use (${id.length} characters, or characters an id does not have).`, { status });
  }
  return id;
}

function parseJson(response: HttpResponse): unknown {
  const text = response.bodyText.trim();
  if (!text) {
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorForResponse(response: HttpResponse, url: string, token: string): CrewApiError {
  const status = response.status;
  const origin = originOf(url);
  const body = parseJson(response) ?? response.bodyText;
  const serverMessage = (() => {
    const message = extractErrorMessage(body);
    return message ? redact(message, token) : undefined;
  })();
  const said = serverMessage ? `: ${serverMessage}` : '.';
  const details = { status, serverMessage, body, origin };

  if (status >= 300 && status < 400) {
    const target = redirectTarget(response.headers['location'], url);
    return new CrewApiError(
      'refused',
      `The crew at ${origin} answered with a redirect${target}. Redirects are not followed, so that the token is only ever sent to the crew's own URL; check the URL.`,
      { status },
    );
  }
  switch (status) {
    case 401:
      return new CrewApiError('unauthorized', `The crew at ${origin} rejected the token (401).`, details);
    case 403:
      return new CrewApiError(
        'unauthorized',
        `The crew at ${origin} does not allow this with the stored token (403); a User Bearer Token can do less than the organization Bearer Token.`,
        details,
      );
    case 404:
      return new CrewApiError('notFound', `Not found at ${origin} (404)${said}`, details);
    case 422: {
      const missingInputs = extractMissingInputs(body);
      if (missingInputs.length > 0) {
        return new CrewApiError('missingInputs', `The crew needs these inputs: ${missingInputs.join(', ')}.`, { ...details, missingInputs });
      }
      return new CrewApiError('badRequest', `The crew rejected the request (422)${said}`, details);
    }
    case 400:
      return new CrewApiError('badRequest', `The crew rejected the request (400)${said}`, details);
    case 429:
      return new CrewApiError('rateLimited', `The crew is limiting requests (429); try again shortly.`, {
        ...details,
        retryAfterMs: parseRetryAfter(response.headers['retry-after']),
      });
    default:
      return new CrewApiError('server', `The crew's server failed (${status})${said}`, {
        ...details,
        retryAfterMs: status === 503 ? parseRetryAfter(response.headers['retry-after']) : undefined,
      });
  }
}

/** ` to https://other.example` for a redirect's Location, or '' when it names no usable origin. */
function redirectTarget(location: string | undefined, requestUrl: string): string {
  if (!location) {
    return '';
  }
  try {
    const origin = new URL(location, requestUrl).origin;
    return origin && origin !== 'null' ? ` to ${origin}` : '';
  } catch {
    // A malformed Location is still a redirect, refused like any other.
    return '';
  }
}
