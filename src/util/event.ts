// A minimal event emitter with the same shape as vscode.Event, so that models stay free of the
// `vscode` module and can be unit-tested in plain Node.

export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (e: T) => unknown, thisArg?: unknown, disposables?: Disposable[]) => Disposable;

export class Emitter<T> implements Disposable {
  private listeners = new Set<(e: T) => unknown>();

  readonly event: Event<T> = (listener, thisArg, disposables) => {
    const bound = thisArg === undefined ? listener : listener.bind(thisArg);
    this.listeners.add(bound);
    const subscription = { dispose: () => this.listeners.delete(bound) };
    disposables?.push(subscription);
    return subscription;
  };

  fire(e: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(e);
      } catch {
        // One faulty listener must not stop the others.
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
