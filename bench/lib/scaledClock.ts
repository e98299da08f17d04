// A clock that runs `speed` times faster than real time, shared by the poller (through the Clock
// interface) and the simulator (whose timeScale is 1/speed). Simulated time starts at the real
// time the clock was made; `toSim` converts any real Date.now() timestamp onto the simulated axis.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../src/util/clock';

export class ScaledClock implements Clock {
  readonly realStart: number;
  private readonly perfStart: number;

  constructor(readonly speed: number, realStart = Date.now()) {
    this.realStart = realStart;
    // performance.now() for sub-millisecond resolution (1 real ms is `speed` simulated ms).
    this.perfStart = performance.now() - (Date.now() - realStart);
  }

  /** Real time in ms on the Date.now() axis, with sub-millisecond resolution. */
  realNow(): number {
    return this.realStart + (performance.now() - this.perfStart);
  }

  now(): number {
    return this.toSim(this.realNow());
  }

  toSim(realMs: number): number {
    return this.realStart + (realMs - this.realStart) * this.speed;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    return setTimeout(callback, Math.max(0, ms / this.speed));
  }

  clearTimeout(handle: unknown): void {
    clearTimeout(handle as NodeJS.Timeout);
  }

  /** For CrewClient's retry sleeps: simulated ms. */
  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, Math.max(0, ms / this.speed));
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(Object.assign(new Error('The request was cancelled.'), { name: 'AbortError' }));
        },
        { once: true },
      );
    });
}
