/** Runs `start` on the next turn of the event loop (after the caller returns). The promise settles
 *  whatever happens: a `start` that throws rejects it, so nothing waiting on it hangs. */
export function startSoon<T>(start: () => T, cancelled: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) =>
    setImmediate(() => {
      try {
        if (cancelled()) {
          reject(new Error('deactivated'));
        } else {
          resolve(start());
        }
      } catch (error) {
        reject(error);
      }
    }),
  );
}
