// Issue #32 (items 3, 4, 9a): every size, count and depth a crew controls is capped where it enters, and
// the cap is visible. Sizes at least those of the issue; assertions on results, never on timings.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseKickoffBody } from '../../src/api/bodies';
import { DEEP_NOTE, omittedEntries, RAW_BUDGET, READ_LIMITS, readJsonBounded } from '../../src/api/boundedJson';
import { normaliseStatus, STATUS_LIMITS } from '../../src/api/normalize';
import { parseJson } from '../../src/api/responses';
import type { StatusSnapshot } from '../../src/api/types';
import { describeChanges } from '../../src/runTracking/changes';
import { emptyDetails, type RunDetails, type RunRecord } from '../../src/runTracking/model';
import { intervalAfterCheck, madeProgress } from '../../src/runTracking/pollPace';
import { POLLER_DEFAULTS } from '../../src/runTracking/pollTimes';
import { RunStore } from '../../src/runTracking/runStore';
import { foldSnapshot, MAX_HISTORY } from '../../src/runTracking/snapshotFold';
import { buildView } from '../../src/runView/page/viewModel';
import { SegmentCache } from '../../src/runView/page/segments';
import { deepArrayText, deepJsonText } from '../fixtures/hostileCorpus';
import { FakeClock } from './helpers/fakeClock';

/** A status body as the client reads it (responses.parseJson), normalised. */
function statusOf(bodyText: string): StatusSnapshot {
  return normaliseStatus(parseJson({ status: 200, headers: {}, bodyText }), 200);
}

/** `{"metric_0":0,…}` with `count` keys, built as text (no 10⁶-key object in the test itself). */
function usageText(count: number): string {
  return `{${Array.from({ length: count }, (_, i) => `"metric_${i}":${i}`).join(',')}}`;
}

function tasksText(count: number): string {
  return `[${Array.from({ length: count }, (_, i) => `{"task_id":"t${i}","name":"task ${i}","output":"out ${i}"}`).join(',')}]`;
}

const TEN_MB = 'x'.repeat(10 * 1024 * 1024);

