// Suite runs kept for comparison and reports (src/suites/suiteHistory.ts), and a suite item's run followed to its end
// through the run store's changes with its facts read from the record and details (src/suites/runEnd.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunDetails, RunRecord } from '../../src/runTracking/model';
import { factsFromSnapshot } from '../../src/suites/core/facts';
import type { SuiteItemResult, SuiteRunRecord } from '../../src/suites/core/types';
import { factsOfRun, type RunEnd, runEndOf, waitForRunEnd } from '../../src/suites/runEnd';
import { keptRecord, newSuiteRunId, SUITE_HISTORY, SuiteHistory } from '../../src/suites/suiteHistory';
import { Emitter } from '../../src/util/event';
import { makeRun } from './chatTools.test';

const KEY = 'file:///work/echo.crew-suite.yaml';

function item(id: string, outcome: SuiteItemResult['outcome'], extra: Partial<SuiteItemResult> = {}): SuiteItemResult {
  return { itemId: id, caseName: id, repeat: 1, outcome, checks: [], ...extra };
}

function record(startedAt: number, items: SuiteItemResult[]): SuiteRunRecord {
  return { version: 1, id: newSuiteRunId(startedAt), suiteName: 'Echo', crewUrl: 'https://echo.example', startedAt, finishedAt: startedAt + 1000, items };
}

describe('suite history (Test Explorer)', () => {
  let dir: string;
  let history: SuiteHistory;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suite-history-'));
    history = new SuiteHistory(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps every run, newest first, and compares with the newest earlier run that ran any of the same items', async () => {
    const first = record(1_000_000_000_000, [item('a', 'passed'), item('b', 'passed')]);
    const other = record(1_000_000_001_000, [item('c', 'passed')]);
    const now = record(1_000_000_002_000, [item('a', 'failed')]);
    for (const r of [first, other, now]) {
      await history.add(KEY, r);
    }
    assert.deepEqual(await history.ids(KEY), [now.id, other.id, first.id]);
    assert.equal((await history.latest(KEY))?.id, now.id);
    const baseline = await history.baselineFor(KEY, now);
    assert.equal(baseline?.record.id, first.id, 'the run of other items is passed over');
    assert.equal(baseline?.pinned, false);
    assert.equal(await history.baselineFor(KEY, first), undefined, 'nothing before the first');
  });

  it('a pinned baseline is what later runs are compared with, and is kept past the bounds', async () => {
    const runs = Array.from({ length: SUITE_HISTORY.runs + 5 }, (_v, i) => record(1_000_000_000_000 + i * 1000, [item('a', 'passed')]));
    await history.add(KEY, runs[0]);
    await history.pin(KEY, runs[0].id);
    for (const r of runs.slice(1)) {
      await history.add(KEY, r);
    }
    const ids = await history.ids(KEY);
    assert.equal(ids.length, SUITE_HISTORY.runs + 1, 'the newest runs and the pinned one');
    assert.ok(ids.includes(runs[0].id), 'the pinned run stays');
    assert.deepEqual(ids.slice(0, SUITE_HISTORY.runs), runs.slice(-SUITE_HISTORY.runs).map((r) => r.id).reverse());
    const baseline = await history.baselineFor(KEY, runs.at(-1)!);
    assert.deepEqual([baseline?.record.id, baseline?.pinned], [runs[0].id, true]);
    assert.equal((await history.baselineFor(KEY, runs[0]))?.pinned, undefined, 'the pinned run itself is compared with nothing earlier');
  });

  it('keeps a run bounded: no expected or actual values, messages and diffs clipped; other suites apart', async () => {
    const huge = 'x'.repeat(2 * 1024 * 1024);
    const r = record(1_000_000_000_000, [
      item('a', 'failed', { error: huge, checks: [{ type: 'equals', status: 'failed', message: huge, expected: huge, actual: huge, diff: huge }] }),
    ]);
    await history.add(KEY, r);
    const kept = await history.read(KEY, r.id);
    const check = kept!.items[0].checks[0];
    assert.equal(check.expected, undefined);
    assert.equal(check.actual, undefined);
    assert.equal(check.message.length, SUITE_HISTORY.messageChars);
    assert.equal(check.diff!.length, SUITE_HISTORY.diffChars);
    assert.equal(kept!.items[0].error!.length, SUITE_HISTORY.messageChars);
    const files = fs.readdirSync(dir, { recursive: true }) as string[];
    const size = files.map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile()).reduce((sum, f) => sum + fs.statSync(f).size, 0);
    assert.ok(size < 16 * 1024, `kept in ${size} bytes`);
    assert.deepEqual(await history.ids('file:///work/other.crew-suite.yaml'), []);
    assert.deepEqual(keptRecord(r).items[0].checks[0].status, 'failed');
  });

  it('unreadable or foreign files are passed over, never thrown', async () => {
    const r = record(1_000_000_000_000, [item('a', 'passed')]);
    await history.add(KEY, r);
    const folder = path.dirname(fs.readdirSync(dir, { recursive: true }).map(String).map((f) => path.join(dir, f)).find((f) => f.endsWith(`${r.id}.json`))!);
    fs.writeFileSync(path.join(folder, '9999999999999-00000000.json'), '{not json');
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'hello');
    assert.equal(await history.read(KEY, '9999999999999-00000000'), undefined);
    assert.equal((await history.latest(KEY))?.id, r.id);
    assert.equal(await history.read(KEY, '../../etc/passwd'), undefined, 'an id is never a path');
  });
});

