// One async queue per key: work for the same key runs one at a time, in order; other keys run freely.
// The run store and the lease manager both serialise per run with it.

export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `work` after everything queued for `key` so far, whether that succeeded or failed. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) {
        this.tails.delete(key);
      }
    });
    return next;
  }

  /** Resolves once everything queued so far has settled. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.tails.values()]);
  }
}
