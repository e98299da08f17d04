// Shared pieces: an in-memory key-value store shaped like VS Code's globalState, a quiet logger,
// simulator crew configs, a temp run store.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock } from '../../src/util/clock';
import type { KeyValueStore } from '../../src/runTracking/runStore';
import { RunStore } from '../../src/runTracking/runStore';
import type { CrewConfig } from '../../src/simulator/types';

export const BENCH_TOKEN = 'bench-org-token';

/** Like globalState: values are stored as JSON (VS Code serialises them too), so the copy cost is real. */
export class MemoryKv implements KeyValueStore {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
  }
}

export const quietLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: (m: string) => console.error(`[bench] ${m}`),
};

/** A crew whose runs last `durationMs` simulated ms in all: `pendingMs` PENDING, then three equal tasks. */
export function crewConfig(id: string, durationMs: number, extra: Partial<CrewConfig> = {}): CrewConfig {
  const pendingMs = extra.pendingMs ?? 1500;
  const taskMs = (durationMs - pendingMs) / 3;
  return {
    id,
    name: `Bench ${id}`,
    kind: 'crew',
    inputs: ['topic'],
    orgToken: BENCH_TOKEN,
    userToken: `${BENCH_TOKEN}-user`,
    pendingMs,
    tasks: [0, 1, 2].map((i) => ({ name: `task_${i}`, agent: `Agent ${i}`, durationMs: taskMs, output: `Output of task ${i} about {topic}.` })),
    ...extra,
  };
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `crew-runs-bench-${prefix}-`));
}

export async function openStore(dir: string, clock?: Clock, kv: KeyValueStore = new MemoryKv()): Promise<RunStore> {
  const store = new RunStore(kv, dir, quietLogger, { clock, maxRunsPerCrew: 2000 });
  await store.load();
  return store;
}
