// Bounded concurrency for the platform's fan-out requests (deployment health): pure, unit-tested.

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
