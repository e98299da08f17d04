// Polling instead of sleeping: tests wait for a state, never for a fixed time.

export interface WaitForOptions {
  /** Give up after this long (default 10000 ms). */
  timeoutMs?: number;
  /** Pause between attempts (default 100 ms). */
  intervalMs?: number;
  /** What was awaited, for the timeout error. */
  message?: string;
}

type Falsy = false | 0 | '' | null | undefined;

/**
 * Calls `condition` until it returns a truthy value (which is returned). A throwing condition
 * counts as "not yet"; its last error is quoted if the wait times out.
 */
export async function waitFor<T>(condition: () => T | Falsy | Promise<T | Falsy>, options: WaitForOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) {
        return value;
      }
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const what = options.message ?? 'condition';
      const cause = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
