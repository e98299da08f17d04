// The Test Explorer's suite runner (src/suites/suiteRunner.ts) with stand-in sending and runs: a few at a time, each
// item sent once, a crew that cannot take runs pauses the run with its items queued (not lost, not sent), a run that
// may have started is never sent again, a 429 waited out, a cancel sends nothing more.
import * as assert from 'node:assert/strict';
import type { SuiteItem, SuiteItemResult } from '../../src/suites/core/types';
import { type ItemSendOutcome, MAX_RETRIES_PER_ITEM, runSuiteItems, type SuiteRunDeps } from '../../src/suites/suiteRunner';

const items = (n: number): SuiteItem[] => Array.from({ length: n }, (_v, i) => ({ id: `case ${i}`, caseName: `case ${i}`, repeat: 1 }));

/** A deferred promise, for runs that end when the test says so. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const passed = (item: SuiteItem, runId: string): SuiteItemResult => ({ itemId: item.id, caseName: item.caseName, repeat: item.repeat, outcome: 'passed', checks: [], runId });

/** Lets every pending callback run (the runner's awaits), without a clock. */
const settle = async () => {
  for (let i = 0; i < 20; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
};

interface Harness {
  deps: SuiteRunDeps;
  sent: string[];
  running: () => number;
  maxRunning: () => number;
  endRun(id: string): void;
  crewAsks: { message: string; final: boolean }[];
  answerCrew(goOn: boolean): void;
  sleeps: number[];
  cancel(): void;
}

function harness(send: (item: SuiteItem, attempt: number) => ItemSendOutcome | Promise<ItemSendOutcome>): Harness {
  const sent: string[] = [];
  const attempts = new Map<string, number>();
  const runEnds = new Map<string, { resolve(): void }>();
  let running = 0;
  let maxRunning = 0;
  let cancelled = false;
  const crewAsks: { message: string; final: boolean }[] = [];
  let crewAnswer: { resolve(goOn: boolean): void } | undefined;
  const sleeps: number[] = [];
  const deps: SuiteRunDeps = {
    send: async (item) => {
      const attempt = (attempts.get(item.id) ?? 0) + 1;
      attempts.set(item.id, attempt);
      const outcome = await send(item, attempt);
      if (outcome.kind === 'sent') {
        sent.push(item.id);
        running++;
        maxRunning = Math.max(maxRunning, running);
      }
      return outcome;
    },
    finish: async (item, runId) => {
      const end = deferred<void>();
      runEnds.set(runId, end);
      await end.promise;
      running--;
      return passed(item, runId);
    },
    waitForCrew: (reason) => {
      crewAsks.push(reason);
      const answer = deferred<boolean>();
      crewAnswer = answer;
      return answer.promise;
    },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    cancelled: () => cancelled,
  };
  return {
    deps,
    sent,
    running: () => running,
    maxRunning: () => maxRunning,
    endRun: (id) => runEnds.get(id)!.resolve(),
    crewAsks,
    answerCrew: (goOn) => crewAnswer!.resolve(goOn),
    sleeps,
    cancel: () => (cancelled = true),
  };
}

/** Ends every run as soon as it starts. */
async function endAllAsTheyStart(h: Harness, until: Promise<unknown>): Promise<void> {
  let done = false;
  void until.then(() => (done = true));
  const ended = new Set<string>();
  while (!done) {
    await settle();
    for (const id of h.sent) {
      if (!ended.has(id)) {
        ended.add(id);
        h.endRun(`run-${id}`);
      }
    }
  }
}

describe('suite runner (Test Explorer)', () => {
  it('runs every item once, never more than the concurrency at a time; results in the items\' order', async () => {
    const h = harness((item) => ({ kind: 'sent', runId: `run-${item.id}` }));
    const all = items(10);
    const run = runSuiteItems(all, 3, h.deps);
    await settle();
    assert.equal(h.running(), 3, 'three at a time');
    await endAllAsTheyStart(h, run);
    const outcome = await run;
    assert.equal(h.maxRunning(), 3);
    assert.deepEqual([...h.sent].sort(), all.map((i) => i.id).sort(), 'each item sent once');
    assert.deepEqual(outcome.results.map((r) => r?.itemId), all.map((i) => i.id));
    assert.deepEqual(outcome.notRun, []);
  });

  it('a crew that cannot take runs pauses the run: the rest stay queued, unsent, until the crew may be tried again; asked once', async () => {
    let available = true;
    const h = harness((item) => (available || item.id === 'case 0' ? { kind: 'sent', runId: `run-${item.id}` } : { kind: 'crewUnavailable', message: 'No token for Echo.', final: true }));
    const all = items(6);
    const run = runSuiteItems(all, 2, h.deps);
    await settle();
    available = false;
    h.endRun('run-case 0');
    h.endRun('run-case 1');
    await settle();
    assert.deepEqual(h.crewAsks, [{ message: 'No token for Echo.', final: true }], 'one pause for both workers');
    assert.deepEqual(h.sent, ['case 0', 'case 1'], 'nothing more is sent while paused');
    available = true;
    h.answerCrew(true);
    const outcome = await Promise.all([run, endAllAsTheyStart(h, run)]).then(([o]) => o);
    assert.deepEqual([...h.sent].sort(), all.map((i) => i.id).sort(), 'every item sent once: none lost, none twice');
    assert.ok(outcome.results.every((r) => r?.outcome === 'passed'));
    assert.equal(outcome.pausedBecause, undefined);
  });

  it('paused, then stopped: the items not sent are listed in order, with the reason, and were never sent', async () => {
    const h = harness((item) => (item.id === 'case 0' ? { kind: 'sent', runId: `run-${item.id}` } : { kind: 'crewUnavailable', message: 'The crew is unreachable.', final: false }));
    const run = runSuiteItems(items(5), 2, h.deps);
    await settle();
    h.endRun('run-case 0');
    await settle();
    h.answerCrew(false);
    const outcome = await run;
    assert.deepEqual(h.sent, ['case 0']);
    assert.deepEqual(outcome.notRun.map((i) => i.id), ['case 1', 'case 2', 'case 3', 'case 4']);
    assert.equal(outcome.pausedBecause, 'The crew is unreachable.');
    assert.deepEqual(outcome.results.map((r) => r?.outcome), ['passed', undefined, undefined, undefined, undefined]);
  });

  it('a kickoff that may have reached the crew is an error and is never sent again; a refused one too', async () => {
    const attempts: string[] = [];
    const h = harness((item) => {
      attempts.push(item.id);
      return item.id === 'case 1' ? { kind: 'uncertain', message: 'The crew answered 502: it may have started.' } : { kind: 'refused', message: 'Missing input topic.' };
    });
    const outcome = await runSuiteItems(items(3), 2, h.deps);
    assert.deepEqual([...attempts].sort(), ['case 0', 'case 1', 'case 2'], 'each tried once');
    assert.deepEqual(outcome.results.map((r) => [r?.outcome, r?.error]), [
      ['error', 'Missing input topic.'],
      ['error', 'The crew answered 502: it may have started.'],
      ['error', 'Missing input topic.'],
    ]);
  });

  it('a 429 is waited out and the same item sent again; past the retries it pauses the run', async () => {
    const h = harness((item, attempt) => (attempt < 3 ? { kind: 'retryLater', delayMs: 2_000, message: 'Too many requests.' } : { kind: 'sent', runId: `run-${item.id}` }));
    const run = runSuiteItems(items(1), 1, h.deps);
    await endAllAsTheyStart(h, run);
    assert.deepEqual(h.sleeps, [2_000, 2_000]);
    assert.equal((await run).results[0]?.outcome, 'passed');

    const stubborn = harness(() => ({ kind: 'retryLater', delayMs: 1_000, message: 'Too many requests.' }));
    const paused = runSuiteItems(items(2), 1, stubborn.deps);
    await settle();
    assert.equal(stubborn.sleeps.length, MAX_RETRIES_PER_ITEM, 'bounded retries');
    assert.deepEqual(stubborn.crewAsks, [{ message: 'Too many requests.', final: false }]);
    stubborn.answerCrew(false);
    assert.deepEqual((await paused).notRun.map((i) => i.id), ['case 0', 'case 1']);
  });

  it('a cancel sends nothing more; runs under way are still finished', async () => {
    const h = harness((item) => ({ kind: 'sent', runId: `run-${item.id}` }));
    const run = runSuiteItems(items(6), 2, h.deps);
    await settle();
    h.cancel();
    h.endRun('run-case 0');
    h.endRun('run-case 1');
    const outcome = await run;
    assert.deepEqual(h.sent, ['case 0', 'case 1']);
    assert.deepEqual(outcome.notRun.map((i) => i.id), ['case 2', 'case 3', 'case 4', 'case 5']);
    assert.equal(outcome.pausedBecause, undefined);
  });
});