describe('status bounds (issue #32)', () => {
  it('10⁶ usage keys: the snapshot keeps the first 100 figures and says how many the crew sent', () => {
    const snapshot = statusOf(`{"state":"RUNNING","usage_metrics":${usageText(1_000_000)}}`);
    assert.equal(Object.keys(snapshot.usage ?? {}).length, STATUS_LIMITS.usageFigures);
    assert.equal(snapshot.usage?.['metric_0'], 0);
    assert.equal(snapshot.usageListed, 1_000_000);
    const view = buildView(runRecord(), { ...emptyDetails(), lastSnapshot: snapshot }, new SegmentCache());
    assert.equal(Object.keys(view.summary.usage ?? {}).length, 100);
    assert.equal(view.summary.usageHidden, 999_900, 'the page says 999,900 more usage figures are not shown');
  });

  it('200,000 tasks: the snapshot keeps the first 1,000, counts the rest, and the change says so', () => {
    const snapshot = statusOf(`{"state":"RUNNING","tasks_output":${tasksText(200_000)}}`);
    assert.equal(snapshot.tasks.length, STATUS_LIMITS.tasks);
    assert.equal(snapshot.tasks[999].taskId, 't999');
    assert.equal(snapshot.tasksListed, 200_000);
    const capped = describeChanges(undefined, snapshot, [], snapshot.tasks).find((c) => c.kind === 'tasksCapped');
    assert.deepEqual(capped, { kind: 'tasksCapped', listed: 200_000, kept: 1000 });
    const view = buildView(runRecord(), { ...emptyDetails(), tasks: snapshot.tasks, lastSnapshot: snapshot }, new SegmentCache());
    assert.equal(view.summary.tasksHidden, 200_000 - 200);
  });

  it('10 MB strings: names, messages, steps and errors are clipped, the cut marked; the snapshot stays small', () => {
    const s = JSON.stringify(TEN_MB);
    const body = `{"state":"FAILED","status":${s},"current_task":${s},"current_agent":{"role":${s}},"last_step":{"thought":${s},"tool_input":{"q":${s}}},` +
      `"last_executed_task":{"name":${s},"description":${s},"agent":${s},"output":"ok"},"error":${s},"progress":{"completed":1,"total":2,"current":${s}}}`;
    const snapshot = statusOf(body);
    const within = (text: string | undefined, max: number, what: string) => {
      assert.ok(text !== undefined && text.length <= max + 50, `${what}: ${text?.length} characters`);
      assert.ok(text.includes('more characters not read]'), `${what} says it was cut`);
    };
    within(snapshot.currentTask, STATUS_LIMITS.labelChars, 'current task');
    within(snapshot.currentAgent, STATUS_LIMITS.labelChars, 'current agent');
    within(snapshot.message, STATUS_LIMITS.textChars, 'message');
    within(snapshot.lastStep?.thought, STATUS_LIMITS.textChars, 'step thought');
    within(snapshot.lastStep?.toolInput, STATUS_LIMITS.textChars, 'step tool input');
    within(snapshot.lastTask?.name, STATUS_LIMITS.labelChars, 'task name');
    within(snapshot.lastTask?.description, STATUS_LIMITS.textChars, 'task description');
    within(snapshot.error, STATUS_LIMITS.errorChars, 'error');
    const size = JSON.stringify(snapshot).length;
    assert.ok(size < 1024 * 1024, `the snapshot is ${size} characters`);
  });

  it('a 10 MB output stays whole; a 20 MB one is read up to the output limit and says it was cut', () => {
    assert.equal(statusOf(`{"state":"SUCCESS","result":${JSON.stringify(TEN_MB)}}`).finalOutput?.text.length, TEN_MB.length);
    const snapshot = statusOf(`{"state":"SUCCESS","result":${JSON.stringify(TEN_MB + TEN_MB)}}`);
    assert.equal(snapshot.finalOutput?.kind, 'markdown');
    const text = snapshot.finalOutput.text;
    assert.equal(text.length, READ_LIMITS.maxStringChars + '… [4194304 more characters not read]'.length);
    assert.ok(text.endsWith('x… [4194304 more characters not read]'), text.slice(-60));
  });

  it('10,000 nesting levels anywhere: read without recursion, kept as a note, storable', () => {
    const deep = deepJsonText(10_000);
    const body = `{"state":"RUNNING","usage_metrics":${deep},"last_step":${deep},"progress":${deep},"tasks_output":[${deep}],"x":${deepArrayText(100_000)}}`;
    const read = readJsonBounded(body);
    assert.ok(read.ok);
    let level: unknown = (read.value as Record<string, unknown>)['last_step'];
    let depth = 1;
    while (typeof level === 'object' && level !== null) {
      level = (level as Record<string, unknown>)['a'];
      depth++;
    }
    assert.equal(level, DEEP_NOTE);
    assert.ok(depth <= READ_LIMITS.maxDepth + 1, `kept ${depth} levels`);
    const snapshot = statusOf(body);
    assert.equal(snapshot.state, 'running');
    assert.doesNotThrow(() => structuredClone(snapshot));
    assert.ok(JSON.stringify(snapshot).length < 2 * RAW_BUDGET);
  });

  it('the raw body kept with a run is a bounded copy, top-level fields first, what was left out noted', () => {
    const s = JSON.stringify(TEN_MB);
    const body = `{"usage_metrics":${usageText(1_000_000)},"tasks_output":${tasksText(200_000)},"result":${s},"state":"RUNNING","status":"Task is Running"}`;
    const snapshot = statusOf(body);
    const raw = snapshot.raw as Record<string, unknown>;
    assert.equal(raw['state'], 'RUNNING');
    assert.equal(raw['status'], 'Task is Running');
    assert.match(String((raw['usage_metrics'] as Record<string, unknown>)['…']), /^\[\d+ more entries not kept\]$/);
    const size = JSON.stringify(raw).length;
    assert.ok(size < 1.25 * RAW_BUDGET, `raw is ${size} characters`);
  });

  it('the reader counts what it stepped over and reads JSON as JSON.parse does', () => {
    const read = readJsonBounded(`{"u":${usageText(20_000)},"a":[${'1,'.repeat(20_000)}2]}`, { ...READ_LIMITS, maxEntries: 10 });
    assert.ok(read.ok);
    const value = read.value as { u: object; a: unknown[] };
    assert.equal(Object.keys(value.u).length, 10);
    assert.equal(omittedEntries(value.u), 19_990);
    assert.equal(value.a.length, 10);
    assert.equal(omittedEntries(value.a), 19_991);
    for (const text of ['{"a":[1,-2.5e3,{"b":"\\u00e9\\n\\"q\\\\"}],"c":null,"d":true,"e":false}', ' [ ] ', '"\\\\"', '{"__proto__":{"x":1}}', '0']) {
      assert.deepEqual(readJsonBounded(text), { ok: true, value: JSON.parse(text) }, text);
    }
    const proto = readJsonBounded('{"__proto__":{"polluted":1}}');
    assert.ok(proto.ok && Object.getPrototypeOf(proto.value) === Object.prototype);
    for (const bad of ['', '{', '{"a":1,}', '[1 2]', '{"a" 1}', 'tru', '{"a":1}x', '"abc', `{"u":${usageText(20)}`]) {
      assert.equal(readJsonBounded(bad, { ...READ_LIMITS, maxEntries: 5 }).ok, false, bad);
    }
  });

  it('an escaped string cut at the limit is cut between characters, never inside an escape', () => {
    const text = JSON.stringify('\u00e9\n'.repeat(100));
    const read = readJsonBounded(text, { ...READ_LIMITS, maxStringChars: 11 });
    assert.ok(read.ok);
    assert.match(String(read.value), /^(é\n)+é?… \[\d+ more characters not read\]$/);
  });
});