describe('a suite item\'s run end (Test Explorer)', () => {
  const runs = () => {
    const records = new Map<string, RunRecord>();
    const changes = new Emitter<{ runIds: string[] }>();
    return {
      get: (id: string) => records.get(id),
      onDidChange: changes.event,
      set(run: RunRecord) {
        records.set(run.id, run);
        changes.fire({ runIds: [run.id] });
      },
    };
  };

  it('waits for the store to say the run ended; a run paused for its token is waited for, one waiting for feedback is not', async () => {
    const store = runs();
    store.set(makeRun({ id: 'r1', state: 'running' }));
    const seen: { end?: RunEnd } = {};
    void waitForRunEnd(store, 'r1', () => ({ dispose: () => undefined })).then((end) => (seen.end = end));
    store.set(makeRun({ id: 'r1', state: 'running', watching: false, stopReason: 'unauthorized' }));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen.end, undefined, 'a run paused for its token goes on once one is set');
    store.set(makeRun({ id: 'r1', state: 'succeeded', finishedAt: 5 }));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((seen as { end?: RunEnd }).end?.kind, 'ended', 'ended once the store says so');

    assert.equal(runEndOf(makeRun({ state: 'awaitingFeedback', needsFeedback: true }))?.kind, 'stopped');
    assert.equal(runEndOf(makeRun({ state: 'running', watching: false, stopReason: 'deadline' }))?.kind, 'stopped');
    assert.equal(runEndOf(undefined)?.kind, 'gone');
  });

  it('a cancel ends the wait and lets go of the store', async () => {
    const store = runs();
    store.set(makeRun({ id: 'r2', state: 'running' }));
    let cancel: () => void = () => undefined;
    let released = false;
    const end = waitForRunEnd(store, 'r2', (listener) => {
      cancel = listener;
      return { dispose: () => (released = true) };
    });
    cancel();
    assert.deepEqual(await end, { kind: 'cancelled' });
    assert.ok(released);
  });

  it('facts: the record\'s end state, the final output (JSON kept), the time from the record, tokens from the model calls when the status has none', () => {
    const run = makeRun({ state: 'succeeded', startedAt: 10_000, finishedAt: 14_500 });
    const details: RunDetails = {
      tasks: [],
      history: [],
      feedbackRounds: [],
      lastSnapshot: { state: 'succeeded', tasks: [], raw: {} },
      finalOutput: { kind: 'json', text: '{\n  "a": 1\n}', json: { a: 1 } },
      events: { kept: 2, dropped: 0, byModel: { 'gpt-4o': { promptTokens: 100, completionTokens: 20 }, '': { totalTokens: 30 } } },
    };
    assert.deepEqual(factsOfRun(run, details, factsFromSnapshot), { state: 'succeeded', output: '{\n  "a": 1\n}', outputJson: { a: 1 }, durationSeconds: 4.5, totalTokens: 150 });
    const failed = factsOfRun(makeRun({ state: 'failed', message: 'Boom', finishedAt: 1 }), { tasks: [], history: [], feedbackRounds: [] }, factsFromSnapshot);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error, 'Boom');
  });
});
