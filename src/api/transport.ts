// The only module that loads undici. It is bundled on its own (dist/transport.js) and required on
// the first request, so activation never pays for undici. It is also the status reader's worker script
// (statusReader.ts): status requests are made, and their bodies read, on that thread.
import { Agent, EnvHttpProxyAgent, request, errors, type Dispatcher } from 'undici';
import { rootCertificates } from 'node:tls';
import { ERROR_BODY_BYTES, transportFailure, type HttpRequest, type HttpResponse, type NetworkSettings, type StreamingResponse, type Transport } from './transportTypes';
import { isLoopbackHost, originOf } from './url';
import { readJsonBody } from './jsonBody';
import { readLogLines, readLogText } from './logBody';
import { redact } from './redact';
import { readStatusBody } from './statusBody';
import { isStatusReaderThread, serveStatusRequests, StatusReader } from './statusReader';

const LOOPBACK_NO_PROXY = ['localhost', '127.0.0.1', '::1', '[::1]'];

function proxyOptions(settings: NetworkSettings, env: NodeJS.ProcessEnv) {
  const envNoProxy = env.NO_PROXY ?? env.no_proxy ?? '';
  // Loopback crews never reach this agent (see dispatcherFor); the list stays as a second line.
  const noProxy = [envNoProxy, ...LOOPBACK_NO_PROXY].filter(Boolean).join(',');
  const proxy = settings.proxy?.trim() || undefined;
  // http.proxyStrictSSL concerns what goes through the proxy (its own certificate, and the crew's as a TLS-inspecting
  // proxy re-signs it), as in VS Code; a direct connection (NO_PROXY) always checks the crew's certificate.
  const proxied = { ...caOptions(settings), rejectUnauthorized: settings.proxyStrictSSL };
  return {
    // VS Code's http.proxy wins over the environment, as in VS Code itself.
    httpProxy: proxy ?? env.HTTP_PROXY ?? env.http_proxy,
    httpsProxy: proxy ?? env.HTTPS_PROXY ?? env.https_proxy,
    noProxy,
    token: settings.proxyAuthorization,
    connect: strictTls(settings),
    requestTls: proxied,
    proxyTls: proxied,
  };
}

function caOptions(settings: NetworkSettings) {
  return settings.extraCaCertificates.length > 0 ? { ca: [...rootCertificates, ...settings.extraCaCertificates] } : {};
}

function strictTls(settings: NetworkSettings) {
  return { ...caOptions(settings), rejectUnauthorized: true };
}

export interface TransportOptions {
  /** Make status requests on this thread rather than the status reader's (the bench's "before"). */
  statusOnThisThread?: boolean;
}

