// HTTP plumbing of the simulator: reading and parsing a body, writing a reply (whole or cut short), which
// endpoint a path names and which token a request carries.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainObject } from '../util/objects';
import type { Reply } from './types';
import type { CrewState } from './world';
import type { Endpoint, RequestLogEntry } from './types';

const MAX_BODY_BYTES = 1024 * 1024;

export function classify(rest: string[]): Endpoint {
  if (rest.length === 1 && (rest[0] === 'inputs' || rest[0] === 'kickoff' || rest[0] === 'resume')) {
    return rest[0];
  }
  if (rest.length === 2 && rest[1] !== '' && (rest[0] === 'status' || rest[0] === 'stop')) {
    return rest[0];
  }
  return 'other';
}

export function tokenKindOf(crew: CrewState | undefined, header: string | undefined): RequestLogEntry['tokenKind'] {
  if (header === undefined) {
    return 'none';
  }
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (match && crew) {
    if (match[1] === crew.config.orgToken) {
      return 'org';
    }
    if (match[1] === crew.config.userToken) {
      return 'user';
    }
  }
  return 'invalid';
}

/** The body as text; undefined when it is larger than MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export type Parsed = { ok: true; value: unknown } | { ok: false; raw: string };

export function parseJson(text: string): Parsed {
  if (text.trim() === '') {
    return { ok: true, value: {} };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, raw: text };
  }
}

function serialize(reply: Reply): { headers: Record<string, string>; payload: Buffer } {
  const isText = typeof reply.body === 'string';
  const payload = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(isText ? (reply.body as string) : JSON.stringify(reply.body), 'utf8');
  return {
    headers: {
      'Content-Type': isText ? 'text/plain; charset=utf-8' : 'application/json',
      ...reply.headers,
      'Content-Length': String(payload.length),
    },
    payload,
  };
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) {
    return;
  }
  const { headers, payload } = serialize(reply);
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/** Headers promise the whole body; half of it comes, then the connection drops. */
export function sendTruncated(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) {
    return;
  }
  const { headers, payload } = serialize(reply);
  res.writeHead(reply.status, headers);
  res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.socket?.destroy());
}

/** `echoToken`: the Authorization header in every text field of a 2xx status reply, as a careless server might. */
export function echoAuthorization(reply: Reply, authorization: string): Reply {
  if (reply.status < 200 || reply.status >= 300 || !isPlainObject(reply.body)) {
    return reply;
  }
  const echo = (value: unknown): unknown => (typeof value === 'string' ? `${value} [${authorization}]` : value);
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(reply.body)) {
    if (key === 'state') {
      body[key] = value; // the state stays readable: the run goes on and its bodies keep echoing
      continue;
    }
    const nested = isPlainObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echo(v)])) : undefined;
    body[key] = nested ?? (Array.isArray(value) ? value.map(echo) : echo(value));
  }
  body['token'] = authorization;
  return { ...reply, body };
}
