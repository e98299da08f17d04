// The four calls of a deployed crew, with tolerant parsing and one typed error for every failure.
import type { CrewInputs, KickoffRequest, KnownEvents, ResumeRequest, ResumeResult, StatusSnapshot, StatusSource } from './types';
import { CrewApiError } from './errors';
import { endpointUrl, normaliseCrewUrl, originOf } from './url';
import { DEFAULT_READ_RETRY, type ReadRetryPolicy, withReadRetry } from './retry';
import { errorForResponse, parseJson, plausibleKickoffId } from './responses';
import { type StopResult, stopResultOf } from './stopResult';
import { normaliseStatus } from './normalize';
import { PieceRedactor, redact, redactResponse } from './redact';
import {
  extractErrorMessage,
  namesCamelCaseResumeFields,
  clipText,
  KICKOFF_ID_KEYS,
  parseKickoffBody,
  parseResumeBody,
  resumeErrorText,
} from './bodies';
import { parseInputsBody } from './inputsBody';
import type * as TransportModule from './transport';
import {
  DEFAULT_NETWORK_SETTINGS,
  ERROR_BODY_BYTES,
  isTransportFailure,
  type HttpResponse,
  type NetworkSettings,
  type Transport,
} from './transportTypes';

export type { ReadRetryPolicy } from './retry';
export type { StopResult } from './stopResult';

export interface CrewClientOptions {
  /** The token stored for a normalised crew URL. */
  getToken(crewUrl: string): Promise<string | undefined>;
  /** Network settings, read on each new transport (see `resetTransport`). */
  getNetworkSettings?(): NetworkSettings;
  /** Replaces the undici transport (tests). */
  createTransport?(settings: NetworkSettings): Transport | Promise<Transport>;
  /** Retries of GET /inputs (status reads are never retried here: the poller owns their backoff). */
  retry?: Partial<ReadRetryPolicy>;
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
  random?(): number;
  userAgent?: string;
}

export interface CallOptions {
  /** Use this token instead of the stored one (validating a token before saving it). */
  token?: string;
  signal?: AbortSignal;
}

interface SendOptions extends CallOptions {
  /** A status read: a 2xx body may come back already read into a snapshot (HttpRequest.readStatus), without the events the run keeps. */
  readStatus?: { knownEvents?: KnownEvents };
}

/** What the extension uses of the client (Services.client); tests and the bench pass stand-ins of this shape. */
/** A chat stream's text in whole lines, each redacted; `pieceRedactor` redacts what frames spell across each other. */
export type ChatStream = AsyncIterable<string> & { pieceRedactor?(): { push(piece: string): string; flush(): string } };

/**
 * The longest stream line the client hands on whole: the flow chat's reader keeps events up to 4 MiB
 * (flowChat/sse.ts MAX_EVENT_CHARS) and drops a longer one; a longer line goes on only one character past this.
 */
export const STREAM_LINE_CHARS = 4 * 1024 * 1024;

export type CrewApi = Pick<CrewClient, 'getInputs' | 'kickoff' | 'getStatus' | 'resume' | 'stop' | 'chatCall' | 'chatStream' | 'resetTransport' | 'dispose'>;

export class CrewClient implements StatusSource {
  private transport?: Promise<Transport>;
  private readonly retry: ReadRetryPolicy;

  constructor(private readonly options: CrewClientOptions) {
    this.retry = { ...DEFAULT_READ_RETRY, ...options.retry };
  }