export function createTransport(settings: NetworkSettings, env: NodeJS.ProcessEnv = process.env, options: TransportOptions = {}): Transport {
  // One dispatcher for remote crews (proxy when configured) and one for loopback crews, each with a keep-alive pool
  // per origin. Loopback (all of 127.0.0.0/8, ::1, localhost: where plain http is allowed) never goes through a proxy,
  // which would read the token in clear; NO_PROXY cannot express 127.0.0.0/8, so the choice is made here.
  const pool = {
    connections: 8,
    keepAliveTimeout: 10_000,
    connectTimeout: settings.connectTimeoutMs,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
  };
  const dispatcher = new EnvHttpProxyAgent({ ...proxyOptions(settings, env), ...pool });
  const loopback = new Agent({ ...pool, connect: strictTls(settings) });
  // Status requests go to the reader's thread (statusReader.ts), started on the first; ended with the transport.
  // In the reader's thread itself, they are made here.
  const statusReader = options.statusOnThisThread || isStatusReaderThread() ? undefined : new StatusReader({ script: __filename, settings, env });
  const dispatcherFor = (url: string): Dispatcher => (isLoopbackHost(new URL(url).hostname) ? loopback : dispatcher);
  // Every request, plain or streamed, goes through the same dispatcher (proxy, CA, no redirects) and timeouts.
  const requestOptions = (req: HttpRequest, signal: AbortSignal | undefined) => ({
    method: req.method,
    headers: req.headers,
    body: req.body,
    dispatcher: dispatcherFor(req.url),
    signal,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
  });

  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      // Statuses, deployment logs and every reply the host reads as JSON: read on the reader's thread, whatever their size.
      if ((req.readStatus || req.readJson || req.readLog) && statusReader) {
        return statusReader.request(req);
      }
      // A total deadline over headers and body: undici's timeouts only bound the gaps between bytes.
      const deadline = AbortSignal.timeout(settings.totalTimeoutMs);
      const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
      const failure = (e: unknown) =>
        deadline.aborted && !req.signal?.aborted
          ? transportFailure('timeout', `The crew at ${originOf(req.url)} did not finish answering in time (${Math.round(settings.totalTimeoutMs / 1000)} s in all).`)
          : toTransportFailure(e, req.url);
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(req.url, requestOptions(req, signal));
      } catch (e) {
        throw failure(e);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      // An error's words are at its start: the rest of a non-2xx body is left unread (ERROR_BODY_BYTES).
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      try {
        for await (const chunk of response.body) {
          size += chunk.length;
          if (!ok && size >= ERROR_BODY_BYTES) {
            chunks.push((chunk as Buffer).subarray(0, chunk.length - (size - ERROR_BODY_BYTES)));
            size = ERROR_BODY_BYTES;
            response.body.destroy();
            break;
          }
          if (size > settings.maxResponseBytes) {
            response.body.destroy();
            throw transportFailure(
              'tooLarge',
              `The crew at ${originOf(req.url)} sent more than ${Math.round(settings.maxResponseBytes / 1048576)} MB; the response was dropped.`,
            );
          }
          chunks.push(chunk as Buffer);
        }
      } catch (e) {
        throw isOwnFailure(e) ? e : failure(e);
      }
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      if (req.readStatus && ok) {
        // A status read here (on the reader's thread, see statusReader.ts): only the small snapshot goes back.
        return { status: response.statusCode, headers, bodyText: '', statusRead: readStatusBody(Buffer.concat(chunks, size), response.statusCode, req.readStatus.token, req.readStatus.knownEvents) };
      }
      if (req.readJson && ok) {
        // Likewise any other reply read as JSON: the value within bounds, and the start of its text (redacted).
        const { read, head } = readJsonBody(Buffer.concat(chunks, size), req.readJson.token, req.readJson.limits);
        return { status: response.statusCode, headers, bodyText: head, jsonRead: read, bodyRedacted: true };
      }
      if (req.readLog && ok) {
        // A deployment log: only its document's text, or its last lines, go back.
        const bytes = Buffer.concat(chunks, size);
        const read = req.readLog.as === 'text' ? { logText: readLogText(bytes, req.readLog.token) } : { logLines: readLogLines(bytes, req.readLog.token) };
        return { status: response.statusCode, headers, bodyText: '', ...read, bodyRedacted: true };
      }
      // Invalid UTF-8 becomes U+FFFD rather than an exception: crew output is untrusted text.
      const bodyText = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
      // An error's kept text is redacted here too, on the reader's thread: the host gets it done (bodyRedacted).
      const token = req.readStatus?.token ?? req.readJson?.token ?? req.readLog?.token;
      return token ? { status: response.statusCode, headers, bodyText: redact(bodyText, token), bodyRedacted: true } : { status: response.statusCode, headers, bodyText };
    },
    async stream(req: HttpRequest): Promise<StreamingResponse> {
      // Same dispatcher (proxy, CA, no redirects) as every request; no total deadline, since a chat turn streams
      // for as long as it answers: bodyTimeout still ends a stream that sends nothing, not even a keepalive.
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(req.url, requestOptions(req, req.signal));
      } catch (e) {
        throw toTransportFailure(e, req.url);
      }
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      const body = response.body;
      async function* chunks(): AsyncGenerator<string> {
        const decoder = new TextDecoder('utf-8', { fatal: false });
        try {
          for await (const chunk of body) {
            yield decoder.decode(chunk as Buffer, { stream: true });
          }
        } catch (e) {
          throw toTransportFailure(e, req.url);
        } finally {
          body.destroy();
        }
      }
      return { status: response.statusCode, headers, chunks: chunks() };
    },
    async close(): Promise<void> {
      await Promise.all([dispatcher.destroy().catch(() => undefined), loopback.destroy().catch(() => undefined), statusReader?.close()]);
    },
  };
}

// Loaded as the status reader's worker (statusReader.ts), this module serves its status requests.
if (isStatusReaderThread()) {
  serveStatusRequests((settings, env) => createTransport(settings, env));
}

function isOwnFailure(e: unknown): boolean {
  return typeof (e as { transportFailure?: unknown })?.transportFailure === 'string';
}

function toTransportFailure(e: unknown, url: string): Error {
  const origin = originOf(url);
  if ((e instanceof Error && e.name === 'AbortError') || e instanceof errors.RequestAbortedError) {
    return transportFailure('aborted', 'The request was cancelled.');
  }
  if (e instanceof errors.ConnectTimeoutError) {
    return transportFailure('timeout', `Could not connect to ${origin} in time.`, true);
  }
  if (e instanceof errors.HeadersTimeoutError || e instanceof errors.BodyTimeoutError) {
    return transportFailure('timeout', `The crew at ${origin} did not answer in time.`);
  }
  if (e instanceof errors.ResponseExceededMaxSizeError) {
    return transportFailure('tooLarge', `The crew at ${origin} sent a response that is too large.`);
  }
  const code = errorCode(e);
  const reason = code ? describeNetworkCode(code) : 'the connection failed';
  return transportFailure('network', `Could not reach ${origin}: ${reason}.`, code !== undefined && CONNECT_PHASE_CODES.has(code));
}

/** Failures that happen before a request is written: the crew cannot have acted on it. */
const CONNECT_PHASE_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function errorCode(e: unknown): string | undefined {
  let current: unknown = e;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('UND_ERR')) {
      return code;
    }
    if (code === 'UND_ERR_SOCKET') {
      return 'ECONNRESET';
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeNetworkCode(code: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the crew running?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was reset';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `the TLS certificate was not accepted (${code}); behind a corporate proxy, add its CA certificate`;
    default:
      return code;
  }
}