describe('ids beyond 2⁵³ keep the server\'s digits (issue #32, 9a)', () => {
  const big = '12345678901234567890';
  it('a waiting task\'s id, in every place a status names it', () => {
    for (const body of [`{"state":"PAUSED","task_id":${big}}`, `{"state":"PAUSED","pending_task_id":${big}}`, `{"state":"PAUSED","last_executed_task":{"id":${big},"output":"draft"}}`]) {
      assert.equal(statusOf(body).feedback?.taskId, big, body);
    }
    assert.equal(statusOf(`{"state":"RUNNING","tasks_output":[{"task_id":${big},"raw":"x"}]}`).tasks[0].taskId, big);
  });

  it('a kickoff id, and only ids: other big numbers stay numbers', () => {
    assert.equal(parseKickoffBody(parseJson({ status: 200, headers: {}, bodyText: `{"kickoff_id":${big}}` })), big);
    const snapshot = statusOf(`{"state":"RUNNING","usage_metrics":{"total_tokens":${big}},"task_id":42}`);
    assert.equal(typeof snapshot.usage?.['total_tokens'], 'number');
  });
});

function runRecord(over: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 'run-1', revision: 1, crewUrl: 'https://crew.example.com', crewName: 'Crew', kickoffId: 'k-1', previousKickoffIds: [], startedAt: 0, updatedAt: 0,
    state: 'running', watching: true, watchSince: 0, needsFeedback: false, label: 'run', kickoffIdSince: 0, seenBySource: true, ...over,
  };
}

/** A status whose current task is `text` (16 KiB of it, changed every poll in the issue). */
const churn = (text: string): StatusSnapshot => ({ state: 'running', rawState: 'RUNNING', currentTask: text, tasks: [], raw: {} });
const churnText = (i: number) => `step ${i} ${'y'.repeat(16 * 1024)}`;