  /**
   * GET /inputs: the inputs the crew expects. Also the way to validate a URL and token. A crew that
   * answers 404/405 (no such route) or a body that is no input list has answered all the same: it
   * just does not describe its inputs.
   */
  async getInputs(crewUrl: string, call: CallOptions = {}): Promise<CrewInputs> {
    let response: HttpResponse;
    try {
      const sleep = (ms: number, signal?: AbortSignal) => this.sleep(ms, signal);
      response = await withReadRetry(() => this.send(crewUrl, ['inputs'], 'GET', undefined, call), this.retry, { sleep, random: this.options.random }, call.signal);
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

  /**
   * GET /status/{id}, normalised. NOT FOUND (200 body or 404) is a state, not an error. Sent once:
   * the poller owns the backoff (and Retry-After) between checks.
   */
  async getStatus(crewUrl: string, kickoffId: string, signal?: AbortSignal, knownEvents?: KnownEvents): Promise<StatusSnapshot> {
    try {
      const response = await this.send(crewUrl, ['status', kickoffId], 'GET', undefined, { signal, readStatus: { knownEvents } });
      if (response.statusRead) {
        // Read by the transport on the status reader's thread (api/statusReader.ts), by the same steps as below; a
        // transport that does not read statuses (tests' stand-ins) gives the text, read here.
        if (!response.statusRead.ok) {
          throw new CrewApiError('badResponse', 'The crew sent a status that is not valid JSON.', { status: response.status });
        }
        return response.statusRead.snapshot;
      }
      const body = parseJson(response);
      if (body === undefined) {
        throw new CrewApiError('badResponse', 'The crew sent a status that is not valid JSON.', { status: response.status });
      }
      return normaliseStatus(body, response.status, knownEvents);
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
    const body = parseJson(response);
    const refusal = resumeErrorText(body);
    if (refusal !== undefined) {
      // A 2xx that says it failed: not recorded as sent (the text is kept); whether the crew acted is unclear,
      // so it is never sent again by itself (badResponse: may have acted).
      throw new CrewApiError('badResponse', `The crew answered ${response.status} but said: ${refusal}`, { status: response.status, serverMessage: refusal, body });
    }
    const result = parseResumeBody(body) ?? { kind: 'resumed' };
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
      const result = stopResultOf(e);
      if (!result) {
        throw e;
      }
      return result;
    }
  }

  /**
   * A JSON call of the chat routes (src/flowChat/, flow-chat.md): the same URL rules, token header, transport
   * and redaction as every call; never retried here (a chat message must not be sent twice).
   */
  async chatCall(crewUrl: string, path: string[], method: 'GET' | 'POST', body: unknown, call: CallOptions = {}): Promise<unknown> {
    const response = await this.send(crewUrl, path, method, body === undefined ? undefined : JSON.stringify(body), call);
    return parseJson(response);
  }

  /**
   * GET of a chat turn's server-sent events. Yields the body in whole lines, each redacted of the token (a token
   * never spans a line). A non-2xx answer throws the same CrewApiError as any call (409: no turn to attach to).
   */
  async chatStream(crewUrl: string, sessionId: string, lastEventId: string | undefined, signal?: AbortSignal): Promise<ChatStream> {
    const normalised = normaliseCrewUrl(crewUrl);
    if (!normalised.ok) {
      throw new CrewApiError('refused', `The crew URL is not usable (${normalised.problem}).`, { urlProblem: normalised.problem, notSent: true });
    }
    const token = await this.options.getToken(normalised.url);
    if (!token) {
      throw new CrewApiError('noToken', 'No token is stored for this crew. Set its token first.');
    }
    // The token goes in the header only, never in the query (some examples put it there).
    const query = new URLSearchParams({ events: '*', ...(lastEventId ? { last_event_id: lastEventId } : {}) });
    const url = `${endpointUrl(normalised.url, 'chat', sessionId, 'stream', 'events')}?${query.toString()}`;
    const headers = { authorization: `Bearer ${token}`, accept: 'text/event-stream', 'user-agent': this.options.userAgent ?? 'crew-runs' };
    const transport = await this.getTransport();
    if (!transport.stream) {
      throw new CrewApiError('network', 'This transport cannot read streams.', { notSent: true });
    }
    let response;
    try {
      response = await transport.stream({ method: 'GET', url, headers, signal });
    } catch (e) {
      throw this.fromTransportFailure(e, token);
    }
    if (response.status < 200 || response.status >= 300) {
      // Its first ERROR_BODY_BYTES only, as every error reply (the rest is left unread).
      let text = '';
      for await (const chunk of response.chunks) {
        text += chunk;
        if (text.length >= ERROR_BODY_BYTES) {
          text = text.slice(0, ERROR_BODY_BYTES);
          break;
        }
      }
      throw errorForResponse(redactResponse({ status: response.status, headers: response.headers, bodyText: text }, token), url, token);
    }
    const chunks = response.chunks;
    const fromTransport = (e: unknown) => this.fromTransportFailure(e, token);
    const lines = (async function* lines(): AsyncGenerator<string> {
      // Only each new chunk is searched for a line break (linear in the bytes); a line past STREAM_LINE_CHARS is
      // handed on only that far, one character past what the stream reader keeps, so it drops the line as one item.
      const pending: string[] = [];
      let pendingChars = 0;
      let skipping = false;
      try {
        for await (const chunk of chunks) {
          const end = Math.max(chunk.lastIndexOf('\n'), chunk.lastIndexOf('\r'));
          if (end < 0) {
            if (!skipping) {
              pending.push(chunk);
              pendingChars += chunk.length;
              if (pendingChars > STREAM_LINE_CHARS) {
                yield redact(pending.join('').slice(0, STREAM_LINE_CHARS + 1), token);
                pending.length = 0;
                pendingChars = 0;
                skipping = true;
              }
            }
            continue;
          }
          const head = chunk.slice(0, end + 1);
          yield redact(skipping ? head.slice(head.search(/[\r\n]/)) : pending.join('') + head, token);
          pending.length = 0;
          pendingChars = 0;
          skipping = false;
          if (end + 1 < chunk.length) {
            pending.push(chunk.slice(end + 1));
            pendingChars = chunk.length - end - 1;
          }
        }
      } catch (e) {
        throw fromTransport(e);
      }
      if (pending.length && !skipping) {
        yield redact(pending.join(''), token);
      }
    })();
    // A token cut over two frames' text (an answer spelling it token by token) is whole only once joined.
    return Object.assign(lines, { pieceRedactor: () => new PieceRedactor(token) });
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

  private async send(crewUrl: string, path: string[], method: 'GET' | 'POST', body: string | undefined, call: SendOptions): Promise<HttpResponse> {
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
      const readStatus = call.readStatus ? { token, ...(call.readStatus.knownEvents ? { knownEvents: call.readStatus.knownEvents } : {}) } : undefined;
      // Every other reply is read as JSON off this thread too (jsonBody.ts): the host gets its value, not its text.
      const read = readStatus ? { readStatus } : { readJson: { token } };
      response = redactResponse(await transport.request({ method, url, headers, body, signal: call.signal, ...read }), token);
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
      case 'unreadable':
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
