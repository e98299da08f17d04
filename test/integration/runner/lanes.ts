// Sessions side by side. Much of a session's time is waiting (simulated crews, polling, leases): one
// session alone keeps a 2-core machine about half busy.
// Pure scheduling, unit-tested in Node (test/unit/integrationLanes.test.ts).

export interface Estimated {
  name: string;
  /** Expected seconds: the order sessions start in, longest first, so no long one starts last. */
  estimateSeconds: number;
}

/**
 * Runs `work` for every item, at most `lanes` at once, longest estimate first (ties keep their
 * order). Results come back in the items' order. `stopped` is asked before each start: once it says
 * yes, the items not started yet are left out of the results.
 */
export async function runInLanes<T extends Estimated, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>, stopped: () => boolean = () => false): Promise<R[]> {
  const queue = items.map((item, index) => ({ item, index })).sort((a, b) => b.item.estimateSeconds - a.item.estimateSeconds || a.index - b.index);
  const results: { index: number; result: R }[] = [];
  const lane = async () => {
    for (let next = queue.shift(); next && !stopped(); next = queue.shift()) {
      results.push({ index: next.index, result: await work(next.item) });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  return results.sort((a, b) => a.index - b.index).map(({ result }) => result);
}

/**
 * Splits files into `parts` groups of about equal expected time (the longest file first into the
 * lightest group); each group keeps the files' own order, so a file meant to run last still does.
 * Files without an estimate count `fallbackSeconds`. Empty groups are dropped.
 */
export function splitByTime(files: readonly string[], parts: number, estimate: (file: string) => number | undefined, fallbackSeconds: number): string[][] {
  const groups = Array.from({ length: Math.max(1, parts) }, () => ({ seconds: 0, files: [] as string[] }));
  const weighed = files.map((file, index) => ({ file, index, seconds: estimate(file) ?? fallbackSeconds }));
  for (const entry of [...weighed].sort((a, b) => b.seconds - a.seconds || a.index - b.index)) {
    const lightest = groups.reduce((best, group) => (group.seconds < best.seconds ? group : best));
    lightest.seconds += entry.seconds;
    lightest.files.push(entry.file);
  }
  const order = new Map(files.map((file, index) => [file, index]));
  return groups.filter((group) => group.files.length > 0).map((group) => group.files.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)));
}

/**
 * How many lanes: CREW_RUNS_TEST_LANES when set (a whole number ≥ 1), else one more than the machine's
 * cores, at most four. Measured on 2 cores: one session alone keeps about 1.1 cores busy and waits the
 * rest (simulated crews, polling, leases), so three side by side take about half the time of one after
 * another (658–762 s against 1,537 s), bound by the CPU. The races that load found (focus between
 * kickoff steps, a chat page taking the keyboard, a suite relying on runs others left, a "gone" read
 * from a slow page) are fixed at their cause; CREW_RUNS_TEST_CPU_THROTTLE finds more on an idle machine.
 */
export function laneCount(setting: string | undefined, cores: number): number {
  const asked = Number(setting);
  if (setting !== undefined && setting.trim() !== '' && Number.isInteger(asked) && asked >= 1) {
    return asked;
  }
  return Math.max(1, Math.min(4, cores + 1));
}
