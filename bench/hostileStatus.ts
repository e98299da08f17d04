// Issue #32: what one hostile status costs the extension host per poll — the product's own path from the
// body text (responses.parseJson, normaliseStatus) through the store (fold, the run's file written) — against
// an ordinary status through the same path in the same run. Plain Node; each body polled a few times, its
// current task changed every time so that every poll is a change the store must write.
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { normaliseStatus } from '../src/api/normalize';
import { parseJson } from '../src/api/responses';
import type { RunStore } from '../src/runs/runStore';
import { openStore, tempDir } from './lib/fixtures';
import { median } from './lib/stats';

export interface HostileStatusResult {
  bodyMb: number;
  polls: number;
  /** Median ms per poll: all of it, and the body read alone (parse). */
  hostileMs: number;
  hostileParseMs: number;
  ordinaryMs: number;
  /** Median ms of plain JSON.parse on the same body text: what reading it naively costs on this machine. */
  jsonParseMs: number;
  /** The run's file after the last hostile poll. */
  fileKb: number;
}

/** 10⁶ usage keys, two 10 MB strings, 10,000 nesting levels, 200,000 tasks; `{TASK}` is the current task. */
function hostileBody(): string {
  const usage = `{${Array.from({ length: 1_000_000 }, (_, i) => `"metric_${i}":${i}`).join(',')}}`;
  const tasks = `[${Array.from({ length: 200_000 }, (_, i) => `{"task_id":"t${i}","name":"task ${i}","output":"out ${i}"}`).join(',')}]`;
  const big = JSON.stringify('x'.repeat(10 * 1024 * 1024));
  const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
  return `{"state":"RUNNING","status":${big},"current_task":"{TASK}","last_step":{"thought":${big},"tool_input":${deep}},"usage_metrics":${usage},"tasks_output":${tasks}}`;
}

const ORDINARY = '{"state":"RUNNING","status":"Task is Running","current_task":"{TASK}","progress":{"completed":1,"total":3},"last_step":{"thought":"Looking for sources","tool":"search"}}';

async function pollMs(store: RunStore, runId: string, template: string, i: number): Promise<{ totalMs: number; parseMs: number }> {
  const bodyText = template.replace('{TASK}', `task ${i}`);
  const started = performance.now();
  const body = parseJson({ status: 200, headers: {}, bodyText });
  const parseMs = performance.now() - started;
  await store.applySnapshot(runId, normaliseStatus(body, 200));
  return { totalMs: performance.now() - started, parseMs };
}

export async function hostileStatusBench(polls = 5): Promise<HostileStatusResult> {
  const dir = tempDir('hostile');
  try {
    const store = await openStore(dir);
    const hostile = hostileBody();
    const ordinaryRun = await store.add({ crewUrl: 'http://127.0.0.1:9/ordinary', crewName: 'Ordinary', kickoffId: 'ordinary', inputs: {} });
    const hostileRun = await store.add({ crewUrl: 'http://127.0.0.1:9/hostile', crewName: 'Hostile', kickoffId: 'hostile', inputs: {} });
    const ordinary: number[] = [];
    const total: number[] = [];
    const parse: number[] = [];
    const naive: number[] = [];
    for (let i = 0; i < polls; i++) {
      ordinary.push((await pollMs(store, ordinaryRun.id, ORDINARY, i)).totalMs);
      const poll = await pollMs(store, hostileRun.id, hostile, i);
      total.push(poll.totalMs);
      parse.push(poll.parseMs);
      // The reference, in the same round (the same load): the whole text read the naive way, every key kept.
      const started = performance.now();
      JSON.parse(hostile.replace('{TASK}', `naive ${i}`));
      naive.push(performance.now() - started);
    }
    await store.flush();
    const fileKb = fs.statSync(`${dir}/runs/${hostileRun.id}.json`).size / 1024;
    store.dispose();
    return { bodyMb: hostile.length / 1048576, polls, hostileMs: median(total), hostileParseMs: median(parse), ordinaryMs: median(ordinary), jsonParseMs: median(naive), fileKb };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void hostileStatusBench(Number(process.argv[2] ?? 5)).then((result) => console.log(JSON.stringify(result)));
}
