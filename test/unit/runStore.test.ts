import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunState, StatusSnapshot } from '../../src/api/types';
import type { RunRecord } from '../../src/runTracking/model';
import type { Logger } from '../../src/util/logger';
import { canonical, decodeRun, encodeRun, sameRun, type StoredRun } from '../../src/runTracking/runIndex';
import { DEFAULT_INDEX_KEY, type KeyValueStore, RunStore } from '../../src/runTracking/runStore';
import { FakeClock } from './helpers/fakeClock';
import { MementoHub } from './helpers/laggingMemento';
import { sendResume } from '../../src/runTracking/sendResume';
import { SendOnce } from '../../src/runTracking/sendOnce';
import type { Services } from '../../src/services';

const CREW = 'https://crew-a.example.com';
const OTHER_CREW = 'https://crew-b.example.com';

function snap(state: RunState, extra: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return { state, tasks: [], raw: { state }, ...extra };
}

/**
 * Stores JSON like VS Code's Memento, instantly consistent: enough here, where it only holds an index older
 * versions left (runs live in record files). Tests of windows whose globalState lags use MementoHub.
 */
function memoryKv(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: <T>(key: string) => (data.has(key) ? (JSON.parse(data.get(key)!) as T) : undefined),
    update: async (key, value) => {
      if (value === undefined) {
        data.delete(key); // As VS Code does.
      } else {
        data.set(key, JSON.stringify(value));
      }
    },
  };
}

/** The record files (each run's truth) as stored: their text, by run id. */
async function storedRecords(dir: string): Promise<Map<string, string>> {
  const names = (await fs.readdir(path.join(dir, 'records'))).filter((n) => /^[\w-]+\.json$/.test(n));
  return new Map(await Promise.all(names.map(async (n) => [n.slice(0, -5), await fs.readFile(path.join(dir, 'records', n), 'utf8')] as [string, string])));
}

const storedKickoffIds = async (dir: string) => [...(await storedRecords(dir)).values()].map((t) => (JSON.parse(t) as { run: StoredRun }).run.k).sort();

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
}

