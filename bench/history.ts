// Item 4 in plain Node (run with --expose-gc): 2,000 finished runs in history, each with a few-KB
// output in its detail file. Times RunStore.load() + list(crewUrl) + the real CrewsTreeProvider's
// getChildren(crew) and getTreeItem() of every child (the newest runs and an "Older runs" node; with
// a stub of the few vscode classes it uses) in rounds interleaved with the I/O floor, then the first
// "Older runs" page, and the heap held after loading. Prints one JSON line. Alone: npx tsc -p bench && node --expose-gc out-bench/bench/history.js 2000
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RunRecord } from '../src/runTracking/model';
import type { StoredDetails } from '../src/runTracking/runStore';
import { DEFAULT_INDEX_KEY } from '../src/runTracking/runStore';
import { encode } from '../src/runTracking/recordFiles';
import { MemoryKv, openStore, tempDir } from './lib/fixtures';
import { installVscodeStub } from './lib/vscodeStub';
import { median } from './lib/stats';

export const HISTORY_CREW_URL = 'http://127.0.0.1:9/history-crew';

/** A finished run as the store keeps it, and its details with a ~`outputBytes` final output. */
export function historyRun(i: number, crewUrl: string, outputBytes = 3000): { record: RunRecord; details: StoredDetails } {
  const id = randomUUID();
  const startedAt = Date.UTC(2025, 0, 1) + i * 60_000;
  const finishedAt = startedAt + 300_000;
  const output = `# Report ${i}\n\n` + 'The crew found that llamas are social animals and hum to each other. '.repeat(Math.ceil(outputBytes / 70));
  const record: RunRecord = {
    id,
    revision: 1,
    crewUrl,
    crewName: 'History crew',
    kickoffId: randomUUID(),
    previousKickoffIds: [],
    startedAt,
    updatedAt: finishedAt,
    finishedAt,
    state: i % 10 === 0 ? 'failed' : 'succeeded',
    watching: false,
    watchSince: startedAt,
    needsFeedback: false,
    message: i % 10 === 0 ? 'ValueError: simulated' : undefined,
    progress: { unit: 'task', completed: 3, total: 3 } as RunRecord['progress'],
    label: `topic ${i}`,
    kickoffIdSince: startedAt,
    seenBySource: true,
  };
  const tasks = [0, 1, 2].map((t) => ({ name: `task_${t}`, agent: `Agent ${t}`, output: output.slice(0, 1000) }));
  const details: StoredDetails = {
    version: 1,
    runId: id,
    inputs: { topic: `topic ${i}` },
    tasks,
    history: [
      { state: 'queued', at: startedAt },
      { state: 'running', at: startedAt + 1500 },
      { state: record.state, at: finishedAt },
    ],
    finalOutput: { kind: 'markdown', text: output } as StoredDetails['finalOutput'],
    feedbackRounds: [],
  };
  return { record, details };
}

/** Writes the record and detail files under `dir`, as the store itself would have (`kv` holds no runs). */
export async function seedHistory(_kv: MemoryKv, dir: string, count: number, crewUrl: string): Promise<void> {
  fs.mkdirSync(path.join(dir, 'runs'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'records'), { recursive: true });
  for (let i = 0; i < count; i++) {
    const { record, details } = historyRun(i, crewUrl);
    fs.writeFileSync(path.join(dir, 'runs', `${record.id}.json`), JSON.stringify(details));
    fs.writeFileSync(path.join(dir, 'records', `${record.id}.json`), encode(record));
  }
}

/**
 * Issue #21 item 9: an index of the old format (whole records with their inputs) with `count` runs whose
 * inputs are 100 KB each, loaded once (the migration moves the inputs to the runs' files). Returns the
 * size of the whole global state afterwards and whether it holds any input value.
 */
