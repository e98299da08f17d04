// Fault injection: a seeded PRNG, read-fault selection, the faulty answers themselves, and a
// per-crew rate limiter. Faults model the network and gateways, so their durations are real ms.

import type { Reply } from './types';
import { READ_FAULT_KINDS, type FaultOptions, type ReadFaultKind } from './types';

export const DEFAULT_STALL_MS = 10_000;
export const DEFAULT_IDLE_AFTER_MS = 5 * 60_000;
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** mulberry32: tiny, fast, good enough to make fault sequences reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function isReadFaultKind(value: string): value is ReadFaultKind {
  return (READ_FAULT_KINDS as readonly string[]).includes(value);
}

/** Draws once per read request, so a seed fixes the whole sequence regardless of the rate. */
export function pickReadFault(faults: FaultOptions, random: () => number): ReadFaultKind | undefined {
  const roll = random();
  const pick = random();
  const kinds = faults.readFaultKinds ?? READ_FAULT_KINDS;
  if (!faults.readFaultRate || kinds.length === 0 || roll >= faults.readFaultRate) {
    return undefined;
  }
  return kinds[Math.min(kinds.length - 1, Math.floor(pick * kinds.length))];
}

/** The answer of a fault that has one of its own (reset, truncated and stall reuse the real answer). */
export function faultReply(kind: '500' | '502html' | '503' | '429' | 'malformed', retryAfterSeconds: number): Reply {
  const retryAfter = { 'Retry-After': String(retryAfterSeconds) };
  switch (kind) {
    case '500':
      return { status: 500, body: 'Internal Server Error' };
    case '502html':
      return {
        status: 502,
        headers: { 'Content-Type': 'text/html; charset=utf-8' },
        body: '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n',
      };
    case '503':
      return { status: 503, headers: retryAfter, body: 'Service Unavailable' };
    case '429':
      return { status: 429, headers: retryAfter, body: { detail: 'Too Many Requests' } };
    case 'malformed':
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"state": "RUNNING", "status": "Task is Runn' };
  }
}

/** Sliding one-second window of accepted requests. */
export class RateLimiter {
  private readonly accepted: number[] = [];

  /** Returns 0 when the request may go ahead, else the whole seconds to wait. */
  take(limitPerSecond: number, now: number): number {
    if (limitPerSecond <= 0) {
      return 1; // A crew that takes nothing (tests of a 429 on any request).
    }
    while (this.accepted.length > 0 && this.accepted[0] <= now - 1000) {
      this.accepted.shift();
    }
    if (this.accepted.length >= limitPerSecond) {
      return Math.max(1, Math.ceil((this.accepted[0] + 1000 - now) / 1000));
    }
    this.accepted.push(now);
    return 0;
  }
}
