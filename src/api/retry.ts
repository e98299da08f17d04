// The one retry policy for reads a person waits on (GET /inputs from the wizard, the chat tools): a
// few quick attempts on a transient failure. Status polls are never retried here: the poller reads
// once and owns its backoff (runTracking/pollPace.ts), Retry-After included.
import { CrewApiError } from './errors';

export interface ReadRetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out here; the error goes to the caller. */
  maxRetryAfterMs: number;
}

export const DEFAULT_READ_RETRY: ReadRetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5_000, maxRetryAfterMs: 30_000 };

export interface RetryDeps {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random?(): number;
}

/** Runs `attempt` again on a transient CrewApiError (5xx, 429, network), waiting the backoff or Retry-After. */
export async function withReadRetry<T>(attempt: () => Promise<T>, policy: ReadRetryPolicy, deps: RetryDeps, signal?: AbortSignal): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      const last = n + 1 >= policy.attempts;
      if (!(e instanceof CrewApiError) || !e.transient || last || signal?.aborted) {
        throw e;
      }
      if (e.retryAfterMs !== undefined && e.retryAfterMs > policy.maxRetryAfterMs) {
        throw e;
      }
      const backoff = jitter(backoffDelay(n, policy.baseDelayMs, policy.maxDelayMs), 0.2, deps.random);
      await deps.sleep(Math.max(backoff, e.retryAfterMs ?? 0), signal);
    }
  }
}

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
