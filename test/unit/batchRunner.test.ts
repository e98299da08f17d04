import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BatchRunner } from '../../src/batches/core/batchRunner';
import { BatchStore } from '../../src/batches/core/batchStore';
import { batchProgress, type Batch, type BatchRow } from '../../src/batches/core/model';
import { systemClock } from '../../src/util/clock';
import { FakeCrew, FakeLeases, marksOf, quiet, rows, until } from './helpers/batchFakes';

describe('BatchRunner', () => {
  let dir: string;
  let runners: BatchRunner[] = [];
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'batches-'))));
  afterEach(async () => {
    // As a window closing does: no write of theirs may still be going on when the folder goes.
    await Promise.all(runners.map((r) => r.stop()));
    runners = [];
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function runnerFor(store: BatchStore, crew: FakeCrew, lease: ReturnType<FakeLeases['for']>, maxPerCrew = 4, endRecorded = async (_runId: string) => undefined) {
    const runner = new BatchRunner({ store, send: crew.send, runEnd: crew.runEnd, endRecorded, lease, clock: systemClock, logger: quiet, maxPerCrew, sends: marksOf(dir, 'window') });
    runners.push(runner);
    return runner;
  }

  it('sends every queued row once, never more at a time than its concurrency, and skips skipped rows', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 3, rows: rows(10, [2, 5]) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'));
    await runner.start(batch.id);
    await until(() => crew.pending.length === 3, 'three in flight');
    let next = 0;
    while (crew.sent.length < 8 || crew.pending.length) {
      await until(() => crew.pending.length > 0, 'a kickoff is in flight');
      const p = crew.pending[0];
      // On disk as "sending" before the request went out.
      const onDisk = JSON.parse(fs.readFileSync(path.join(dir, `${batch.id}.json`), 'utf8')) as Batch;
      assert.equal(onDisk.rows.find((r) => r.index === p.row.index)?.status, 'sending');
      const id = `run-${next++}`;
      crew.ended.set(id, { kind: 'ended', result: { state: next % 4 === 0 ? 'failed' : 'succeeded', finishedAt: 1, error: next % 4 === 0 ? 'boom' : undefined }, output: `out ${id}` });
      p.resolve({ kind: 'sent', runId: id, kickoffId: `k-${id}` });
      await until(() => crew.pending.length > 0 || crew.sent.length === 8, 'the next row goes out');
    }
    await until(() => batchProgress(store.get(batch.id)!).finished, 'the batch finishes');
    assert.deepEqual([...crew.sent].sort((a, b) => a - b), [0, 1, 3, 4, 6, 7, 8, 9]);
    assert.equal(crew.maxInFlight, 3);
    const progress = batchProgress(store.get(batch.id)!);
    assert.equal(progress.total, 8);
    assert.equal(progress.failed, 2);
    assert.equal((await store.readOutputs(batch.id)).size, 8);
  });

  it('lets the history cap have a row\u2019s run once its end is recorded, and the runs of a batch removed (#46)', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const released: string[] = [];
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 2, rows: rows(2) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'), 4, async (runId) => void released.push(runId));
    await runner.start(batch.id);
    crew.running.add('r1');
    await until(() => crew.pending.length === 2, 'two out');
    crew.pending[1].resolve({ kind: 'sent', runId: 'r1', kickoffId: 'k1' });
    crew.pending[0].resolve({ kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    await until(() => store.get(batch.id)!.rows.some((r) => r.result?.finishedAt), 'r0 ended and was recorded');
    await until(() => released.includes('r0'), 'r0 let go once recorded');
    assert.deepEqual(released, ['r0'], 'r1 still goes on: the batch awaits its end');
    await runner.letGoOfRuns(store.get(batch.id)!);
    assert.deepEqual(released, ['r0', 'r1']);
  });

  it('counts a row until its run ends: no more runs at the crew at once than the concurrency', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 2, rows: rows(4) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'));
    await runner.start(batch.id);
    crew.running.add('r0').add('r1');
    await until(() => crew.pending.length === 2, 'two out');
    crew.pending[1].resolve({ kind: 'sent', runId: 'r1', kickoffId: 'k1' });
    crew.pending[0].resolve({ kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    await until(() => store.get(batch.id)!.rows.filter((r) => r.status === 'sent').length === 2, 'both sent');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(crew.sent.length, 2, 'no third row while two runs go on');
    crew.running.delete('r1');
    await runner.runsChanged(['r1']);
    await until(() => crew.sent.length === 3, 'a run ended: the next row goes out');
  });

  it('the periodic resume records a run end this window missed, and the batch goes on', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 1, rows: rows(2) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'));
    await runner.start(batch.id);
    crew.running.add('r0');
    await until(() => crew.pending.length === 1, 'one out');
    crew.pending[0].resolve({ kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    await until(() => store.get(batch.id)!.rows[0].status === 'sent', 'sent');
    // "sent" is on the row before the runner has looked whether the run already ended: wait until it
    // is done with the row, or the run's end below would be found there and not by the refresh.
    await until(() => runner.sending(batch.id) === 0, 'the runner is done with the row');
    // The run ends, but no change reaches the runner (an event lost, or a record read back from an older file).
    crew.running.delete('r0');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(crew.sent.length, 1, 'the row still holds its place');
    await runner.resumeAll(); // The window's 30 s refresh.
    assert.equal(store.get(batch.id)!.rows[0].result?.state, 'succeeded', 'its end is recorded');
    await until(() => crew.sent.length === 2, 'the next row goes out');
  });

  it('stop() resolves only once every write it started is done, and nothing is written after it', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 2, rows: rows(3) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'));
    await runner.start(batch.id);
    await until(() => crew.pending.length === 2, 'two out');
    // Row 0's kickoff answers just as the window goes; row 1's never answers.
    crew.pending.find((p) => p.row.index === 0)!.resolve({ kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    await runner.stop();
    // What was under way is on disk: the row's run and its end (the run had already ended).
    const row = store.get(batch.id)!.rows[0];
    assert.equal(row.status, 'sent');
    assert.equal(row.result?.state, 'succeeded');
    assert.equal((await store.readOutputs(batch.id)).get(0)?.output, 'out r0');
    // The request still in flight is abandoned: its row stays "sending", for the next window to mark unknown.
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, `${batch.id}.json`), 'utf8')) as Batch;
    assert.equal(onDisk.rows[1].status, 'sending');
    assert.equal(crew.sent.length, 2, 'no row goes out after stop()');
  });

  it('a crew that cannot take rows (no token) pauses the batch with its rows queued, nothing marked failed; Resume sends them', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 1, rows: rows(4) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'));
    const paused: string[] = [];
    runner.onDidPause((p) => paused.push(p.reason));
    await runner.start(batch.id);
    await until(() => crew.pending.length === 1, 'row 0 out');
    crew.pending[0].resolve({ kind: 'crewUnavailable', message: 'C has no token stored.', final: true });
    await until(() => paused.length === 1, 'the batch pauses');
    assert.deepEqual(paused, ['C has no token stored.']);
    assert.equal(store.get(batch.id)!.paused, 'C has no token stored.');
    assert.deepEqual(store.get(batch.id)!.rows.map((r) => r.status), ['queued', 'queued', 'queued', 'queued'], 'nothing was sent: every row waits');
    assert.equal(crew.sent.length, 1, 'no other row is tried while paused');
    await runner.resume(batch.id);
    await until(() => crew.sent.length === 2, 'Resume sends again');
    assert.equal(store.get(batch.id)!.paused, undefined);
    assert.equal(crew.pending[0].row.index, 0, 'the first row first');
  });

  it('a crew that cannot be reached pauses the batch after a few rows in a row, not at the first', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 3, rows: rows(6) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'));
    const paused: string[] = [];
    runner.onDidPause((p) => paused.push(p.reason));
    await runner.start(batch.id);
    await until(() => crew.pending.length === 3, 'three out');
    const refused = { kind: 'crewUnavailable', message: 'Could not reach c: connection refused.', final: false } as const;
    crew.pending[0].resolve(refused);
    crew.pending[0].resolve(refused);
    await until(() => store.get(batch.id)!.rows.filter((r) => r.status === 'queued').length === 5, 'two rows back in the queue');
    assert.equal(paused.length, 0, 'two failures: tried again later');
    crew.pending[0].resolve(refused);
    await until(() => paused.length === 1, 'the third in a row pauses the batch');
    assert.ok(store.get(batch.id)!.rows.every((r) => r.status === 'queued'), 'every row still queued');
    assert.equal(crew.sent.length, 3);
  });

  it('never goes above the per-crew cap, whatever the batch asks for', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 10, rows: rows(6) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'), 4);
    await runner.start(batch.id);
    await until(() => crew.pending.length === 4, 'four in flight');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(crew.pending.length, 4);
  });

  it('after a reload, a row that was in flight is unknown and never sent again; the rest go on in one window only', async () => {
    const leases = new FakeLeases();
    const crew = new FakeCrew();
    const first = new BatchStore(dir, quiet);
    const batch = await first.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 2, rows: rows(5) });
    const w1 = runnerFor(first, crew, leases.for('w1'));
    await w1.start(batch.id);
    await until(() => crew.pending.length === 2, 'two in flight');
    crew.pending[0].resolve({ kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    await until(() => crew.sent.length === 3, 'a third row goes out');
    // The window goes: its runner stops, its leases are given up; the requests in flight are abandoned.
    await w1.stop();
    await leases.for('w1').release(`batch-${batch.id}`);
    const inFlight = [...crew.pending];
    const abandoned = inFlight.map((p) => p.row.index);
    // One of them fails as the window goes (its shutdown closed a channel): that is no reason to give.
    inFlight[0].resolve({ kind: 'uncertain', message: 'Channel has been closed' });
    await new Promise((r) => setTimeout(r, 20));
    crew.pending.splice(0);

    const second = new BatchStore(dir, quiet);
    await second.load();
    const other = new BatchStore(dir, quiet);
    await other.load();
    const w2 = runnerFor(second, crew, leases.for('w2'));
    const w3 = runnerFor(other, crew, leases.for('w3'));
    assert.equal(await w2.start(batch.id), true);
    assert.equal(await w3.start(batch.id), false, 'a second window does not send the same batch');
    for (const index of abandoned) {
      assert.equal(second.get(batch.id)?.rows[index].status, 'unknown');
      assert.match(second.get(batch.id)?.rows[index].note ?? '', /check the crew before re-running/);
    }
    while (crew.sent.length < 5) {
      await until(() => crew.pending.length > 0, 'the rest go out');
      const p = crew.pending[0];
      p.resolve({ kind: 'sent', runId: `r${p.row.index}`, kickoffId: `k${p.row.index}` });
    }
    const counts = new Map<number, number>();
    crew.sent.forEach((i) => counts.set(i, (counts.get(i) ?? 0) + 1));
    assert.deepEqual([...counts.values()], [1, 1, 1, 1, 1], `every row sent exactly once: ${JSON.stringify(crew.sent)}`);
    await w2.stop();
    await w3.stop();
  });

  it('puts a rate-limited row back in the queue; a refused one is not sent; an uncertain one is unknown; cancel stops the queue', async () => {
    const store = new BatchStore(dir, quiet);
    const crew = new FakeCrew();
    const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 1, rows: rows(5) });
    const runner = runnerFor(store, crew, new FakeLeases().for('w1'));
    await runner.start(batch.id);
    await until(() => crew.pending.length === 1, 'row 0 out');
    crew.pending[0].resolve({ kind: 'retryLater', delayMs: 20, message: '429' });
    await until(() => crew.sent.length === 2, 'row 0 again after the wait');
    assert.deepEqual(crew.sent, [0, 0]);
    crew.pending[0].resolve({ kind: 'refused', message: 'The crew refused the request (400).' });
    await until(() => crew.pending.length === 1 && crew.sent.length === 3, 'row 1 out');
    crew.pending[0].resolve({ kind: 'uncertain', message: 'Could not reach the crew.' });
    await until(() => crew.pending.length === 1 && crew.sent.length === 4, 'row 2 out');
    await runner.cancel(batch.id);
    crew.pending[0].resolve({ kind: 'refused', message: 'no' });
    await until(() => store.get(batch.id)!.rows[2].status === 'notSent', 'row 2 answered');
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(store.get(batch.id)!.rows.map((r) => r.status), ['notSent', 'unknown', 'notSent', 'cancelled', 'cancelled']);
    assert.equal(crew.sent.length, 4, 'nothing sent after Cancel');
  });
});