describe('RunStore', () => {
  let dir: string;
  let clock: FakeClock;
  let kv: ReturnType<typeof memoryKv>;
  let logger: ReturnType<typeof recordingLogger>;
  let store: RunStore;
  let events: string[][];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-store-'));
    clock = new FakeClock(1_700_000_000_000);
    kv = memoryKv();
    logger = recordingLogger();
    store = await openStore();
    events = [];
    store.onDidChange((e) => events.push(e.runIds));
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => (s.dispose(), s.flush())));
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** Every store a test opened: disposed after it, before its folder goes. */
  const opened: RunStore[] = [];

  async function openStore(maxRunsPerCrew?: number): Promise<RunStore> {
    const s = new RunStore(kv, dir, logger, { clock, maxRunsPerCrew });
    opened.push(s);
    await s.load();
    return s;
  }

  function add(kickoffId: string, crewUrl = CREW, inputs: Record<string, string> = { topic: `Topic ${kickoffId}` }) {
    return store.add({ crewUrl, crewName: 'Writers', kickoffId, inputs });
  }

  async function finish(id: string) {
    await store.applyPolled(id, undefined, snap('succeeded', { finalOutput: { kind: 'markdown', text: 'ok' } }));
  }

  it('records a run at kickoff and lists newest first, per crew', async () => {
    const first = await add('k1');
    await clock.advance(1_000);
    const second = await add('k2');
    await clock.advance(1_000);
    const other = await add('k3', OTHER_CREW, {});
    assert.deepEqual(store.list().map((r) => r.kickoffId), ['k3', 'k2', 'k1']);
    assert.deepEqual(store.list(CREW).map((r) => r.id), [second.id, first.id]);
    assert.equal(store.findByKickoffId('k3')?.id, other.id);
    assert.equal(first.state, 'queued');
    assert.equal(first.watching, true);
    assert.equal(first.label, 'Topic k1');
    assert.match(other.label, /^Run of \d{4}-\d\d-\d\d \d\d:\d\d$/);
    assert.equal(first.id.length, 36);
    assert.deepEqual(await storedKickoffIds(dir), ['k1', 'k2', 'k3'], 'one record file per run');
    assert.equal(kv.get(DEFAULT_INDEX_KEY), undefined, 'runs are not kept in globalState');
  });

  it('applies a snapshot: change lines, history only on change, final output kept', async () => {
    const run = await add('k1');
    const task = { name: 'research', output: 'Notes' };
    const lines = (await store.applyPolled(run.id, undefined, snap('running', { lastTask: task, tasks: [task], currentTask: 'write' }))).changes;
    assert.ok(lines.length >= 2, lines.join('|'));
    assert.deepEqual((await store.applyPolled(run.id, undefined, snap('running', { lastTask: task, tasks: [task], currentTask: 'write' }))).changes, []);
    await clock.advance(5_000);
    await store.applyPolled(run.id, undefined, snap('succeeded', { finalOutput: { kind: 'markdown', text: '# Report' } }));
    await store.applyPolled(run.id, undefined, snap('succeeded'));
    const record = store.get(run.id)!;
    assert.equal(record.state, 'succeeded');
    assert.equal(record.watching, false);
    assert.equal(record.finishedAt, clock.now());
    assert.equal(record.currentTask, undefined);
    const details = await store.readDetails(run.id);
    // A state change, and a task change (for the run view's timeline), each once.
    assert.deepEqual(details.history.map((h) => (h.task ? `task ${h.task}` : h.state)), ['queued', 'running', 'task write', 'succeeded']);
    assert.equal(details.finalOutput?.text, '# Report');
    assert.deepEqual(details.tasks.map((t) => t.output), ['Notes']);
    assert.equal((await storedRecords(dir)).get(run.id)!.includes('Notes'), false, 'outputs stay out of the record');
  });

  it('fires change events carrying only the runs that changed, and none when nothing did', async () => {
    const a = await add('k1');
    const b = await add('k2');
    events.length = 0;
    await store.applyPolled(a.id, undefined, snap('running'));
    await store.applyPolled(a.id, undefined, snap('running'));
    await store.setWarning(b.id, 'Network down');
    await store.setWarning(b.id, 'Network down');
    assert.deepEqual(events, [[a.id], [b.id]]);
  });

  it('writes detail files atomically: no temp files left, and a crash leftover loads cleanly', async () => {
    const intact = await add('k1');
    const broken = await add('k2');
    await store.applyPolled(intact.id, undefined, snap('running', { tasks: [{ name: 't', output: 'kept' }] }));
    await store.applyPolled(broken.id, undefined, snap('running', { tasks: [{ name: 't', output: 'lost' }] }));
    await store.flush();
    const runsDir = path.join(dir, 'runs');
    assert.deepEqual((await fs.readdir(runsDir)).sort(), [`${intact.id}.json`, `${broken.id}.json`].sort());

    // Simulate a crash: a half-written temp file beside a detail file truncated by a non-atomic writer.
    const brokenFile = path.join(runsDir, `${broken.id}.json`);
    const text = await fs.readFile(brokenFile, 'utf8');
    await fs.writeFile(brokenFile, text.slice(0, Math.floor(text.length / 2)));
    const oldTemp = path.join(runsDir, `${intact.id}.json.999-dead.tmp`);
    const freshTemp = path.join(runsDir, `${broken.id}.json.998-beef.tmp`);
    await fs.writeFile(oldTemp, '{"version":1,"ta');
    await fs.writeFile(freshTemp, '{"version":1,"ta');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await fs.utimes(oldTemp, anHourAgo, anHourAgo);
    const oldRecordTemp = path.join(dir, 'records', `${intact.id}.json.997-dead.tmp`);
    await fs.writeFile(oldRecordTemp, '{"version":1,"cr');
    await fs.utimes(oldRecordTemp, anHourAgo, anHourAgo);

    const reopened = await openStore();
    assert.deepEqual(reopened.list().map((r) => r.id).sort(), [intact.id, broken.id].sort());
    assert.deepEqual((await reopened.readDetails(intact.id)).tasks.map((t) => t.output), ['kept']);
    const empty = await reopened.readDetails(broken.id);
    assert.deepEqual(empty, { tasks: [], history: [], feedbackRounds: [] });
    assert.equal(logger.warnings.filter((w) => w.includes(broken.id)).length, 1);
    await reopened.flush(); // The sweep of leftovers runs beside the load; flush waits for it.
    const left = await fs.readdir(runsDir);
    assert.equal(left.includes(path.basename(oldTemp)), false, 'crash leftover removed');
    assert.deepEqual((await fs.readdir(path.join(dir, 'records'))).filter((n) => n.endsWith('.tmp')), [], 'a record write\u2019s leftover removed too');
    assert.equal(left.includes(path.basename(freshTemp)), true, 'a temp file that may be another window\u2019s write is left alone');
    // The broken run can still be updated afterwards.
    await reopened.applyPolled(broken.id, undefined, snap('failed', { error: 'boom' }));
    assert.equal((await reopened.readDetails(broken.id)).error, 'boom');
    await reopened.flush();
  });

  it('a missing detail file reads as empty details', async () => {
    const run = await add('k1');
    await store.flush();
    await fs.rm(path.join(dir, 'runs', `${run.id}.json`));
    const reopened = await openStore();
    assert.deepEqual((await reopened.readDetails(run.id)).history, []);
    assert.equal(reopened.get(run.id)?.kickoffId, 'k1');
  });

  it('serialises writes to one run: concurrent snapshots all land, file stays valid', async () => {
    const run = await add('k1');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.applyPolled(run.id, undefined, snap('running', { lastTask: { name: `t${i}`, output: `o${i}` }, tasks: [{ name: `t${i}`, output: `o${i}` }] }))),
    );
    await store.flush();
    const onDisk = JSON.parse(await fs.readFile(path.join(dir, 'runs', `${run.id}.json`), 'utf8'));
    assert.equal(onDisk.version, 1);
    assert.equal(onDisk.runId, run.id);
    assert.equal(onDisk.tasks.length, 20);
  });

  it('caps history per crew by dropping the oldest finished runs, never an unfinished one', async () => {
    store = await openStore(5);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await add(`k${i}`)).id);
      await clock.advance(1_000);
    }
    const otherCrew = await add('x', OTHER_CREW);
    await finish(otherCrew.id);
    await finish(ids[3]);
    await finish(ids[1]);
    await store.setMaxRunsPerCrew(4);
    // k1 is the oldest finished run; k0 is older but still going.
    assert.deepEqual(store.list(CREW).map((r) => r.kickoffId), ['k4', 'k3', 'k2', 'k0']);
    await store.flush();
    await assert.rejects(fs.stat(path.join(dir, 'runs', `${ids[1]}.json`)));
    await store.setMaxRunsPerCrew(2);
    // Only one finished run left to drop: the unfinished ones stay even though that is over the cap.
    assert.deepEqual(store.list(CREW).map((r) => r.kickoffId), ['k4', 'k2', 'k0']);
    assert.equal(store.get(otherCrew.id)?.kickoffId, 'x', 'other crews are counted apart');
    assert.deepEqual(await storedKickoffIds(dir), ['k0', 'k2', 'k4', 'x']);
    // A new run pushes out a finished one as soon as there is one.
    await finish(ids[4]);
    await add('k5');
    assert.deepEqual(store.list(CREW).map((r) => r.kickoffId), ['k5', 'k2', 'k0']);
  });

  it('a cap given as a setting to read is read when the history is, once, and applies to it', async () => {
    for (let i = 0; i < 3; i++) {
      await finish((await add(`k${i}`)).id);
      await clock.advance(1_000);
    }
    await store.flush();
    let reads = 0;
    const later = new RunStore(kv, dir, logger, { clock, maxRunsPerCrew: () => (reads++, 2) });
    opened.push(later);
    assert.equal(reads, 0, 'not read at construction (activation)');
    await later.load();
    assert.equal(reads, 1);
    assert.deepEqual(later.list(CREW).map((r) => r.kickoffId), ['k2', 'k1'], 'the cap applied as the history was read');
    assert.equal(later.maxRunsPerCrew, 2);
    assert.equal(reads, 1, 'read once');
  });

  it('a finished run a batch has not recorded yet is kept over the cap until it has (a 100-row batch lost a row to "unknown")', async () => {
    store = await openStore(5);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: `b${i}`, inputs: { topic: `row ${i}` }, batch: { source: 'rows.csv', row: i + 1 } })).id);
      await clock.advance(1_000);
    }
    await finish(ids[0]);
    await finish(ids[1]);
    await store.batchEndRecorded(ids[1]); // b0 ended, but the batch has not read its end yet
    await store.setMaxRunsPerCrew(2);
    assert.deepEqual(store.list(CREW).map((r) => r.kickoffId), ['b2', 'b0'], 'b1 dropped, b0 kept for the batch');
    await store.batchEndRecorded(ids[0]); // the batch recorded b0's end
    await add('b3');
    assert.deepEqual(store.list(CREW).map((r) => r.kickoffId), ['b3', 'b2'], 'then b0 goes at the next check');
  });

  it('a suite case\'s run is kept over the cap until its suite has read its end, and stays marked as a suite\'s (#50)', async () => {
    store = await openStore(1);
    const run = await store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 's1', inputs: { topic: 'cats' }, batch: { source: 'Echo › writes', row: 1, suite: true } });
    await finish(run.id);
    await add('s2');
    assert.deepEqual(store.get(run.id)?.batch, { source: 'Echo › writes', row: 1, suite: true, awaitingEnd: true }, 'kept, awaited, a suite\'s');
    await store.batchEndRecorded(run.id);
    assert.deepEqual(store.get(run.id)?.batch, { source: 'Echo › writes', row: 1, suite: true }, 'still a suite\'s once its end is read');
  });

  it('feedback answered under a new kickoff id keeps the run and remembers the old kickoff id', async () => {
    const run = await add('old');
    await store.applyPolled(run.id, undefined, snap('awaitingFeedback', { feedback: { taskId: 'task-1' } }));
    await clock.advance(10_000);
    await store.addFeedbackRound(run.id, { at: clock.now(), approve: true, feedback: '', taskId: 'task-1' }, 'new');
    const r = store.get(run.id)!;
    assert.equal(r.kickoffId, 'new');
    assert.deepEqual(r.previousKickoffIds, ['old']);
    assert.equal(r.needsFeedback, false);
    assert.equal(r.state, 'queued');
    assert.equal(r.seenBySource, false);
    assert.equal(r.kickoffIdSince, clock.now());
    assert.equal(r.taskId, 'task-1');
    assert.equal(store.findByKickoffId('old')?.id, run.id);
    assert.equal(store.findByKickoffId('new')?.id, run.id);
    assert.equal(store.list().length, 1);
  });

  it('records feedback rounds in the details, not the index', async () => {
    const run = await add('k1');
    await store.applyPolled(run.id, undefined, snap('awaitingFeedback'));
    await store.addFeedbackRound(run.id, { at: clock.now(), approve: false, feedback: 'Shorter please', taskId: 't-9', output: 'Long draft' });
    const r = store.get(run.id)!;
    assert.equal(r.needsFeedback, false);
    assert.equal(r.state, 'running');
    assert.equal(r.taskId, 't-9');
    const details = await store.readDetails(run.id);
    assert.deepEqual(details.feedbackRounds, [{ at: clock.now(), approve: false, feedback: 'Shorter please', taskId: 't-9', output: 'Long draft' }]);
  });

  it('reload sees another instance\u2019s changes and reports only those runs', async () => {
    const mine = await add('k1');
    const otherWindow = await openStore();
    const theirs = await otherWindow.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k2', inputs: {} });
    await otherWindow.applyPolled(mine.id, undefined, snap('running'));
    events.length = 0;
    await store.reload();
    assert.deepEqual(events.map((e) => [...e].sort()), [[mine.id, theirs.id].sort()]);
    assert.equal(store.get(theirs.id)?.kickoffId, 'k2');
    assert.equal(store.get(mine.id)?.state, 'running');
    assert.deepEqual((await store.readDetails(mine.id)).history.map((h) => h.state), ['queued', 'running']);
    await store.reload();
    assert.equal(events.length, 1, 'nothing new, no event');

    // Writing here must not bring back the run the other window removed.
    await otherWindow.remove(theirs.id);
    await store.setWarning(mine.id, 'Slow');
    assert.deepEqual([...(await storedRecords(dir)).keys()], [mine.id]);
    await store.reload();
    assert.equal(store.get(theirs.id), undefined);
    await otherWindow.flush();
  });

  it('remove deletes the record and its file', async () => {
    const run = await add('k1');
    events.length = 0;
    await store.remove(run.id);
    assert.equal(store.get(run.id), undefined);
    assert.deepEqual(events, [[run.id]]);
    await assert.rejects(fs.stat(path.join(dir, 'runs', `${run.id}.json`)));
  });

  it('setWatching: stop with a reason, resume restarts the watch clock, never watches a final run', async () => {
    const run = await add('k1');
    await store.setWatching(run.id, false, 'user');
    assert.equal(store.get(run.id)?.stopReason, 'user');
    await clock.advance(60_000);
    await store.setWatching(run.id, true);
    assert.equal(store.get(run.id)?.watching, true);
    assert.equal(store.get(run.id)?.stopReason, undefined);
    assert.equal(store.get(run.id)?.watchSince, clock.now());
    await finish(run.id);
    await store.setWatching(run.id, true);
    assert.equal(store.get(run.id)?.watching, false);
  });
});