describe('the run timeline is bounded (issue #32, item 3)', () => {
  it('500 polls that each change a 16 KiB current task: at most MAX_HISTORY entries, texts clipped, the rest counted', () => {
    const record = runRecord();
    const details: RunDetails = { ...emptyDetails(), history: [{ state: 'queued', at: 0 }] };
    for (let i = 0; i < 500; i++) {
      foldSnapshot(record, details, churn(churnText(i)), i * 1250);
    }
    assert.equal(details.history.length, MAX_HISTORY);
    assert.deepEqual(details.history[0], { state: 'queued', at: 0 });
    assert.equal(details.history.at(-1)?.at, 499 * 1250, 'the newest entry is kept');
    assert.equal((details.historyOmitted ?? 0) + details.history.length, 501, 'every entry is kept or counted');
    assert.ok(details.history.every((e) => (e.task?.length ?? 0) < 1100));
    const size = JSON.stringify(details).length;
    assert.ok(size < 256 * 1024, `the details are ${size} characters`);
    const view = buildView(record, details, new SegmentCache());
    assert.equal(view.summary.historyHidden, details.historyOmitted);
    assert.equal(view.history.length, MAX_HISTORY);
  });

  it('a crew flipping between two tasks adds no entry per flip', () => {
    const record = runRecord();
    const details = emptyDetails();
    for (let i = 0; i < 500; i++) {
      foldSnapshot(record, details, churn(i % 2 ? 'write' : 'research'), i);
    }
    assert.deepEqual(details.history.map((e) => e.task), ['research', 'write']);
  });

  it('text-only churn does not hold the fast pace; state, progress and outputs do', () => {
    const working = describeChanges(churn('a'), churn('b'), [], []);
    assert.deepEqual(working.map((c) => c.kind), ['working']);
    assert.equal(madeProgress(working), false);
    const after = intervalAfterCheck(POLLER_DEFAULTS, { intervalMs: 5_000, changed: madeProgress(working), fastPhase: false, awaitingFeedback: false, viewed: false });
    assert.equal(after, 7_500, 'the wait grows');
    const progressed = describeChanges(churn('a'), { ...churn('b'), progress: { unit: 'task', completed: 1, total: 3 } }, [], []);
    assert.equal(madeProgress(progressed), true);
    assert.equal(madeProgress(describeChanges(churn('a'), { ...churn('a'), state: 'succeeded' }, [], [])), true);
  });

  describe('in the store', () => {
    let dir: string;
    afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

    it('the run file written per poll stays the same size however many polls changed the task', async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-bounds-'));
      const clock = new FakeClock(1_700_000_000_000);
      const kv = new Map<string, unknown>();
      const store = new RunStore({ get: <T>(k: string) => kv.get(k) as T, update: async (k, v) => void kv.set(k, v) }, dir, { info: () => undefined, warn: () => undefined, error: () => undefined }, { clock });
      await store.load();
      const run = await store.add({ crewUrl: 'https://crew.example.com', crewName: 'Crew', kickoffId: 'k1', inputs: {} });
      const file = path.join(dir, 'runs', `${run.id}.json`);
      const sizes: number[] = [];
      for (let i = 0; i < 150; i++) {
        await clock.advance(1250);
        await store.applyPolled(run.id, undefined, churn(churnText(i)));
        sizes.push((await fs.stat(file)).size);
      }
      assert.ok(sizes[149] < 256 * 1024, `the file is ${sizes[149]} bytes after 150 polls`);
      assert.ok(sizes[149] - sizes[119] < 4 * 1024, `the last 30 polls grew it by ${sizes[149] - sizes[119]} bytes`);
      const details = await store.readDetails(run.id);
      assert.equal(details.history.length, MAX_HISTORY);
      assert.equal(details.historyOmitted, 151 - MAX_HISTORY + 1);
      store.dispose();
    });
  });
});
