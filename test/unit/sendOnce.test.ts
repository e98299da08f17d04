// Issue #46: an answer to a paused run goes out once, machine-wide. Two windows share the storage folder
// (run records, details, send marks) as VS Code windows do; each has its own run store and its own marks.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewApiError } from '../../src/api/errors';
import type { ResumeResult, StatusSnapshot } from '../../src/api/types';
import { RunStore } from '../../src/runTracking/runStore';
import { classifySendFailure, queuedKickoffFailure, SendOnce } from '../../src/runTracking/sendOnce';
import { draftOfRound, isAnswerAlreadyGiven, isAnswerUncertain, type RunResuming } from '../../src/runTracking/sendResume';
import type * as SendResumeModule from '../../src/runTracking/sendResume';
import { FakeClock } from './helpers/fakeClock';
import { MementoHub } from './helpers/laggingMemento';
import { quiet } from './helpers/pollingWindows';

const CREW = 'https://crew-a.example.com';
const paused: StatusSnapshot = { state: 'awaitingFeedback', tasks: [], raw: { state: 'awaitingFeedback' }, feedback: { taskId: 't1', taskName: 'review' } };

/** The crew's /resume: every call counted; each answers when the test lets it. */
class Crew {
  calls = 0;
  private waiting: (() => void)[] = [];
  constructor(private readonly answer: () => ResumeResult = () => ({ kind: 'resumed' })) {}
  readonly resume = async (): Promise<ResumeResult> => {
    this.calls++;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.answer();
  };
  /** Waits for a call, then lets every call made so far answer. */
  async answerAll(): Promise<void> {
    while (this.waiting.length === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const go of this.waiting.splice(0)) {
      go();
    }
  }
}

