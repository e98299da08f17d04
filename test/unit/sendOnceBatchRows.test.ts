// Issue #46: a batch row's kickoff goes out once, machine-wide. Windows share the batches' folder and the
// send-once marks' folder, as VS Code windows share global storage; each has its own store, runner and marks.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BatchRunner, type SendOutcome } from '../../src/batches/core/batchRunner';
import { BatchStore } from '../../src/batches/core/batchStore';
import { batchProgress, type Batch } from '../../src/batches/core/model';
import type { SendOnce } from '../../src/runTracking/sendOnce';
import { systemClock } from '../../src/util/clock';
import { FakeCrew, FakeLeases, marksOf, quiet, rows, until } from './helpers/batchFakes';

/** Waits for an asynchronous state (a mark settled on disk). */
async function untilSettled(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.ok(await check(), what);
}

describe('Send once: a batch row, across windows (#46)', () => {
  let dir: string;
  let runners: BatchRunner[] = [];
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-rows-once-'))));
  afterEach(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    runners = [];
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function windowOf(store: BatchStore, crew: FakeCrew, leases: FakeLeases, name: string, sends: SendOnce = marksOf(dir, name)): BatchRunner {
    const deps = { store, send: crew.send, runEnd: crew.runEnd, endRecorded: async () => undefined, lease: leases.for(name), clock: systemClock, logger: quiet, maxPerCrew: 4, sends };
    const runner = new BatchRunner(deps);
    runners.push(runner);
    return runner;
  }

  /** The crew answers row `index`'s kickoff (rows go out in no set order). */
  const answer = (crew: FakeCrew, index: number, outcome: SendOutcome) => crew.pending.find((p) => p.row.index === index)!.resolve(outcome);
  const onDisk = (id: string) => JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), 'utf8')) as Batch;
  const counted = (sent: number[]) => JSON.stringify(sent.reduce<Record<number, number>>((n, i) => ({ ...n, [i]: (n[i] ?? 0) + 1 }), {}));

  it('a paused batch resumed in the window that sends it, then in a window whose copy still says paused: each row goes out once', async () => {
    const leases = new FakeLeases();
    const crew = new FakeCrew();
    const storeA = new BatchStore(dir, quiet);
    const batch = await storeA.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 2, rows: rows(2) });
    const a = windowOf(storeA, crew, leases, 'a');
    const paused: string[] = [];
    a.onDidPause((p) => paused.push(p.reason));
    await a.start(batch.id);
    await until(() => crew.pending.length === 2, 'both rows out');
    crew.pending[0].resolve({ kind: 'crewUnavailable', message: 'C has no token stored.', final: true });
    crew.pending[0].resolve({ kind: 'crewUnavailable', message: 'C has no token stored.', final: true });
    await until(() => paused.length === 1 && a.sending(batch.id) === 0, 'the batch pauses');
    await storeA.flush();
    // Window B reads the batch now (at its start, or its 30 s re-read): paused, every row queued.
    const storeB = new BatchStore(dir, quiet);
    await storeB.load();
    const b = windowOf(storeB, crew, leases, 'b');
    assert.ok(storeB.get(batch.id)?.paused, "B's copy says paused");

    await a.resume(batch.id);
    await until(() => crew.pending.length === 2, 'A sends both rows');
    answer(crew, 0, { kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    answer(crew, 1, { kind: 'sent', runId: 'r1', kickoffId: 'k1' });
    await until(() => batchProgress(storeA.get(batch.id)!).finished, 'A finishes the batch (and gives up its lease)');
    await storeA.flush();

    // The user resumes it in B too: B's copy still shows it paused.
    const before = crew.sent.length;
    await b.resume(batch.id);
    await until(() => b.sending(batch.id) === 0 || crew.pending.length > 0, 'B settles or sends');
    assert.deepEqual(crew.sent.slice(before), [], `rows B sent again (A sent each once): ${counted(crew.sent.slice(before))}`);
    await storeB.flush();
    assert.deepEqual(onDisk(batch.id).rows.map((r) => [r.status, r.runId]), [['sent', 'r0'], ['sent', 'r1']], 'the file still says what A sent');
  });

  it('a stale copy of the batch written over its file never sends a row again: each row\u2019s mark says it went, and which run it started', async () => {
    const leases = new FakeLeases();
    const crew = new FakeCrew();
    const storeA = new BatchStore(dir, quiet);
    const batch = await storeA.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 2, rows: rows(2) });
    // Another window read the batch while every row was queued.
    const stale = new BatchStore(dir, quiet);
    await stale.load();
    const a = windowOf(storeA, crew, leases, 'a');
    await a.start(batch.id);
    await until(() => crew.pending.length === 2, 'both rows out');
    crew.running.add('r0').add('r1');
    answer(crew, 0, { kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    answer(crew, 1, { kind: 'sent', runId: 'r1', kickoffId: 'k1' });
    await until(() => storeA.get(batch.id)!.rows.every((r) => r.status === 'sent') && a.sending(batch.id) === 0, 'both rows sent, their runs going on');
    await storeA.flush();
    // The other window writes its old copy (as Resume Batch did from a window that had not re-read the batch) …
    await stale.update(batch.id, (b) => (b.paused = undefined));
    // … and A, which changed nothing since, takes the file at its 30 s re-read and goes on with the batch.
    await storeA.load();
    await a.resumeAll();
    await until(() => a.sending(batch.id) === 0 || crew.pending.length > 0, 'A settles or sends');
    assert.deepEqual(crew.sent.slice(2), [], `rows sent again: ${counted(crew.sent)}`);
    await until(() => storeA.get(batch.id)!.rows.every((r) => r.status === 'sent'), 'the rows are sent again in the record');
    assert.deepEqual(storeA.get(batch.id)!.rows.map((r) => [r.runId, r.kickoffId]), [['r0', 'k0'], ['r1', 'k1']], 'each row keeps the run it started');
  });

  it('a window reloaded mid-send: a kickoff that went out meanwhile gives its row its run, one whose fate is unknown stays unknown, neither goes out again', async () => {
    const leases = new FakeLeases();
    const crew = new FakeCrew();
    const first = new BatchStore(dir, quiet);
    const batch = await first.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 2, rows: rows(3) });
    const marks = marksOf(dir, 'w1');
    const w1 = windowOf(first, crew, leases, 'w1', marks);
    await w1.start(batch.id);
    await until(() => crew.pending.length === 2, 'two rows out');
    // The window reloads: its runner stops with both kickoffs in flight, and its lease goes.
    await w1.stop();
    await leases.for('w1').release(`batch-${batch.id}`);
    // Row 0's kickoff is answered as the window goes: the run started. Row 1's never is: its host exited.
    const [zero] = crew.pending.filter((p) => p.row.index === 0);
    zero.resolve({ kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    crew.pending.splice(0);
    await untilSettled(async () => (await marks.peek(`batchRow:${batch.id}:0`))?.state === 'sent', "row 0's mark says it went");

    const second = new BatchStore(dir, quiet);
    await second.load();
    const w2 = windowOf(second, crew, leases, 'w2', marksOf(dir, 'w2', new Set(['w1'])));
    assert.equal(await w2.start(batch.id), true);
    await until(() => crew.pending.length === 1, 'the last row goes out');
    assert.equal(crew.pending[0].row.index, 2);
    const [row0, row1] = second.get(batch.id)!.rows;
    assert.deepEqual([row0.status, row0.runId, row0.kickoffId], ['sent', 'r0', 'k0'], 'row 0 has the run it started');
    assert.equal(row1.status, 'unknown');
    assert.match(row1.note ?? '', /check the crew before re-running/);
    assert.deepEqual([...crew.sent].sort(), [0, 1, 2], 'no row went out twice');
  });

  it('a row its window marked sending but never kicked off (no mark) goes out once; one left so a day or more ago is unknown', async () => {
    const leases = new FakeLeases();
    const crew = new FakeCrew();
    const store = new BatchStore(dir, quiet);
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 2, rows: rows(2) });
    // A window wrote "sending" on both rows and went before taking their marks: nothing left it.
    await store.updateRow(batch.id, 0, (r) => ((r.status = 'sending'), (r.sentAt = Date.now())));
    // Its mark may have been tidied since (settled marks are kept 7 days): whether it went is not known.
    await store.updateRow(batch.id, 1, (r) => ((r.status = 'sending'), (r.sentAt = Date.now() - 25 * 3_600_000)));
    const w2 = windowOf(store, crew, leases, 'w2');
    assert.equal(await w2.start(batch.id), true);
    await until(() => crew.pending.length === 1, 'row 0 goes out');
    assert.deepEqual(crew.sent, [0]);
    assert.equal(store.get(batch.id)!.rows[1].status, 'unknown');
  });
});
