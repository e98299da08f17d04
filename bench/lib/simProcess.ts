// Parent side of ./simHost.ts: a simulator in its own process.
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { PlatformStats, ServedCrew, SimulatorOptions } from '../../src/simulator/server';

export interface SimRunInfo {
  id: string;
  kickoffIds: string[];
  crewId: string;
  createdAt: number;
  finishedAt?: number;
  phase: string;
}

export interface SimLogEntry {
  time: number;
  crewId?: string;
  endpoint: string;
  status: number;
  fault?: string;
}

export class SimProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  crews: readonly ServedCrew[] = [];
  origin = '';

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (msg: { id: number; result?: unknown; error?: string }) => {
      const w = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      if (msg.error !== undefined) {
        w?.reject(new Error(`simulator: ${msg.error}`));
      } else {
        w?.resolve(msg.result);
      }
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values()) {
        w.reject(new Error(`simulator process exited (${code})`));
      }
      this.waiting.clear();
    });
  }

  static async start(options: SimulatorOptions, speed: number, realStart: number): Promise<SimProcess> {
    const child = fork(path.join(__dirname, 'simHost.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const sim = new SimProcess(child);
    const started = (await sim.call({ type: 'start', options, speed, realStart })) as { crews: ServedCrew[]; origin: string };
    sim.crews = started.crews;
    sim.origin = started.origin;
    return sim;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private call(msg: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ ...msg, id });
    });
  }

  runs(): Promise<SimRunInfo[]> {
    return this.call({ type: 'runs' }) as Promise<SimRunInfo[]>;
  }

  log(): Promise<SimLogEntry[]> {
    return this.call({ type: 'log' }) as Promise<SimLogEntry[]>;
  }

  platformStats(): Promise<PlatformStats> {
    return this.call({ type: 'platformStats' }) as Promise<PlatformStats>;
  }

  /** Waits until the platform has no request open, then starts its counts afresh. */
  async resetPlatformStats(): Promise<void> {
    while ((await this.platformStats()).inFlight > 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await this.call({ type: 'resetPlatformStats' });
  }

  updateCrew(crewId: string, patch: Record<string, unknown>): Promise<unknown> {
    return this.call({ type: 'updateCrew', crewId, patch });
  }

  async close(): Promise<void> {
    await this.call({ type: 'close' }).catch(() => undefined);
    if (this.child.exitCode === null) {
      await new Promise((resolve) => this.child.once('exit', resolve));
    }
  }
}