describe('Send once: an answer to a paused run, across windows (#46)', () => {
  let dir: string;
  const hub = new MementoHub();
  const clock = new FakeClock(1_700_000_000_000);
  const stores: RunStore[] = [];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'send-once-'));
  });

  afterEach(async () => {
    for (const store of stores.splice(0)) {
      await store.flush();
      store.dispose();
    }
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function window(name: string, crew: { resume: () => Promise<ResumeResult> }, alive = true): Promise<RunResuming & { runs: RunStore }> {
    const runs = new RunStore(hub.window(), dir, quiet, { clock });
    await runs.load();
    stores.push(runs);
    return { client: crew, runs, poller: { pokeRun: () => undefined }, log: quiet, sends: new SendOnce(path.join(dir, 'sending'), name, () => clock.now(), () => alive) };
  }

  async function pausedRun(a: RunStore, ...others: RunStore[]) {
    const run = await a.add({ crewUrl: CREW, crewName: 'Writers', kickoffId: 'k1', inputs: { topic: 'x' } });
    await a.applyPolled(run.id, undefined, paused);
    for (const other of others) {
      await other.reload();
    }
    return run.id;
  }

  const answer = { approve: false, feedback: 'Shorter', taskId: 't1', round: 1 };

  /** Each window is an extension host of its own: its own copy of the module, nothing shared in memory. */
  const copies = new Map<RunResuming, typeof SendResumeModule>();
  function sendResume(w: RunResuming, ...rest: Parameters<typeof SendResumeModule.sendResume> extends [unknown, ...infer R] ? R : never) {
    let copy = copies.get(w);
    if (!copy) {
      const file = require.resolve('../../src/runTracking/sendResume');
      delete require.cache[file];
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy per window, as each host has
      copy = require(file) as typeof SendResumeModule;
      copies.set(w, copy);
    }
    return copy.sendResume(w, ...rest);
  }

  it('two windows answering the same round at once send one /resume; the other is told it is on its way', async () => {
    const crew = new Crew();
    const a = await window('a', crew);
    const b = await window('b', crew);
    const id = await pausedRun(a.runs, b.runs);
    const fromA = sendResume(a, a.runs.get(id)!, answer);
    const fromB = sendResume(b, b.runs.get(id)!, answer);
    await crew.answerAll();
    const outcomes = await Promise.allSettled([fromA, fromB]);
    assert.equal(crew.calls, 1, 'both windows sent /resume');
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as unknown);
    assert.equal(refused.length, 1);
    assert.ok(isAnswerAlreadyGiven(refused[0]), String(refused[0]));
  });

  it('an answer another window sent is not sent again by a window that has not seen it yet', async () => {
    const crew = new Crew();
    const a = await window('a', crew);
    const b = await window('b', crew);
    const id = await pausedRun(a.runs, b.runs);
    const fromA = sendResume(a, a.runs.get(id)!, answer);
    await crew.answerAll();
    await fromA;
    // B has not re-read the run: it still shows it waiting.
    assert.equal(b.runs.get(id)?.needsFeedback, true);
    await assert.rejects(sendResume(b, b.runs.get(id)!, answer), (e) => isAnswerAlreadyGiven(e));
    assert.equal(crew.calls, 1);
  });

  it('a send that may have reached the crew leaves the round uncertain in every window: nothing is sent again by itself', async () => {
    const crew = new Crew(() => {
      throw new CrewApiError('network', 'socket hang up');
    });
    const a = await window('a', crew);
    const b = await window('b', crew);
    const id = await pausedRun(a.runs, b.runs);
    const fromA = sendResume(a, a.runs.get(id)!, answer);
    await crew.answerAll();
    await assert.rejects(fromA, (e) => e instanceof CrewApiError);
    await assert.rejects(sendResume(b, b.runs.get(id)!, answer), (e) => isAnswerUncertain(e));
    await assert.rejects(sendResume(a, a.runs.get(id)!, answer), (e) => isAnswerUncertain(e));
    assert.equal(crew.calls, 1);
  });

  it('a window gone mid-send leaves its answer uncertain for the others', async () => {
    const crew = new Crew();
    const a = await window('a', crew);
    const id = await pausedRun(a.runs);
    void sendResume(a, a.runs.get(id)!, answer).catch(() => undefined); // Window A's host dies before the reply.
    while (crew.calls === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const b = await window('b', crew, false);
    await b.runs.reload();
    await assert.rejects(sendResume(b, b.runs.get(id)!, answer), (e) => isAnswerUncertain(e));
    assert.equal(crew.calls, 1);
    await crew.answerAll();
  });

  it('a send the crew refused frees the round: it can be answered again', async () => {
    let refuse = true;
    const crew = new Crew(() => {
      if (refuse) {
        throw new CrewApiError('unauthorized', 'Invalid token', { status: 401 });
      }
      return { kind: 'resumed' };
    });
    const a = await window('a', crew);
    const b = await window('b', crew);
    const id = await pausedRun(a.runs, b.runs);
    const fromA = sendResume(a, a.runs.get(id)!, answer);
    await crew.answerAll();
    await assert.rejects(fromA, (e) => e instanceof CrewApiError && e.kind === 'unauthorized');
    refuse = false;
    const fromB = sendResume(b, b.runs.get(id)!, answer);
    await crew.answerAll();
    await fromB;
    assert.equal(crew.calls, 2);
  });

  it('the next round is a new item: answering it is not blocked by the last round\u2019s mark', async () => {
    const crew = new Crew();
    const a = await window('a', crew);
    const id = await pausedRun(a.runs);
    const first = sendResume(a, a.runs.get(id)!, answer);
    await crew.answerAll();
    await first;
    await a.runs.applyPolled(id, undefined, paused);
    const second = sendResume(a, a.runs.get(id)!, { ...answer, round: 2 });
    await crew.answerAll();
    await second;
    assert.equal(crew.calls, 2);
  });

  it('a draft belongs to its round: text kept at round 1 is not offered at round 2', () => {
    const draft = { text: 'More sources', at: 10, problem: 'badRequest', round: 1 };
    assert.equal(draftOfRound({ feedbackDraft: draft, feedbackRounds: [] }), draft);
    assert.equal(draftOfRound({ feedbackDraft: draft, feedbackRounds: [{ at: 5, approve: true, feedback: '', taskId: 't1' }] }), undefined);
    // Kept before drafts had rounds: it belongs to the round under way when it was written.
    const older = { text: 'Old words', at: 10 };
    assert.equal(draftOfRound({ feedbackDraft: older, feedbackRounds: [{ at: 5, approve: true, feedback: '', taskId: 't1' }] }), older);
    assert.equal(draftOfRound({ feedbackDraft: older, feedbackRounds: [{ at: 20, approve: true, feedback: '', taskId: 't1' }] }), undefined);
  });

  it('tidies settled marks once old, never one still sending', async () => {
    let now = 1_000;
    const sends = new SendOnce(path.join(dir, 'sending'), 'a', () => now);
    const sent = await sends.claim('resume:r1:1');
    const sending = await sends.claim('resume:r2:1');
    assert.ok(!('kind' in sent) && !('kind' in sending));
    await sent.settle('sent');
    now += 10_000;
    await sends.prune(5_000);
    assert.equal(await sends.peek('resume:r1:1'), undefined);
    assert.equal((await sends.peek('resume:r2:1'))?.state, 'sending');
  });

  it('classifies failures: refused, retry later, may have acted', () => {
    assert.equal(classifySendFailure(new CrewApiError('badRequest', 'not waiting', { status: 400 })), 'refused');
    assert.equal(classifySendFailure(new CrewApiError('unauthorized', 'no', { status: 401 })), 'refused');
    assert.equal(classifySendFailure(new CrewApiError('rateLimited', 'slow down', { status: 429 })), 'retryLater');
    assert.equal(classifySendFailure(new CrewApiError('network', 'refused', { notSent: true })), 'retryLater');
    assert.equal(classifySendFailure(new CrewApiError('network', 'reset')), 'mayHaveActed');
    assert.equal(classifySendFailure(new CrewApiError('server', 'boom', { status: 500 })), 'mayHaveActed');
    assert.equal(classifySendFailure(new Error('anything else')), 'mayHaveActed');
  });
});

describe('a queued kickoff that failed (a batch row, a suite case): the one reading', () => {
  it('waits on a 429, pauses the queue without a token or before anything left, refuses bad inputs, and never resends a maybe', () => {
    assert.deepEqual(queuedKickoffFailure(new CrewApiError('rateLimited', 'slow down', { status: 429, retryAfterMs: 5_000 })), { kind: 'retryLater', delayMs: 5_000 });
    assert.deepEqual(queuedKickoffFailure(new CrewApiError('rateLimited', 'slow down', { status: 429 })), { kind: 'retryLater', delayMs: 2_000 });
    assert.deepEqual(queuedKickoffFailure(new CrewApiError('unauthorized', 'no', { status: 401 })), { kind: 'crewUnavailable', final: true });
    assert.deepEqual(queuedKickoffFailure(new CrewApiError('network', 'refused', { notSent: true })), { kind: 'crewUnavailable', final: false });
    assert.deepEqual(queuedKickoffFailure(new CrewApiError('missingInputs', 'topic', { status: 422 })), { kind: 'refused' });
    assert.deepEqual(queuedKickoffFailure(new CrewApiError('network', 'reset')), { kind: 'uncertain' }, 'a reset after sending may have acted');
    assert.deepEqual(queuedKickoffFailure(new Error('anything else')), { kind: 'uncertain' });
  });
});
