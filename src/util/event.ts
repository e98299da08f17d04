// A minimal event emitter with the same shape as vscode.Event, so that models stay free of the
// `vscode` module and can be unit-tested in plain Node.

export interface Disposable {
  dispose(): void;
}

/** Where a listener's exception goes: the extension's log once activated (`setListenerErrorSink`). */
export type ListenerErrorSink = (error: unknown) => void;

/** Exceptions kept until a sink is set (before activation wires the log), the first few only. */
const MAX_HELD_ERRORS = 20;
let held: unknown[] = [];
const holdingSink: ListenerErrorSink = (error) => {
  if (held.length < MAX_HELD_ERRORS) {
    held.push(error);
  }
};
let listenerErrorSink: ListenerErrorSink = holdingSink;

/** Sends listener exceptions (and those held so far) to `sink` until the returned disposable is disposed. */
export function setListenerErrorSink(sink: ListenerErrorSink): Disposable {
  listenerErrorSink = sink;
  const earlier = held;
  held = [];
  earlier.forEach(sink);
  return {
    dispose: () => {
      if (listenerErrorSink === sink) {
        listenerErrorSink = holdingSink;
      }
    },
  };
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
      } catch (error) {
        // One faulty listener must not stop the others, nor go unnoticed.
        try {
          listenerErrorSink(error);
        } catch {
          // A failing sink has nowhere left to report to.
        }
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
