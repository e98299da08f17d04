// Bounded concurrency and pace for the platform's fan-out requests (deployment health): pure, unit-tested.

/** Runs `work` over `items` with at most `limit` running at once, in order of start. */
export async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

export interface PaceClock {
  now(): number;
  wait(ms: number): Promise<void>;
}

export const systemPaceClock: PaceClock = {
  now: () => Date.now(),
  wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Spaces request starts at most `perSecond` a second, and holds them all while the server asked for a pause
 * (Retry-After): a cap on requests in flight alone still sends 100 in a burst of fast replies, which a platform's
 * per-token rate limit answers with 429s.
 */
export class Pacer {
  private nextAt = 0;

  constructor(
    private readonly perSecond: number,
    private readonly clock: PaceClock = systemPaceClock,
  ) {}

  /** Resolves when this start may go. */
  async turn(): Promise<void> {
    const now = this.clock.now();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + 1000 / this.perSecond;
    if (at > now) {
      await this.clock.wait(at - now);
    }
  }

  /** No start before `ms` from now has passed. */
  holdFor(ms: number): void {
    this.nextAt = Math.max(this.nextAt, this.clock.now() + ms);
  }
}