describe('BatchRunner across windows', () => {
  let dir: string;
  let runners: BatchRunner[] = [];
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'batches-'))));
  afterEach(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    runners = [];
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const onDisk = (dir: string, id: string) => JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), 'utf8')) as Batch;

  async function twoWindows(dir: string) {
    const leases = new FakeLeases();
    const crew = new FakeCrew();
    const owner = new BatchStore(dir, quiet);
    const batch = await owner.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 1, rows: rows(4) });
    const make = (store: BatchStore, window: string) => {
      const runner = new BatchRunner({ store, send: crew.send, runEnd: crew.runEnd, endRecorded: async () => undefined, lease: leases.for(window), clock: systemClock, logger: quiet, maxPerCrew: 4, sends: marksOf(dir, window) });
      runners.push(runner);
      return runner;
    };
    const w1 = make(owner, 'w1');
    await w1.start(batch.id);
    await until(() => crew.pending.length === 1, 'row 0 out');
    // The other window read the batch while row 0 was being sent: its copy is stale from here on.
    const otherStore = new BatchStore(dir, quiet);
    await otherStore.load();
    const w2 = make(otherStore, 'w2');
    crew.running.add('r0').add('r1');
    crew.pending[0].resolve({ kind: 'sent', runId: 'r0', kickoffId: 'k0' });
    await until(() => owner.get(batch.id)?.rows[0].status === 'sent', 'row 0 sent');
    await owner.flush(); // "sent" is in memory before it is on disk; the other window acts on the disk.
    return { crew, owner, otherStore, w1, w2, batch };
  }

  it('Cancel Batch from a window that does not send the batch loses no sent row and stops the queue', async () => {
    const { crew, owner, w1, w2, batch } = await twoWindows(dir);
    await w2.cancel(batch.id);
    assert.equal(onDisk(dir, batch.id).rows[0].runId, 'r0', 'the row the owner sent keeps its run');
    assert.equal(onDisk(dir, batch.id).rows[0].status, 'sent');
    crew.running.delete('r0');
    await w1.runsChanged(['r0']);
    await until(() => owner.get(batch.id)?.cancelled === true, 'the owner sees the cancel');
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(crew.sent, [0], 'nothing sent after Cancel');
    await owner.flush(); // The owner's record of the cancel is in memory before it is on disk.
    const final = onDisk(dir, batch.id);
    assert.equal(final.cancelled, true);
    assert.deepEqual(final.rows.map((r) => r.status), ['sent', 'cancelled', 'cancelled', 'cancelled']);
    assert.equal(final.rows[0].runId, 'r0');
  });

  it('Remove Batch from a window that does not send the batch: the owner never re-creates it', async () => {
    const { crew, otherStore, w1, w2, batch } = await twoWindows(dir);
    await w2.cancel(batch.id);
    await otherStore.remove(batch.id);
    assert.equal(fs.existsSync(path.join(dir, `${batch.id}.json`)), false);
    crew.running.delete('r0');
    await w1.runsChanged(['r0']);
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(crew.sent, [0], 'nothing sent after Remove');
    assert.equal(fs.existsSync(path.join(dir, `${batch.id}.json`)), false, 'the removed batch is not written again');
    const later = new BatchStore(dir, quiet);
    await later.load();
    assert.equal(later.get(batch.id), undefined);
  });

  it('a window taking a batch over decides from the batch file as it is once it holds the lease, not from its older copy', async () => {
    const leases = new FakeLeases();
    const crew = new FakeCrew();
    const first = new BatchStore(dir, quiet);
    const batch = await first.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 1, rows: rows(3) });
    // The second window read the batch while every row was still queued.
    const second = new BatchStore(dir, quiet);
    await second.load();
    const make = (store: BatchStore, window: string) => {
      const runner = new BatchRunner({ store, send: crew.send, runEnd: crew.runEnd, endRecorded: async () => undefined, lease: leases.for(window), clock: systemClock, logger: quiet, maxPerCrew: 4, sends: marksOf(dir, window) });
      runners.push(runner);
      return runner;
    };
    const w1 = make(first, 'w1');
    await w1.start(batch.id);
    await until(() => crew.pending.length === 1, 'row 0 out');
    // The first window goes while row 0's kickoff is in flight: the row stays "sending" on disk.
    await w1.stop();
    await leases.for('w1').release(`batch-${batch.id}`);
    assert.equal(onDisk(dir, batch.id).rows[0].status, 'sending');

    const w2 = make(second, 'w2');
    assert.equal(await w2.start(batch.id), true);
    await until(() => crew.sent.length === 2, 'the next row goes out');
    assert.deepEqual(crew.sent, [0, 1], 'a row the other window was sending went out again');
    await second.flush();
    assert.equal(onDisk(dir, batch.id).rows[0].status, 'unknown');
  });

  it('a store write that fails while sending a row is logged, not left as an unhandled rejection', async () => {
    class FailingStore extends BatchStore {
      failing = false;
      override async updateRow(id: string, index: number, change: (row: BatchRow) => void): Promise<void> {
        if (this.failing) {
          throw new Error('disk full');
        }
        return super.updateRow(id, index, change);
      }
    }
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    const listeners = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', onUnhandled);
    try {
      const errors: string[] = [];
      const store = new FailingStore(dir, quiet);
      const crew = new FakeCrew();
      const batch = await store.create({ crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 1, rows: rows(2) });
      const runner = new BatchRunner({ store, send: crew.send, runEnd: crew.runEnd, endRecorded: async () => undefined, lease: new FakeLeases().for('w1'), clock: systemClock, logger: { ...quiet, error: (m: string) => errors.push(m) }, maxPerCrew: 4, sends: marksOf(dir, 'w1') });
      runners.push(runner);
      await runner.start(batch.id);
      await until(() => crew.pending.length === 1, 'row 0 out');
      store.failing = true;
      crew.pending[0].resolve({ kind: 'sent', runId: 'r0', kickoffId: 'k0' });
      await until(() => errors.length > 0, 'the failure is logged');
      await new Promise((r) => setTimeout(r, 20));
      assert.match(errors[0], /disk full/);
      assert.deepEqual(unhandled, []);
      } finally {
      process.removeListener('unhandledRejection', onUnhandled);
      listeners.forEach((l) => process.on('unhandledRejection', l));
    }
  });
});
