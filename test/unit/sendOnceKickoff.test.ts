// Issue #46: the kickoff of one pending run goes out once, machine-wide (its mark `kickoff:<run id>`); one that may
// have reached the crew is never sent again by itself: only a new pending run, which the user chose knowingly, goes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewApiError } from '../../src/api/errors';
import type { NewRun, RunRecord } from '../../src/runTracking/model';
import { SendOnce } from '../../src/runTracking/sendOnce';
import * as started from '../../src/runTracking/startRun';

const CREW = { url: 'https://crew.example.com', name: 'Writers' };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The crew's /kickoff: every call counted; each answers when the test lets it (or at once with `answer`). */
class Crew {
  calls = 0;
  private waiting: (() => void)[] = [];
  held = false;
  constructor(private answer: () => string = () => `k${this.calls}`) {}
  answerWith(answer: () => string): void {
    this.answer = answer;
  }
  readonly kickoff = async (): Promise<string> => {
    this.calls++;
    if (this.held) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    return this.answer();
  };
  release(): void {
    this.held = false;
    this.waiting.splice(0).forEach((go) => go());
  }
}

describe('Send once: a pending run\u2019s kickoff (#46)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kickoff-once-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A window: its own marks over the shared folder, and the runs it recorded. */
  function windowOf(name: string, crew: Crew) {
    const added: NewRun[] = [];
    const sends = new SendOnce(path.join(dir, 'sending'), name);
    const services: started.RunStarting = {
      client: { kickoff: crew.kickoff },
      runs: { add: async (run: NewRun) => (added.push(run), { id: run.id ?? 'new', label: 'run', kickoffId: run.kickoffId } as RunRecord) },
      poller: { watch: () => undefined },
      presets: { rememberLastUsed: async () => undefined },
      log: quiet,
      sends,
    };
    return { services, added, sends };
  }

  it('the same pending run kicked off twice at once, from two windows, goes out once; the other is told it is on its way', async () => {
    const crew = new Crew();
    crew.held = true;
    const a = windowOf('a', crew);
    const b = windowOf('b', crew);
    const runId = started.newRunId();
    let refused: unknown;
    const both = Promise.all(
      [a, b].map((w) => started.startRun(w.services, CREW, { topic: 'x' }, undefined, { runId }).catch((e: unknown) => void (refused = e))),
    );
    // One window's kickoff is at the crew, which has not answered yet; the other's was refused here.
    for (let i = 0; i < 500 && !(crew.calls === 1 && refused !== undefined); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    crew.release();
    const [run] = (await both).filter((r) => r !== undefined);
    assert.equal(crew.calls, 1, 'one kickoff');
    assert.ok(started.isKickoffNotSent(refused), String(refused));
    assert.equal(refused.blocked.kind, 'inFlight');
    assert.equal(run?.id, runId, 'recorded under its pending id');
    // Once it went, it is never sent again either.
    const again = await started.startRun(b.services, CREW, { topic: 'x' }, undefined, { runId }).then(() => undefined, (e: unknown) => e);
    assert.ok(started.isKickoffNotSent(again) && again.blocked.kind === 'sent', String(again));
    assert.deepEqual(again.blocked.mark.ref, { runId, kickoffId: 'k1' }, 'the mark names the run it started');
    assert.equal(crew.calls, 1);
  });

  it('a kickoff that may have reached the crew stays uncertain: that pending run is never sent again; a new one, chosen by the user, goes', async () => {
    const crew = new Crew(() => {
      throw new CrewApiError('server', 'The crew failed (500).', { status: 500 });
    });
    const a = windowOf('a', crew);
    const runId = started.newRunId();
    const first = await started.startRun(a.services, CREW, { topic: 'x' }, undefined, { runId }).then(() => undefined, (e: unknown) => e);
    assert.ok(first instanceof CrewApiError, 'the failure itself is the caller\u2019s to tell');
    const retry = await started.startRun(a.services, CREW, { topic: 'x' }, undefined, { runId }).then(() => undefined, (e: unknown) => e);
    assert.ok(started.isKickoffNotSent(retry) && retry.blocked.kind === 'uncertain', String(retry));
    assert.equal(crew.calls, 1, 'the uncertain pending run was not sent again');
    crew.answerWith(() => 'k-new');
    const run = await started.startRun(a.services, CREW, { topic: 'x' }, undefined, { runId: started.newRunId() });
    assert.equal(run.kickoffId, 'k-new');
    assert.equal(crew.calls, 2);
  });

  it('a kickoff the crew refused, or that never left, frees its pending run: it goes once the cause is fixed', async () => {
    const failures = [new CrewApiError('unauthorized', 'No.', { status: 401 }), new CrewApiError('network', 'Refused.', { notSent: true }), new CrewApiError('rateLimited', 'Later.', { status: 429 })];
    const crew = new Crew(() => {
      throw failures.shift()!;
    });
    const a = windowOf('a', crew);
    const runId = started.newRunId();
    for (let i = 0; i < 3; i++) {
      assert.ok((await started.startRun(a.services, CREW, {}, undefined, { runId }).then(() => undefined, (e: unknown) => e)) instanceof CrewApiError);
    }
    crew.answerWith(() => 'k-ok');
    assert.equal((await started.startRun(a.services, CREW, {}, undefined, { runId })).id, runId);
    assert.equal(crew.calls, 4);
  });

  it('a batch row\u2019s kickoff takes no mark of its own: its runner holds the row\u2019s', async () => {
    const crew = new Crew();
    const a = windowOf('a', crew);
    const runId = started.newRunId();
    await started.startRun(a.services, CREW, {}, undefined, { runId, heldMark: 'batchRow:b1:0' });
    assert.equal(await a.sends.peek(`kickoff:${runId}`), undefined);
    assert.equal(crew.calls, 1);
  });
});