const revisionOf = (r: object | undefined) => (r as { revision?: number } | undefined)?.revision;

describe('RunStore: one truth across windows (revisions, record files)', () => {
  let dir: string;
  let clock: FakeClock;
  /** Each window its own lagging copy of globalState, as in VS Code (the runs do not live there). */
  let hub: MementoHub;
  const logger = recordingLogger();
  const open: RunStore[] = [];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-truth-'));
    clock = new FakeClock(1_700_000_000_000);
    hub = new MementoHub();
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => (s.dispose(), s.flush())));
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A window: its own store over its copy of globalState and the shared global storage folder. */
  async function window(): Promise<RunStore> {
    const s = new RunStore(hub.window(), dir, logger, { clock });
    await s.load();
    open.push(s);
    return s;
  }

  it('a batch row\u2019s finished run is kept over the cap by another window until the batch recorded its end (#46)', async () => {
    const a = await window(); // Sends the batch.
    const b = await window(); // Knows nothing of the batch (a stale or never-read batch file).
    const row = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'row-1', inputs: { topic: 'row 1' }, batch: { source: 'topics.csv', row: 1 } });
    await a.applyPolled(row.id, undefined, snap('succeeded'));
    await clock.advance(1_000);
    const later = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'later', inputs: { topic: 'later' } });
    await a.applyPolled(later.id, undefined, snap('succeeded'));
    await b.reload();
    await b.setMaxRunsPerCrew(1);
    assert.ok(b.get(row.id), 'window B dropped a batch row\u2019s run before the batch had read its end');
    await a.batchEndRecorded(row.id);
    await b.refresh(row.id);
    const newest = await b.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'newest', inputs: { topic: 'newest' } });
    assert.equal(b.get(row.id), undefined, 'once the batch has its end, the cap may take it');
    assert.ok(b.get(newest.id));
  });

  it('a run removed in one window is not brought back by another window writing its stale copy', async () => {
    const a = await window();
    const b = await window();
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    await b.reload();
    assert.ok(b.get(run.id));
    await a.remove(run.id);
    // B has not reloaded yet: its poll lands on the copy it holds.
    await b.applyPolled(run.id, undefined, snap('running'));
    await b.setWarning(run.id, 'Slow');
    const fresh = await window();
    assert.equal(fresh.get(run.id), undefined, 'the removed run came back');
    await b.reload();
    assert.equal(b.get(run.id), undefined);
  });

  /** The snapshot a window wrote of the record files it read, once it is on disk. */
  async function writtenSnapshot(): Promise<{ version: 1; records: Record<string, [string, { run: StoredRun }]> }> {
    const file = path.join(dir, 'records-snapshot.json');
    for (;;) {
      const text = await fs.readFile(file, 'utf8').catch(() => undefined);
      if (text) {
        return JSON.parse(text) as { version: 1; records: Record<string, [string, { run: StoredRun }]> };
      }
      await new Promise((resolve) => setTimeout(resolve, 50)); // Written a moment after the read that found changes.
    }
  }

  it('a window opening takes a run from the snapshot only while its record file is the very file the snapshot read', async () => {
    const a = await window();
    const kept = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k-kept', inputs: { topic: 'kept' } });
    const changed = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k-changed', inputs: { topic: 'changed' } });
    const removed = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k-removed', inputs: { topic: 'removed' } });
    await a.reload();
    const snapshot = await writtenSnapshot();
    assert.deepEqual(Object.keys(snapshot.records).sort(), [kept.id, changed.id, removed.id].sort());
    // Mark what the snapshot says, to see where each loaded run comes from.
    for (const [, file] of Object.values(snapshot.records)) {
      file.run.l = `from the snapshot: ${file.run.l}`;
    }
    await fs.writeFile(path.join(dir, 'records-snapshot.json'), JSON.stringify(snapshot));
    // Meanwhile the record files move on: one run changes, one goes, one comes.
    await a.applyPolled(changed.id, undefined, snap('succeeded'));
    await a.remove(removed.id);
    const added = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k-added', inputs: { topic: 'added' } });

    const b = await window();
    assert.equal(b.get(kept.id)?.label, 'from the snapshot: kept', 'an unchanged file is not read again');
    assert.equal(b.get(changed.id)?.label, 'changed', 'a changed file is read, not taken from the snapshot');
    assert.equal(b.get(changed.id)?.state, 'succeeded');
    assert.equal(b.get(removed.id), undefined, 'a run removed since the snapshot is not shown');
    assert.equal(b.get(added.id)?.label, 'added');
  });

  it('a window opening over an unreadable snapshot reads every record file', async () => {
    const a = await window();
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    for (const text of ['{"version":1,"records":', '[1,2]', '{"version":1,"records":{"x":"y"}}']) {
      await fs.writeFile(path.join(dir, 'records-snapshot.json'), text);
      const b = await window();
      assert.deepEqual(b.list().map((r) => [r.id, r.label]), [[run.id, 'x']], text);
    }
  });

  it('Stop Watching in one window is not undone by a snapshot another window polled before', async () => {
    const a = await window();
    const b = await window();
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    await b.reload();
    await a.setWatching(run.id, false, 'user');
    await b.applyPolled(run.id, undefined, snap('running'));
    const fresh = await window();
    assert.equal(fresh.get(run.id)?.watching, false, 'Stop Watching was undone');
    assert.equal(fresh.get(run.id)?.stopReason, 'user');
  });

  it('feedback answered with a new kickoff id is one write: no window ever sees the round under the old, superseded id', async () => {
    // The old id is NOT FOUND once superseded, which reads as "waiting for feedback" again: a window polling it
    // between two writes announced the wait a second time (Two windows, run 10).
    const a = await window();
    const b = await window();
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    await a.applyPolled(run.id, undefined, snap('awaitingFeedback', { feedback: { taskId: 't1', taskName: 'review' } }));
    await b.reload();
    const seen: string[] = [];
    const watching = b.onDidChange(() => {
      const r = b.get(run.id);
      seen.push(`${r?.kickoffId} ${r?.state}`);
    });
    const services = {
      client: { resume: async () => ({ kind: 'continuedAs', kickoffId: 'k2' }) },
      runs: b,
      log: { info: () => undefined, error: () => undefined },
      poller: { pokeRun: () => undefined },
      sends: new SendOnce(path.join(dir, 'sending'), 'b'),
    } as unknown as Services;
    await sendResume(services, b.get(run.id)!, { approve: true, feedback: '', taskId: 't1' });
    watching.dispose();
    assert.deepEqual(seen, ['k2 queued'], 'one write, straight to the new kickoff id');
    await a.reload();
    const inA = a.get(run.id)!;
    assert.deepEqual([inA.kickoffId, inA.previousKickoffIds, inA.needsFeedback], ['k2', ['k1'], false]);
    assert.equal((await a.readDetails(run.id)).feedbackRounds.length, 1);
  });

  it('a run ending or waiting for feedback is announced once, by the window whose write made the change', async () => {
    const a = await window();
    const b = await window();
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    await b.reload();
    const waiting = snap('awaitingFeedback', { feedback: { taskId: 't1', taskName: 'review' } });
    assert.equal((await a.applyPolled(run.id, undefined, waiting)).notice, 'waiting', 'A made the change: A says it');
    // B takes the run over (a lease hand-over) and polls the same wait: nothing new to say.
    await b.reload();
    assert.equal((await b.applyPolled(run.id, undefined, waiting)).notice, undefined, 'B repeated what A said');
    // Feedback sent in B; the next round's wait is new again, whoever polls it.
    await b.addFeedbackRound(run.id, { at: clock.now(), approve: false, feedback: 'More', taskId: 't1' });
    await a.reload();
    assert.equal((await a.applyPolled(run.id, undefined, waiting)).notice, 'waiting', 'the second round');
    assert.equal((await a.applyPolled(run.id, undefined, snap('succeeded'))).notice, 'ended');
    await b.reload();
    assert.equal((await b.applyPolled(run.id, undefined, snap('succeeded'))).notice, undefined, 'the end is said once');
  });

  it('every write bumps the run\u2019s revision, and a write starts from the latest stored version', async () => {
    const a = await window();
    const b = await window();
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    assert.equal(revisionOf(run), 1);
    await b.reload();
    await a.setTaskId(run.id, 't-1');
    await b.setWarning(run.id, 'Slow');
    const fresh = await window();
    assert.equal(fresh.get(run.id)?.taskId, 't-1', 'a stale copy overwrote the other window\u2019s change');
    assert.equal(fresh.get(run.id)?.warning, 'Slow');
    assert.equal(revisionOf(fresh.get(run.id)), 3);
  });

  it('load() fires a change for the runs it loaded, so views that read before it show them', async () => {
    const a = await window();
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: {} });
    const reloaded = new RunStore(hub.window(), dir, logger, { clock });
    open.push(reloaded);
    open.push(reloaded);
    const events: string[][] = [];
    reloaded.onDidChange((e) => events.push(e.runIds));
    await reloaded.load();
    assert.deepEqual(events, [[run.id]]);
  });

  it('a kickoff recorded while its record cannot be written is kept, listed, and saved once the store works again', async () => {
    const a = await window();
    const records = path.join(dir, 'records');
    await fs.rm(records, { recursive: true });
    await fs.writeFile(records, 'not a folder'); // Every record write fails until it is a folder again.
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: {} });
    assert.equal(a.get(run.id)?.kickoffId, 'k1');
    assert.match(a.get(run.id)?.warning ?? '', /not saved/i);
    assert.equal(a.list().length, 1);
    await fs.rm(records);
    const saved = new Promise<void>((resolve) => {
      a.onDidChange(() => {
        if (a.get(run.id) && a.get(run.id)?.warning === undefined) {
          resolve();
        }
      });
    });
    await clock.advance(10_000); // Tried again by itself, without another write.
    await saved;
    assert.deepEqual(await storedKickoffIds(dir), ['k1'], 'the retry saved the run');
    const fresh = await window();
    assert.deepEqual(fresh.list().map((r) => r.kickoffId), ['k1'], 'recorded exactly once');
    assert.equal(fresh.get(run.id)?.warning, undefined);
  });
});

