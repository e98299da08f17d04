// How long the crews tree keeps trying to show a run: a run added a moment ago may not be in the view's
// tree yet (VS Code answers "node not found", or selects nothing) until the view has fetched its crew's
// children again, which a busy window can take seconds to do. Plain TypeScript: unit-tested with a fake clock.
import type { Clock } from '../util/clock';

/**
 * How long one reveal keeps trying. Four tries (about 3 s) were not enough on a loaded 2-core machine: the
 * view fetched the new run's crew later, and the kicked-off run was never selected.
 */
const PATIENCE_MS = 15_000;

/**
 * Calls `attempt` until it reports success, `wanted()` turns false (a newer reveal, the run gone), or its
 * patience runs out; between two tries it waits for `caughtUp()` (the view's next fetch of children, or a moment).
 * True once an attempt succeeded.
 */
export async function revealPatiently(
  attempt: () => Promise<boolean>,
  { wanted, caughtUp, clock }: { wanted: () => boolean; caughtUp: () => Promise<void>; clock: Clock },
): Promise<boolean> {
  const until = clock.now() + PATIENCE_MS;
  for (let tries = 0; wanted(); tries++) {
    if (tries > 0) {
      if (clock.now() >= until) {
        return false;
      }
      await caughtUp();
      if (!wanted()) {
        return false;
      }
    }
    if (await attempt()) {
      return true;
    }
  }
  return false;
}
