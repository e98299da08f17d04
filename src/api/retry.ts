// Backoff arithmetic shared by the client's read retries and the poller.

/** Multiplies `ms` by a random factor in [1 - spread, 1 + spread], so many clients do not retry in step. */
export function jitter(ms: number, spread = 0.2, random: () => number = Math.random): number {
  return Math.round(ms * (1 - spread + 2 * spread * random()));
}

/** Exponential backoff for attempt `n` (0-based), capped. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, factor = 2): number {
  return Math.min(maxMs, baseMs * Math.pow(factor, attempt));
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date. Undefined when absent or
 * unreadable; never negative.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    return Math.round(Number(text) * 1000);
  }
  const date = Date.parse(text);
  if (Number.isNaN(date)) {
    return undefined;
  }
  return Math.max(0, date - now);
}
