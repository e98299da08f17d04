// Polling instead of sleeping: tests wait for a state, never for a fixed time.

export interface WaitForOptions {
  /** Give up after this long (default 10000 ms). */
  timeoutMs?: number;
  /** Pause between attempts (default 100 ms). */
  intervalMs?: number;
  /** What was awaited, for the timeout error (a function: built when it times out, with the state then). */
  message?: string | (() => string);
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
      const what = (typeof options.message === 'function' ? options.message() : options.message) ?? 'condition';
      const cause = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The opposite of waitFor: a property that must hold for a whole period ("stays removed through
 * 60 s of polling"). Calls `violation` every `intervalMs` until `durationMs` have passed and throws
 * at the first message it returns (undefined: holds). Resolves with the number of checks made.
 */
export async function holdsFor(durationMs: number, violation: () => string | undefined | Promise<string | undefined>, intervalMs = 1000): Promise<number> {
  const started = Date.now();
  let checks = 0;
  for (;;) {
    const problem = await violation();
    checks++;
    if (problem !== undefined) {
      throw new Error(`after ${((Date.now() - started) / 1000).toFixed(1)} s: ${problem}`);
    }
    if (Date.now() - started >= durationMs) {
      return checks;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, started + durationMs - Date.now()))));
  }
}
