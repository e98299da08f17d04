// A clock whose time moves only when a test says so; due timers run in order as it advances.

import type { Clock } from '../../../src/util/clock';

interface FakeTimer {
  at: number;
  seq: number;
  callback: () => void;
}

export class FakeClock implements Clock {
  private current: number;
  private readonly timers = new Map<number, FakeTimer>();
  private nextHandle = 1;
  /** Awaited after each timer (and before advancing) so async work triggered by timers can finish. */
  settle: () => Promise<void> = async () => undefined;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.nextHandle++;
    this.timers.set(handle, { at: this.current + Math.max(0, ms), seq: handle, callback });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await this.settle();
    for (;;) {
      let next: [number, FakeTimer] | undefined;
      for (const entry of this.timers) {
        if (entry[1].at <= target && (!next || entry[1].at < next[1].at || (entry[1].at === next[1].at && entry[1].seq < next[1].seq))) {
          next = entry;
        }
      }
      if (!next) {
        break;
      }
      this.timers.delete(next[0]);
      this.current = Math.max(this.current, next[1].at);
      next[1].callback();
      await this.settle();
    }
    this.current = target;
  }

  /** Advances to an absolute time. */
  async advanceTo(time: number): Promise<void> {
    await this.advance(Math.max(0, time - this.current));
  }
}
