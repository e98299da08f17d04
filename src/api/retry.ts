// Backoff arithmetic shared by the client's read retries and the poller.

/** Multiplies `ms` by a random factor in [1 - spread, 1 + spread], so many clients do not retry in step. */
export function jitter(ms: number, spread = 0.2, random: () => number = Math.random): number {
  return Math.round(ms * (1 - spread + 2 * spread * random()));
}

/** Exponential backoff for attempt `n` (0-based), capped. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, factor = 2): number {
  return Math.min(maxMs, baseMs * Math.pow(factor, attempt));
}

/** The longest wait a Retry-After may ask for; a longer one is shortened to this. */
export const MAX_RETRY_AFTER_MS = 600_000;
/** A date further ahead than this is nonsense (a broken clock or a hostile server), not a wait. */
const FAR_DATE_MS = 24 * 3_600_000;

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date, at most 10 minutes. Undefined when absent or
 * nonsense (negative, not a number, hundreds of digits, a date more than a day ahead), as if the server had sent
 * none: a timer must neither fire at once (setTimeout fires at once above 2^31-1 ms) nor never.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const text = value.trim();
  if (/^\d{1,12}(\.\d{1,6})?$/.test(text)) {
    const ms = Math.round(Number(text) * 1000);
    return Number.isFinite(ms) ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
  }
  // An HTTP date names a weekday or month; '-5' or '1e3' would otherwise parse as years.
  if (!/^[A-Za-z]/.test(text)) {
    return undefined;
  }
  const date = Date.parse(text);
  if (Number.isNaN(date) || date - now > FAR_DATE_MS) {
    return undefined;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - now));
}
