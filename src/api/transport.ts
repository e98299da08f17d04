// The only module that loads undici. It is bundled on its own (dist/transport.js) and required on
// the first request, so activation never pays for undici.
import { EnvHttpProxyAgent, request, errors } from 'undici';
import { rootCertificates } from 'node:tls';
import { transportFailure, type HttpRequest, type HttpResponse, type NetworkSettings, type Transport } from './transportTypes';
import { originOf } from './url';

const LOOPBACK_NO_PROXY = ['localhost', '127.0.0.1', '::1', '[::1]'];

function proxyOptions(settings: NetworkSettings, env: NodeJS.ProcessEnv) {
  const envNoProxy = env.NO_PROXY ?? env.no_proxy ?? '';
  // A loopback crew (the simulator) must never be sent through a corporate proxy.
  const noProxy = [envNoProxy, ...LOOPBACK_NO_PROXY].filter(Boolean).join(',');
  const proxy = settings.proxy?.trim() || undefined;
  const tls = {
    rejectUnauthorized: settings.proxyStrictSSL,
    ...(settings.extraCaCertificates.length > 0 ? { ca: [...rootCertificates, ...settings.extraCaCertificates] } : {}),
  };
  return {
    // VS Code's http.proxy wins over the environment, as in VS Code itself.
    httpProxy: proxy ?? env.HTTP_PROXY ?? env.http_proxy,
    httpsProxy: proxy ?? env.HTTPS_PROXY ?? env.https_proxy,
    noProxy,
    token: settings.proxyAuthorization,
    connect: tls,
    requestTls: tls,
    proxyTls: tls,
  };
}

export function createTransport(settings: NetworkSettings, env: NodeJS.ProcessEnv = process.env): Transport {
  // One dispatcher for all crews; it keeps one keep-alive pool per origin.
  const dispatcher = new EnvHttpProxyAgent({
    ...proxyOptions(settings, env),
    connections: 8,
    keepAliveTimeout: 10_000,
    connectTimeout: settings.connectTimeoutMs,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
  });

  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          dispatcher,
          signal: req.signal,
          headersTimeout: settings.headersTimeoutMs,
          bodyTimeout: settings.bodyTimeoutMs,
        });
      } catch (e) {
        throw toTransportFailure(e, req.url);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of response.body) {
          size += chunk.length;
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
        throw isOwnFailure(e) ? e : toTransportFailure(e, req.url);
      }
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      return {
        status: response.statusCode,
        headers,
        // Invalid UTF-8 becomes U+FFFD rather than an exception: crew output is untrusted text.
        bodyText: new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks)),
      };
    },
    async close(): Promise<void> {
      await dispatcher.destroy().catch(() => undefined);
    },
  };
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
    return transportFailure('timeout', `Could not connect to ${origin} in time.`);
  }
  if (e instanceof errors.HeadersTimeoutError || e instanceof errors.BodyTimeoutError) {
    return transportFailure('timeout', `The crew at ${origin} did not answer in time.`);
  }
  if (e instanceof errors.ResponseExceededMaxSizeError) {
    return transportFailure('tooLarge', `The crew at ${origin} sent a response that is too large.`);
  }
  const code = errorCode(e);
  const reason = code ? describeNetworkCode(code) : 'the connection failed';
  return transportFailure('network', `Could not reach ${origin}: ${reason}.`);
}

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