export async function globalStateScenario(count: number): Promise<{ globalStateBytes: number; globalStateHasInput: boolean }> {
  const dir = tempDir('global-state');
  try {
    const kv = new MemoryKv();
    const valueOf = (i: number) => `Input ${i}: ${'lorem ipsum dolor sit amet '.repeat(3_800)}`.slice(0, 100_000);
    const runs = Array.from({ length: count }, (_, i) => {
      const { record } = historyRun(i, `https://crew-${i % 40}.example.com`);
      return { ...record, inputs: { topic: valueOf(i) } };
    });
    await kv.update(DEFAULT_INDEX_KEY, { version: 1, runs });
    const store = await openStore(dir, undefined, kv);
    await store.flush();
    const text = JSON.stringify(kv.get(DEFAULT_INDEX_KEY)) ?? ''; // Moved to record files: nothing left.
    store.dispose();
    return { globalStateBytes: Buffer.byteLength(text), globalStateHasInput: runs.some((_r, i) => text.includes(valueOf(i).slice(0, 200))) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) {
    throw new Error('run with --expose-gc');
  }
  g();
  g();
}

/**
 * What any opening of this history must do, timed the same way: list the record files, stat each (a record
 * changed since the snapshot must be read again) and parse the snapshot. The row's reference.
 */
function ioFloor(dir: string): number {
  const started = performance.now();
  const runsDir = path.join(dir, 'runs');
  for (const name of fs.readdirSync(runsDir)) {
    fs.statSync(path.join(runsDir, name));
  }
  JSON.parse(fs.readFileSync(path.join(dir, 'records-snapshot.json'), 'utf8'));
  return performance.now() - started;
}

/** Rounds of (I/O floor, window opening), interleaved so that both see the same load of the machine. */
const OPENING_ROUNDS = 7;

async function main(): Promise<void> {
  installVscodeStub();
  // Loaded after the stub is in place.
  const { CrewsTreeProvider } = await import('../src/sidebar/crewsTree');
  const count = Number(process.argv[2] ?? 2000);
  const dir = tempDir('history');
  try {
    const kv = new MemoryKv();
    await seedHistory(kv, dir, count, HISTORY_CREW_URL);
    const crew = { name: 'History crew', url: HISTORY_CREW_URL, source: 'settings' };
    const crews = {
      list: () => [crew],
      get: (url: string) => (url === crew.url ? crew : undefined),
      onDidChange: () => ({ dispose: () => undefined }),
      hasToken: async () => true,
      healthOf: () => 'ready',
    };
    // The first load after an upgrade reads every record file and leaves a snapshot for the next.
    const f0 = performance.now();
    const first = await openStore(dir, undefined, kv);
    const firstLoadMs = performance.now() - f0;
    const snapshotFile = path.join(dir, 'records-snapshot.json');
    while (!fs.existsSync(snapshotFile)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    first.dispose();
    await first.flush();
    // A window opening, as every later one does: from the snapshot, checked against the record files; then
    // the crew's first tree children. The last round's store is kept for the figures after it.
    const floors: number[] = [];
    const openings: { loadMs: number; firstChildrenMs: number }[] = [];
    // No chat sessions here: the tree asks for a crew's, and gets none.
    const noSessions = { list: () => [], get: () => undefined, onDidChange: () => ({ dispose: () => undefined }) };
    let heapBefore = 0;
    let store: Awaited<ReturnType<typeof openStore>> | undefined;
    let tree: InstanceType<typeof CrewsTreeProvider> | undefined;
    let children: unknown[] = [];
    for (let round = 0; round < OPENING_ROUNDS; round++) {
      tree?.dispose();
      store?.dispose();
      await store?.flush();
      [store, tree] = [undefined, undefined]; // garbage before the heap figure's gc
      floors.push(ioFloor(dir));
      if (round === OPENING_ROUNDS - 1) {
        gc(); // before the last opening: its growth is the heap figure (the floor's garbage not in it)
        heapBefore = process.memoryUsage().heapUsed;
      }
      const t0 = performance.now();
      store = await openStore(dir, undefined, kv);
      const loadMs = performance.now() - t0;
      tree = new CrewsTreeProvider(crews as never, store, noSessions as never);
      const c0 = performance.now();
      children = (await tree.getChildren({ type: 'crew', crew } as never)) as unknown[];
      await Promise.all(children.map((child) => tree!.getTreeItem(child as never)));
      openings.push({ loadMs, firstChildrenMs: performance.now() - c0 });
    }
    const rounds: number[] = [];
    const listRounds: number[] = [];
    for (let round = 0; round < 7; round++) {
      const l0 = performance.now();
      store!.list(HISTORY_CREW_URL);
      listRounds.push(performance.now() - l0);
      const c0 = performance.now();
      children = (await tree!.getChildren({ type: 'crew', crew } as never)) as unknown[];
      await Promise.all(children.map((child) => tree!.getTreeItem(child as never)));
      rounds.push(performance.now() - c0);
    }
    // The user opens "Older runs": the next page of rows.
    const older = children.find((child) => (child as { type?: string }).type === 'olderRuns');
    const o0 = performance.now();
    const olderChildren = older ? ((await tree!.getChildren(older as never)) as unknown[]) : [];
    await Promise.all(olderChildren.map((child) => tree!.getTreeItem(child as never)));
    const olderPageMs = older ? performance.now() - o0 : undefined;
    gc();
    const heapAfter = process.memoryUsage().heapUsed;
    const totals = openings.map((o) => o.loadMs + o.firstChildrenMs);
    const result = {
        runs: count,
        children: children.length,
        openingMs: median(totals),
        openingRoundsMs: totals,
        loadMs: median(openings.map((o) => o.loadMs)),
        firstLoadMs,
        ioFloorMs: median(floors),
        ioFloorRoundsMs: floors,
        firstChildrenMs: median(openings.map((o) => o.firstChildrenMs)),
        medianChildrenMs: median(rounds),
        medianListMs: median(listRounds),
        olderPageMs,
        olderPageRows: olderChildren.length,
        heapGrowthBytes: heapAfter - heapBefore,
        detailFilesBytes: fs.readdirSync(path.join(dir, 'runs')).reduce((n, f) => n + fs.statSync(path.join(dir, 'runs', f)).size, 0),
        keepAlive: [store, tree].length,
    };
    tree!.dispose();
    store!.dispose();
    // Measured after the heap figures, so its 200 MB of inputs do not count there.
    console.log(JSON.stringify({ ...result, ...(await globalStateScenario(count)) }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
