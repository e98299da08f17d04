// Types shared by the client and the lazily loaded transport, kept apart so that importing them
// does not load undici.
import type { ReadLimits } from './boundedJson';
import type { LogLines, LogText } from './logLines';
import type { KnownEvents, StatusSnapshot } from './types';

/** A 2xx status body read into a snapshot (statusBody.ts); not JSON is its own outcome (the client words it). */
export type StatusBodyRead = { ok: true; snapshot: StatusSnapshot } | { ok: false; reason: 'notJson' };

/**
 * A non-2xx body is read to this many bytes, the rest left unread: an error's words are at its start, and a 60 MB
 * error page must not cost the host's thread its decoding, redaction and parsing.
 */
export const ERROR_BODY_BYTES = 64 * 1024;

/**
 * A 2xx body read on the status reader's thread (HttpRequest.readJson): the value within the request's limits as
 * JSON text (the host parses it: cheaper there than a structured clone), and where it left entries out
 * (`omittedEntries` does not cross threads), as [path, count].
 */
export interface JsonBodyRead {
  /** At most REPLY_VALUE_BUDGET characters; undefined when the body is empty or not JSON. */
  json?: string;
  omitted: [path: (string | number)[], count: number][];
}

export interface NetworkSettings {
  /** VS Code's `http.proxy`; empty means the environment's HTTPS_PROXY / HTTP_PROXY. */
  proxy?: string;
  /** VS Code's `http.proxyStrictSSL`. */
  proxyStrictSSL: boolean;
  /** VS Code's `http.proxyAuthorization`, sent to the proxy only. */
  proxyAuthorization?: string;
  /** PEM certificates trusted in addition to Node's roots (a corporate proxy's CA). */
  extraCaCertificates: string[];
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** The whole request, first byte to last: a body dripping a byte at a time never holds a slot longer. */
  totalTimeoutMs: number;
  /** A larger body is an error, never an out-of-memory. */
  maxResponseBytes: number;
}

export const DEFAULT_NETWORK_SETTINGS: NetworkSettings = {
  proxyStrictSSL: true,
  extraCaCertificates: [],
  connectTimeoutMs: 15_000,
  // Generous: a cold crew can take a while before the first byte.
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  totalTimeoutMs: 120_000,
  maxResponseBytes: 64 * 1024 * 1024,
};


export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /**
   * GET /status: the request is made on the status reader's thread (statusReader.ts), and a 2xx body is read
   * there into a snapshot, this token taken out of it; it comes back as `statusRead` instead of `bodyText`.
   */
  readStatus?: { token: string; knownEvents?: KnownEvents };
  /**
   * Any other call whose reply the host reads as JSON: made on the status reader's thread too, where a 2xx body is
   * decoded, this token taken out and read within `limits`; it comes back as `jsonRead`, with at most
   * ERROR_BODY_BYTES of its text in `bodyText` (for the words of a reply that is no JSON).
   */
  readJson?: { token: string; limits?: ReadLimits };
  /**
   * A deployment log: made on the status reader's thread too, where a 2xx body is read (logBody.ts), this token taken
   * out, into the text its document shows (`as: 'text'`, back as `logText`) or its last lines (`logLines`); the
   * response's `bodyText` is then empty.
   */
  readLog?: { token: string; as: 'text' | 'lines' };
}

export interface HttpResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  bodyText: string;
  /** A 2xx status body read on the status reader's thread (HttpRequest.readStatus); `bodyText` is then empty. */
  statusRead?: StatusBodyRead;
  /** A 2xx body read on the status reader's thread (HttpRequest.readJson). */
  jsonRead?: JsonBodyRead;
  /** A 2xx deployment log read on the status reader's thread (HttpRequest.readLog). */
  logText?: LogText;
  logLines?: LogLines;
  /**
   * Set by the transport only: `bodyText` already has the request's token (readStatus, readJson, readLog) taken out, on the
   * thread that read it, so redactResponse leaves it as it is (64 KB of escapes cost a redactor 15-20 ms).
   */
  bodyRedacted?: boolean;
}

/** A response read as it comes (server-sent events): no total deadline, only the gaps between bytes. */
export interface StreamingResponse {
  status: number;
  headers: Record<string, string | undefined>;
  /** The body's text as it arrives (UTF-8 decoded across chunk boundaries). */
  chunks: AsyncIterable<string>;
}

export interface Transport {
  request(req: HttpRequest): Promise<HttpResponse>;
  /** Optional: a transport without it offers no streams (the chat then polls). */
  stream?(req: HttpRequest): Promise<StreamingResponse>;
  close(): Promise<void>;
}

/** `unreadable`: the body arrived but its off-thread reader failed or stopped (statusReader.ts). */
export type TransportFailureKind = 'network' | 'timeout' | 'tooLarge' | 'aborted' | 'unreadable';

/**
 * What the transport rejects with. A plain Error with a tag rather than CrewApiError: the
 * transport is a separate bundle, so `instanceof` across bundles would not hold.
 */
export interface TransportFailure extends Error {
  transportFailure: TransportFailureKind;
  /** It failed while connecting (refused, no such host, certificate refused): nothing of the request left. */
  beforeSending?: boolean;
}

export function transportFailure(kind: TransportFailureKind, message: string, beforeSending = false): TransportFailure {
  return Object.assign(new Error(message), { transportFailure: kind, ...(beforeSending ? { beforeSending } : {}) });
}

export function isTransportFailure(e: unknown): e is TransportFailure {
  return e instanceof Error && typeof (e as Partial<TransportFailure>).transportFailure === 'string';
}
