// A 2xx GET /status body, from its bytes to a StatusSnapshot: decoded, the token taken out, read within READ_LIMITS
// and normalised. The very steps the client takes in place (transport → redactResponse → parseJson →
// normaliseStatus), in one pure function, so that the status reader's thread (statusReader.ts) can take them and
// give the same snapshot. Never logs; never throws for any body.
import { normaliseStatus } from './normalize';
import { redact } from './redact';
import { parseJson } from './responses';
import type { StatusBodyRead } from './transportTypes';
import type { KnownEvents } from './types';

export type { StatusBodyRead } from './transportTypes';

export function readStatusBody(bytes: Uint8Array, httpStatus: number, token: string, knownEvents?: KnownEvents): StatusBodyRead {
  // Invalid UTF-8 becomes U+FFFD rather than an exception, as in the transport.
  const bodyText = redact(new TextDecoder('utf-8', { fatal: false }).decode(bytes), token);
  const body = parseJson({ status: httpStatus, headers: {}, bodyText });
  return body === undefined ? { ok: false, reason: 'notJson' } : { ok: true, snapshot: normaliseStatus(body, httpStatus, knownEvents) };
}
