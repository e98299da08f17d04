// Child process of crashSafety.test.ts (compiled by tsc, run with plain node): writes large run
// details through a real RunStore in a loop until it is killed.
//
//   node crashWriter.js <storageDir> <kvFile> <runs> <bytes>
//
// <kvFile> stands in for globalState (a JSON object written atomically; runs are not kept there). The
// first writer adds <runs> runs; every writer then loops over them, folding in a status whose final
// output is `outputFor(generation, bytes)` and whose message names the generation, so the parent can
// tell a complete file of any generation from a torn one. It prints "ready <generation>" after its
// first complete write, then keeps writing (generations only grow, across writers). The message also
// names the run's generation before, so the parent can tell "the old one" from "the new one".
import * as fs from 'node:fs';
import type { StatusSnapshot } from '../../../src/api/types';
import { writeFileAtomic } from '../../../src/storage/atomicFile';
import { RunStore, type KeyValueStore } from '../../../src/runTracking/runStore';

/** The final output of a generation: exactly `bytes` characters, different for every generation. */
export function outputFor(generation: number, bytes: number): string {
  const unit = `generation ${generation}; `;
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

/** A status message naming its generation and the run's generation before it (0: none). */
export function messageFor(generation: number, previous: number): string {
  return `generation ${generation} after ${previous}`;
}

/** [generation, previous] of a message written by messageFor; [0, 0] for none. */
export function parseMessage(message: string | undefined): [number, number] {
  const match = /^generation (\d+) after (\d+)$/.exec(message ?? '');
  return match ? [Number(match[1]), Number(match[2])] : [0, 0];
}

export function fileKv(file: string): KeyValueStore {
  let data: Record<string, unknown> = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  return {
    get: <T>(key: string) => data[key] as T | undefined,
    update: async (key, value) => {
      data = { ...data, [key]: value };
      await writeFileAtomic(file, JSON.stringify(data));
    },
  };
}

async function main(): Promise<void> {
  const [storageDir, kvFile, runsArg, bytesArg] = process.argv.slice(2);
  const runs = Number(runsArg);
  const bytes = Number(bytesArg);
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const store = new RunStore(fileKv(kvFile), storageDir, quiet, { maxRunsPerCrew: 1000 });
  await store.load();
  while (store.list().length < runs) {
    await store.add({ crewUrl: 'https://crash.example.com', crewName: 'Crash', kickoffId: `kickoff-${store.list().length}`, inputs: { n: String(store.list().length) } });
  }
  // Go on from the highest generation any earlier writer reached (its details may be ahead of its record).
  let generation = 0;
  const last = new Map<string, number>();
  for (const run of store.list()) {
    const [written] = parseMessage((await store.readDetails(run.id)).lastSnapshot?.message);
    last.set(run.id, written);
    generation = Math.max(generation, written, parseMessage(run.message)[0]);
  }
  let announced = false;
  for (;;) {
    for (const run of store.list()) {
      generation++;
      const snapshot: StatusSnapshot = {
        state: 'running',
        message: messageFor(generation, last.get(run.id) ?? 0),
        tasks: [{ name: 'write', output: outputFor(generation, bytes) }],
        finalOutput: { kind: 'markdown', text: outputFor(generation, bytes) },
        raw: { state: 'RUNNING', generation },
      };
      await store.applyPolled(run.id, undefined, snapshot);
      last.set(run.id, generation);
      if (!announced) {
        announced = true;
        process.stdout.write(`ready ${generation}\n`);
      }
    }
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
