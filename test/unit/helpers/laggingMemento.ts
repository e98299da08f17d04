// A stand-in for VS Code's global Memento that lags like the real one: each window holds its own copy of
// ALL of the extension's global keys as one object, update() writes that whole object to the shared
// storage (the last write wins), and other windows receive it later, in whatever order the test says.
// (The instantly consistent fake used elsewhere hides every cross-window race: see issue #31.)

import type { KeyValueStore } from '../../../src/runTracking/runStore';

type Whole = Record<string, unknown>;

const clone = (value: Whole): Whole => JSON.parse(JSON.stringify(value)) as Whole;

export class MementoHub {
  /** What the storage holds: the last whole object any window wrote. */
  private stored: Whole = {};
  private readonly windows: LaggingMemento[] = [];

  /** A new window: its copy is what the storage holds now. */
  window(): LaggingMemento {
    const w = new LaggingMemento(this, clone(this.stored));
    this.windows.push(w);
    return w;
  }

  /** Called by a window's update(): the whole object is stored and queued for every other window. */
  written(from: LaggingMemento, whole: Whole): void {
    this.stored = clone(whole);
    for (const w of this.windows) {
      if (w !== from) {
        w.inbox.push(clone(whole));
      }
    }
  }
}

export class LaggingMemento implements KeyValueStore {
  /** Other windows' whole-object writes not yet delivered here, oldest first. */
  readonly inbox: Whole[] = [];

  constructor(
    private readonly hub: MementoHub,
    private copy: Whole,
  ) {}

  get<T>(key: string): T | undefined {
    const value = this.copy[key];
    return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as T);
  }

  async update(key: string, value: unknown): Promise<void> {
    const next = clone(this.copy);
    if (value === undefined) {
      delete next[key];
    } else {
      next[key] = JSON.parse(JSON.stringify(value)) as unknown;
    }
    this.copy = next;
    this.hub.written(this, next);
  }

  /** Delivers the queued writes, each replacing the whole copy: in the order sent, or reversed (any order is possible). */
  deliver(order: 'sent' | 'reversed' = 'sent'): void {
    const queued = this.inbox.splice(0);
    for (const whole of order === 'sent' ? queued : queued.reverse()) {
      this.copy = whole;
    }
  }
}