describe('RunStore: feedback drafts', () => {
  let dir: string;
  const kv = memoryKv();
  const clock = new FakeClock(1_700_000_000_000);

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-draft-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('keeps feedback that could not be sent in the run\u2019s details across a reload, and drops it once feedback is sent', async () => {
    const store = new RunStore(kv, dir, recordingLogger(), { clock });
    await store.load();
    const run = await store.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: {} });
    const draft = { text: 'Make it shorter', at: clock.now(), problem: 'network' };
    await store.setFeedbackDraft(run.id, draft);
    await store.flush();
    const reloaded = new RunStore(kv, dir, recordingLogger(), { clock });
    await reloaded.load();
    assert.deepEqual((await reloaded.readDetails(run.id)).feedbackDraft, draft);
    assert.equal((await storedRecords(dir)).get(run.id)!.includes('Make it shorter'), false, 'a draft is not record material');
    await reloaded.addFeedbackRound(run.id, { at: clock.now(), approve: false, feedback: 'Make it shorter', taskId: 't' });
    assert.equal((await reloaded.readDetails(run.id)).feedbackDraft, undefined);
    for (const s of [store, reloaded]) {
      s.dispose();
      await s.flush();
    }
  });
});

describe('RunStore: an index older versions kept in globalState', function () {
  this.timeout(180_000);
  let dir: string;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-index-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('moves a version 1 index of 2,000 runs with 100 KB inputs to files once: every run kept, inputs in their details files, each record under 1 KB with no input value', async () => {
    const kv = memoryKv();
    const clock = new FakeClock(1_700_000_000_000);
    const valueOf = (i: number) => `Value ${i}: ${'lorem ipsum dolor sit amet '.repeat(3_800)}`.slice(0, 100_000);
    const runs = Array.from({ length: 2_000 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      crewUrl: `https://crew-${i % 40}.example.com`,
      crewName: `Crew ${i % 40}`,
      kickoffId: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      previousKickoffIds: [],
      inputs: { topic: valueOf(i), audience: 'engineers' },
      startedAt: clock.now() - i * 1_000,
      updatedAt: clock.now(),
      finishedAt: clock.now(),
      state: 'succeeded',
      watching: false,
      watchSince: clock.now() - i * 1_000,
      needsFeedback: false,
      message: 'Task completed successfully',
      label: `Value ${i}: lorem ipsum dolor sit amet lo…`,
      kickoffIdSince: clock.now() - i * 1_000,
      seenBySource: true,
    }));
    await kv.update(DEFAULT_INDEX_KEY, { version: 1, runs });
    const store = new RunStore(kv, dir, recordingLogger(), { clock, maxRunsPerCrew: 50 });
    await store.load();
    assert.equal(store.list().length, 2_000, 'every run kept');
    assert.equal(kv.get(DEFAULT_INDEX_KEY), undefined, 'the index left globalState');
    const stored = [...(await storedRecords(dir)).values()];
    assert.equal(stored.length, 2_000, 'one record file per run');
    const size = Math.max(...stored.map((t) => Buffer.byteLength(t)));
    assert.ok(size < 1024, `a record is ${size} bytes`);
    assert.ok(stored.every((t, i) => !t.includes(valueOf(i).slice(0, 200))), 'an input value in a record');
    for (const i of [0, 777, 1_999]) {
      const id = runs[i].id;
      assert.deepEqual((await store.readDetails(id)).inputs, { topic: valueOf(i), audience: 'engineers' }, `the inputs of run ${i} in its file`);
      assert.equal(store.get(id)?.label, runs[i].label);
      assert.equal(store.get(id)?.state, 'succeeded');
    }
    // A second window (a stale copy of the old index still in its globalState) sees the same runs.
    await kv.update(DEFAULT_INDEX_KEY, { version: 1, runs: runs.slice(0, 10) });
    const other = new RunStore(kv, dir, recordingLogger(), { clock, maxRunsPerCrew: 50 });
    await other.load();
    assert.deepEqual(other.list().map((r) => r.id), store.list().map((r) => r.id));
    console.log(`      2,000 runs moved: largest record ${size} bytes`);
    for (const s of [store, other]) {
      s.dispose();
      await s.flush();
    }
  });
});

