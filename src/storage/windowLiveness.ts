// Whether this window's workbench still answers its extension host.
//
// An extension host cut off from its window without a goodbye (a crashed or closed browser tab, a
// remote connection dropped during a reload) is not stopped: it waits for the window to reconnect
// for the server's reconnection grace time, hours, and the extension runs on. Its leases would keep
// the runs it polled from every window still open, and whatever it learnt would go nowhere (the
// shared state is written through the window). So leases are renewed and taken only while the window
// answers a ping; when it answers again (the connection came back), they are taken again.

import { type Clock, systemClock } from '../util/clock';

/** Longer than any busy moment of a healthy window; well under a lease's 30 s. */
export const DEFAULT_ANSWER_TIMEOUT_MS = 10_000;
/** An answer this recent stands: no new ping. */
const FRESH_MS = 5_000;

export interface Liveness {
  /** True once the window answers (at once if it did a moment ago); false if it does not in time. */
  answers(): Promise<boolean>;
}

export class WindowLiveness implements Liveness {
  /** The ping in flight (one at a time: a window that does not answer is not asked again and again). */
  private pending: Promise<boolean> | undefined;
  private pendingSince = 0;
  private answeredAt = Number.NEGATIVE_INFINITY;

  /**
   * @param ping a round trip to the window; it settles when the window answers. A rejection is an
   *   answer too: only silence means the window is gone.
   */
  constructor(
    private readonly ping: () => PromiseLike<unknown>,
    private readonly clock: Clock = systemClock,
    private readonly timeoutMs = DEFAULT_ANSWER_TIMEOUT_MS,
  ) {}

  async answers(): Promise<boolean> {
    const now = this.clock.now();
    if (now - this.answeredAt < FRESH_MS) {
      return true;
    }
    if (!this.pending) {
      this.pendingSince = now;
      const answered = () => {
        this.answeredAt = this.clock.now();
        this.pending = undefined;
        return true;
      };
      this.pending = Promise.resolve()
        .then(() => this.ping())
        .then(answered, answered);
    }
    const left = this.pendingSince + this.timeoutMs - now;
    if (left <= 0) {
      return false;
    }
    let timer: unknown;
    const silence = new Promise<boolean>((resolve) => (timer = this.clock.setTimeout(() => resolve(false), left)));
    try {
      return await Promise.race([this.pending, silence]);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }
}