describe('run index format', () => {
  it('keeps every field of a run through the summary format (short texts whole, long ones clipped)', () => {
    const record: RunRecord = {
      id: 'run-1',
      revision: 7,
      crewUrl: CREW,
      crewName: 'Writers',
      kickoffId: 'k-2',
      previousKickoffIds: ['k-1'],
      startedAt: 1_000,
      updatedAt: 9_000,
      finishedAt: 8_000,
      state: 'awaitingFeedback',
      watching: true,
      stopReason: 'noToken',
      watchSince: 2_000,
      warning: 'Slow',
      needsFeedback: true,
      feedbackInferred: true,
      message: 'Waiting',
      progress: { unit: 'task', completed: 1, total: 3, current: 'draft' },
      currentTask: 'draft',
      label: 'Topic',
      taskId: 't-1',
      kickoffIdSince: 3_000,
      seenBySource: true,
      notFoundSince: 4_000,
    };
    const roundTrip = (r: RunRecord) => {
      const crews: [string, string][] = [];
      const stored = JSON.parse(JSON.stringify(encodeRun(r, crews))) as unknown;
      return decodeRun(stored, JSON.parse(JSON.stringify(crews)) as [string, string][]);
    };
    assert.deepEqual(roundTrip(record), record);
    for (const batch of [{ source: 'Echo › writes', row: 3, suite: true }, { source: 'Echo › writes', row: 3, suite: true, awaitingEnd: true }, { source: 'rows.csv', row: 2, awaitingEnd: true }]) {
      assert.deepEqual(roundTrip({ ...record, batch })?.batch, batch, 'a batch row or a suite case, awaited or not (#50)');
    }
    const long = { ...record, message: 'm'.repeat(10_000) };
    assert.ok(canonical(long).message!.length <= 160);
    assert.ok(sameRun(long, roundTrip(long)));
  });
});
