import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewApiError, type CrewApiErrorKind } from '../../src/api/errors';
import type { RunState, StatusSnapshot, StatusSource } from '../../src/api/types';
import type { RunChange } from '../../src/runTracking/model';
import type { Logger } from '../../src/util/logger';
import { type PollerInspection, type PollerOptions, type PollResult, type RunOwnership, RunPoller } from '../../src/runTracking/poller';
import { type KeyValueStore, RunStore } from '../../src/runTracking/runStore';
import { Emitter } from '../../src/util/event';
import { FakeClock } from './helpers/fakeClock';

const CREW_A = 'https://crew-a.example.com';
const CREW_B = 'https://crew-b.example.com';

type Reply = StatusSnapshot | Error | { delayMs: number; reply: StatusSnapshot | Error };
type Script = (call: number) => Reply;

interface Call {
  crewUrl: string;
  kickoffId: string;
  at: number;
}

/** Answers from a script per kickoff id; a reply with `delayMs` resolves after that much fake time. */
class ScriptedSource implements StatusSource {
  readonly calls: Call[] = [];
  private readonly scripts = new Map<string, Script>();
  private readonly callCounts = new Map<string, number>();
  held = 0;
  private readonly inFlightByCrew = new Map<string, number>();
  readonly maxInFlightByCrew = new Map<string, number>();

  constructor(private readonly clock: FakeClock) {}

  script(kickoffId: string, script: Script): void {
    this.scripts.set(kickoffId, script);
  }

  callsFor(kickoffId: string): number[] {
    return this.calls.filter((c) => c.kickoffId === kickoffId).map((c) => c.at);
  }

  async getStatus(crewUrl: string, kickoffId: string, signal?: AbortSignal): Promise<StatusSnapshot> {
    const n = this.callCounts.get(kickoffId) ?? 0;
    this.callCounts.set(kickoffId, n + 1);
    this.calls.push({ crewUrl, kickoffId, at: this.clock.now() });
    const script = this.scripts.get(kickoffId);
    if (!script) {
      throw new Error(`no script for ${kickoffId}`);
    }
    let reply = script(n);
    if ('delayMs' in reply) {
      const { delayMs, reply: later } = reply;
      this.enter(crewUrl);
      this.held++;
      try {
        await new Promise<void>((resolve, reject) => {
          const handle = this.clock.setTimeout(resolve, delayMs);
          signal?.addEventListener('abort', () => {
            this.clock.clearTimeout(handle);
            reject(new Error('aborted'));
          });
        });
      } finally {
        this.held--;
        this.inFlightByCrew.set(crewUrl, (this.inFlightByCrew.get(crewUrl) ?? 1) - 1);
      }
      reply = later;
    }
    if (reply instanceof Error) {
      throw reply;
    }
    return reply;
  }

  private enter(crewUrl: string): void {
    const count = (this.inFlightByCrew.get(crewUrl) ?? 0) + 1;
    this.inFlightByCrew.set(crewUrl, count);
    this.maxInFlightByCrew.set(crewUrl, Math.max(count, this.maxInFlightByCrew.get(crewUrl) ?? 0));
  }
}

function snap(state: RunState, extra: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return { state, tasks: [], raw: { state }, ...extra };
}

function memoryKv(): KeyValueStore {
  const data = new Map<string, string>();
  return {
    get: <T>(key: string) => (data.has(key) ? (JSON.parse(data.get(key)!) as T) : undefined),
    update: async (key, value) => {
      data.set(key, JSON.stringify(value));
    },
  };
}

function recordingLogger(): Logger & { warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return { warnings, errors, info: () => undefined, warn: (m) => warnings.push(m), error: (m) => errors.push(m) };
}

const realTick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RunPoller', () => {
  let dir: string;
  let clock: FakeClock;
  let kv: KeyValueStore;
  let store: RunStore;
  let source: ScriptedSource;
  let logger: ReturnType<typeof recordingLogger>;
  let poller: RunPoller | undefined;
  /** The inspection of the poller makePoller made last. */
  let polling: PollerInspection;
  let polls: PollResult[];
  const t0 = 1_700_000_000_000;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-poller-'));
    clock = new FakeClock(t0);
    kv = memoryKv();
    logger = recordingLogger();
    store = new RunStore(kv, dir, logger, { clock });
    await store.load();
    source = new ScriptedSource(clock);
    polls = [];
  });

  afterEach(async () => {
    poller?.dispose();
    poller = undefined;
    await store.flush();
    await fs.rm(dir, { recursive: true, force: true });
  });

  function makePoller(options: PollerOptions = {}, ownership?: RunOwnership, onStore = store): RunPoller {
    // The timings these tests were written for; the fast phase and product defaults have tests of their own.
    const p = new RunPoller(onStore, source, clock, logger, ownership, { random: () => 0.5, firstDelayMs: 1_500, fastIntervalMs: 1_500, fastPhaseMs: 0, ...options, inspect: (i) => (polling = i) });
    p.onDidPoll((e) => polls.push(e));
    // Let IO finish, but do not wait for requests that only the fake clock can complete.
    clock.settle = async () => {
      for (let quiet = 0; quiet < 3; ) {
        await realTick();
        quiet = polling.pendingOperations() <= source.held ? quiet + 1 : 0;
      }
    };
    poller = p;
    return p;
  }

  async function addRun(kickoffId: string, crewUrl = CREW_A) {
    return store.add({ crewUrl, crewName: 'Crew', kickoffId, inputs: { topic: kickoffId } });
  }

  function gaps(times: number[]): number[] {
    return times.slice(1).map((t, i) => t - times[i]);
  }

  it('polls first after 1.5 s, backs off ×1.5 to the 15 s cap while nothing changes', async () => {
    const run = await addRun('k1');
    source.script('k1', () => snap('running', { message: 'Task is Running' }));
    makePoller().start();
    await clock.advance(1_499);
    assert.equal(source.calls.length, 0);
    await clock.advance(1);
    assert.deepEqual(source.callsFor('k1'), [t0 + 1_500]);
    await clock.advance(70_000);
    assert.deepEqual(gaps(source.callsFor('k1')), [1_500, 2_250, 3_375, 5_062.5, 7_593.75, 11_390.625, 15_000, 15_000]);
    assert.equal(store.get(run.id)?.state, 'running');
  });

  it('polls at the fast interval through the fast phase, then backs off (product defaults)', async () => {
    await addRun('k1');
    source.script('k1', () => snap('running'));
    makePoller({ firstDelayMs: undefined, fastIntervalMs: undefined, fastPhaseMs: undefined }).start();
    await clock.advance(1_250 + 20_000 + 10_000);
    const gapsSeen = gaps(source.callsFor('k1'));
    assert.equal(source.callsFor('k1')[0], t0 + 1_250);
    // 1.25 s until 20 s after the first poll was due, then ×1.5.
    assert.deepEqual(gapsSeen.slice(0, 16), Array(16).fill(1_250));
    assert.deepEqual(gapsSeen.slice(16, 18), [1_875, 2_812.5]);
  });

  it('never lets jitter stretch a wait past the cap', async () => {
    await addRun('k1');
    source.script('k1', () => snap('running'));
    makePoller({ random: () => 0.999_999 }).start();
    await clock.advance(200_000);
    const gapsSeen = gaps(source.callsFor('k1'));
    assert.ok(gapsSeen.length > 10);
    assert.ok(Math.max(...gapsSeen) <= 15_000, `longest gap ${Math.max(...gapsSeen)}`);
    assert.equal(gapsSeen[gapsSeen.length - 1], 15_000);
  });

  it('returns to the fast interval when something meaningful changes', async () => {
    await addRun('k1');
    let progress = 0;
    source.script('k1', () => snap('running', { progress: { unit: 'task', completed: progress, total: 3 } }));
    makePoller().start();
    await clock.advance(70_000);
    const before = source.callsFor('k1').length;
    assert.deepEqual(gaps(source.callsFor('k1')).slice(-2), [15_000, 15_000]);
    progress = 1;
    await clock.advance(20_000);
    const times = source.callsFor('k1').slice(before - 1);
    // The poll that sees the new progress is followed by a fast one, then backoff starts again.
    assert.deepEqual(gaps(times).slice(0, 3), [15_000, 1_500, 2_250]);
  });

  it('a run whose state flips RUNNING↔PENDING backs off to the 15 s cap: a flip back is not news (#47)', async () => {
    await addRun('k1');
    source.script('k1', (call) => snap(call % 2 === 0 ? 'running' : 'queued'));
    makePoller().start();
    await clock.advance(120_000);
    const times = source.callsFor('k1');
    assert.deepEqual(gaps(times).slice(-3), [15_000, 15_000, 15_000], `gaps ${gaps(times).join(', ')}`);
    // Every 1.5 s for ever would be 80 polls in these 2 minutes.
    assert.ok(times.length <= 16, `${times.length} polls in 2 minutes`);
  });

  it('keeps every delay within ±20% jitter', async () => {
    await addRun('low');
    source.script('low', () => snap('running'));
    makePoller({ random: () => 0 }).start();
    await clock.advance(1_199);
    assert.equal(source.calls.length, 0);
    await clock.advance(1);
    assert.deepEqual(source.callsFor('low'), [t0 + 1_200]);
    poller!.dispose();

    const start = clock.now();
    await addRun('high');
    source.script('high', () => snap('running'));
    makePoller({ random: () => 0.999_999 }).start();
    await clock.advance(1_799);
    assert.equal(source.callsFor('high').length, 0);
    await clock.advance(1);
    assert.equal(source.callsFor('high').length, 1);
    assert.ok(source.callsFor('high')[0] - start > 1_799.99);
  });

  it('multiplies delays by the unfocused factor and speeds up again on focus', async () => {
    await addRun('k1');
    source.script('k1', () => snap('running'));
    const p = makePoller({ unfocusedFactor: 3 });
    p.setFocused(false);
    p.start();
    await clock.advance(4_499);
    assert.equal(source.calls.length, 0);
    await clock.advance(1);
    assert.deepEqual(source.callsFor('k1'), [t0 + 4_500]);
    // Next base delay 1.5 s → 4.5 s unfocused; focusing brings it back to 1.5 s after the last poll.
    await clock.advance(1_000);
    p.setFocused(true);
    await clock.advance(500);
    assert.deepEqual(source.callsFor('k1'), [t0 + 4_500, t0 + 6_000]);
  });

  it('polls a viewed run at the fast pace (2.5 s cap, even unfocused) while other runs keep backing off', async () => {
    const viewed = await addRun('seen');
    await addRun('other');
    source.script('seen', () => snap('running'));
    source.script('other', () => snap('running'));
    const p = makePoller();
    p.start();
    await clock.advance(70_000);
    // Nobody looks yet: both at the slow cap.
    assert.deepEqual(gaps(source.callsFor('seen')).slice(-2), [15_000, 15_000]);
    const last = source.callsFor('seen').at(-1)!;
    // Viewed 1 s after its last check: due 2.5 s after that check, not 15 s; then every 2.5 s, unfocused too.
    await clock.advance(last + 1_000 - clock.now());
    p.setViewed([viewed.id]);
    p.setFocused(false);
    const otherBefore = source.callsFor('other').length;
    await clock.advance(10_000);
    assert.deepEqual(source.callsFor('seen').filter((t) => t > last).map((t) => t - last), [2_500, 5_000, 7_500, 10_000]);
    assert.ok(source.callsFor('other').length - otherBefore <= 1, 'the run nobody views stays slow');
    // No longer viewed: back to growing towards the slow cap.
    p.setViewed([]);
    p.setFocused(true);
    const from = source.callsFor('seen').length;
    await clock.advance(60_000);
    assert.deepEqual(gaps(source.callsFor('seen').slice(from - 1)).slice(0, 3), [2_500, 3_750, 5_625]);
  });

  it('never has more than 4 requests in flight per crew, while other crews go on', async () => {
    for (let i = 0; i < 6; i++) {
      await addRun(`a${i}`, CREW_A);
      source.script(`a${i}`, () => ({ delayMs: 5_000, reply: snap('running') }));
    }
    await addRun('b0', CREW_B);
    source.script('b0', () => ({ delayMs: 5_000, reply: snap('running') }));
    makePoller().start();
    await clock.advance(1_500);
    assert.equal(source.calls.filter((c) => c.crewUrl === CREW_A).length, 4);
    assert.equal(source.calls.filter((c) => c.crewUrl === CREW_B).length, 1);
    await clock.advance(5_000);
    assert.equal(source.calls.filter((c) => c.crewUrl === CREW_A).length, 6);
    await clock.advance(30_000);
    assert.equal(source.maxInFlightByCrew.get(CREW_A), 4);
    assert.equal(source.maxInFlightByCrew.get(CREW_B), 1);
  });

  it('honours Retry-After for the run, and for the whole crew on 429', async () => {
    await addRun('k1');
    await addRun('k2');
    await addRun('kb', CREW_B);
    source.script('k1', (n) => (n === 0 ? new CrewApiError('rateLimited', 'Too many requests', { status: 429, retryAfterMs: 20_000 }) : snap('running')));
    source.script('k2', (n) => (n === 0 ? { delayMs: 1, reply: snap('running') } : snap('running')));
    source.script('kb', () => snap('running'));
    makePoller().start();
    await clock.advance(1_500);
    const hitAt = source.callsFor('k1')[0];
    await clock.advance(19_999);
    // The crew waits: k2 was already in flight when the 429 came, but is not asked again.
    assert.equal(source.callsFor('k1').length, 1);
    assert.equal(source.callsFor('k2').length, 1);
    assert.ok(source.callsFor('kb').length >= 4);
    await clock.advance(1);
    assert.equal(source.callsFor('k1')[1], hitAt + 20_000);
    assert.equal(source.callsFor('k2')[1], hitAt + 20_000);
  });

  it('honours Retry-After of a 503 for that run only', async () => {
    await addRun('k1');
    await addRun('k2');
    source.script('k1', (n) => (n === 0 ? new CrewApiError('server', 'Unavailable', { status: 503, retryAfterMs: 30_000 }) : snap('running')));
    source.script('k2', () => snap('running'));
    makePoller().start();
    await clock.advance(29_999 + 1_500);
    assert.equal(source.callsFor('k1').length, 1);
    assert.ok(source.callsFor('k2').length >= 5);
    await clock.advance(1);
    assert.deepEqual(source.callsFor('k1'), [t0 + 1_500, t0 + 31_500]);
  });

  it('on 401 pauses all runs of the crew, asks for a token once, and resumes on resumeCrew', async () => {
    const a1 = await addRun('a1');
    const a2 = await addRun('a2');
    const b1 = await addRun('b1', CREW_B);
    let tokenOk = false;
    const reply = () => (tokenOk ? snap('running') : new CrewApiError('unauthorized', 'Invalid or missing authentication credentials', { status: 401 }));
    source.script('a1', reply);
    source.script('a2', reply);
    source.script('b1', () => snap('running'));
    const p = makePoller();
    const tokenRequests: string[] = [];
    p.onDidNeedToken((need) => tokenRequests.push(need.crewUrl));
    p.start();
    await clock.advance(60_000);
    assert.deepEqual(tokenRequests, [CREW_A]);
    assert.equal(source.calls.filter((c) => c.crewUrl === CREW_A).length <= 2, true);
    const aCallsWhilePaused = source.calls.filter((c) => c.crewUrl === CREW_A).length;
    for (const id of [a1.id, a2.id]) {
      assert.equal(store.get(id)?.watching, false);
      assert.equal(store.get(id)?.stopReason, 'unauthorized');
      assert.equal(store.get(id)?.state, 'queued');
    }
    assert.equal(store.get(b1.id)?.watching, true);
    assert.ok(source.callsFor('b1').length >= 6);
    await clock.advance(60_000);
    assert.equal(source.calls.filter((c) => c.crewUrl === CREW_A).length, aCallsWhilePaused);

    tokenOk = true;
    await p.resumeCrew(CREW_A);
    await clock.advance(1_500);
    assert.equal(store.get(a1.id)?.state, 'running');
    assert.equal(store.get(a2.id)?.state, 'running');
    assert.equal(store.get(a1.id)?.watching, true);
    assert.equal(store.get(a1.id)?.stopReason, undefined);
    assert.deepEqual(tokenRequests, [CREW_A]);
  });

  it('keeps polling NOT FOUND during the grace period after kickoff, then stops as expired, not failed', async () => {
    const run = await addRun('k1');
    source.script('k1', () => snap('notFound', { message: 'Task not found or Invalid kickoff id' }));
    makePoller().start();
    await clock.advance(119_000);
    assert.equal(store.get(run.id)?.watching, true);
    assert.equal(store.get(run.id)?.state, 'queued');
    const callsDuringGrace = source.callsFor('k1').length;
    assert.ok(callsDuringGrace >= 8, `only ${callsDuringGrace} polls`);
    await clock.advance(16_000);
    const after = store.get(run.id)!;
    assert.equal(after.watching, false);
    assert.equal(after.stopReason, 'expired');
    assert.equal(after.state, 'notFound');
    assert.equal(after.finishedAt, undefined);
    const last = source.callsFor('k1').at(-1)!;
    assert.ok(last - after.kickoffIdSince >= 120_000);
    await clock.advance(60_000);
    assert.equal(source.callsFor('k1').at(-1), last);
  });

  it('reads NOT FOUND after running as probably awaiting feedback, polls slowly, expires later', async () => {
    const run = await addRun('k1');
    source.script('k1', (n) => (n < 2 ? snap('running', { lastTask: { name: 'draft', output: 'Draft text' }, tasks: [{ name: 'draft', output: 'Draft text' }] }) : snap('notFound')));
    const changes: RunChange[][] = [];
    const p = makePoller({ notFoundExpiryMs: 10 * 60_000 });
    p.onDidPoll((e) => e.changes && changes.push(e.changes));
    p.start();
    await clock.advance(1_500 + 1_500 + 2_250);
    const r = store.get(run.id)!;
    assert.equal(r.state, 'awaitingFeedback');
    assert.equal(r.needsFeedback, true);
    assert.equal(r.feedbackInferred, true);
    assert.equal(r.watching, true);
    assert.equal(r.notFoundSince, t0 + 5_250);
    assert.ok(changes.at(-1)!.length > 0, 'the switch to awaiting feedback is a change');
    const details = await store.readDetails(run.id);
    // As the run's file holds it (a key without a value is not written), which is what every read gives.
    assert.deepEqual(details.lastSnapshot?.feedback, { taskName: 'draft', output: 'Draft text' });
    assert.deepEqual(details.tasks.map((t) => t.output), ['Draft text']);
    await clock.advance(60_000);
    assert.deepEqual(gaps(source.callsFor('k1')).slice(2), [15_000, 15_000, 15_000, 15_000]);
    await clock.advance(10 * 60_000);
    const expired = store.get(run.id)!;
    assert.equal(expired.watching, false);
    assert.equal(expired.stopReason, 'expired');
    assert.equal(expired.state, 'notFound');
    assert.equal(expired.needsFeedback, false);
  });

  it('reads a bare HTTP 404 after running as a run the server forgot (its words), not as feedback, keeps what was seen, stops after the grace period', async () => {
    const run = await addRun('k1');
    source.script('k1', (n) =>
      n < 2
        ? snap('running', { progress: { unit: 'task', completed: 1, total: 3 }, lastTask: { name: 'research', output: 'Notes' }, tasks: [{ name: 'research', output: 'Notes' }] })
        : snap('notFound', { httpNotFound: true, message: 'Run k1 not found', raw: { detail: 'Run k1 not found' } }),
    );
    const changes: RunChange[][] = [];
    const p = makePoller({ notFoundGraceMs: 2 * 60_000, notFoundExpiryMs: 24 * 60 * 60_000 });
    p.onDidPoll((e) => e.changes && changes.push(e.changes));
    p.start();
    await clock.advance(1_500 + 1_500 + 2_250);
    const r = store.get(run.id)!;
    assert.equal(r.state, 'notFound');
    assert.equal(r.needsFeedback, false);
    assert.equal(r.feedbackInferred, undefined);
    assert.match(r.message ?? '', /no longer knows this run/);
    assert.match(r.message ?? '', /"Run k1 not found"/);
    assert.doesNotMatch(r.message ?? '', /feedback/);
    assert.deepEqual(r.progress, { unit: 'task', completed: 1, total: 3 }, 'what was seen is kept');
    assert.ok(changes.at(-1)!.some((change) => change.kind === 'state' && /no longer knows this run/.test(change.message ?? '')), JSON.stringify(changes.at(-1)));
    const details = await store.readDetails(run.id);
    assert.deepEqual(details.tasks.map((t) => t.output), ['Notes']);
    assert.equal(r.watching, true, 'still watched during the grace period (a server may come back)');
    await clock.advance(2 * 60_000 + 15_000);
    const stopped = store.get(run.id)!;
    assert.equal(stopped.watching, false);
    assert.equal(stopped.stopReason, 'expired');
    assert.equal(stopped.state, 'notFound');
    assert.match(stopped.message ?? '', /"Run k1 not found"/, 'the server\'s words stay');
  });

  it('notices a resume from elsewhere while awaiting feedback', async () => {
    const run = await addRun('k1');
    let resumed = false;
    source.script('k1', () => (resumed ? snap('running', { currentTask: 'write' }) : snap('awaitingFeedback', { feedback: { taskId: 't-1' } })));
    makePoller().start();
    await clock.advance(1_500);
    assert.equal(store.get(run.id)?.needsFeedback, true);
    assert.equal(store.get(run.id)?.taskId, 't-1');
    assert.equal(store.get(run.id)?.feedbackInferred, undefined);
    resumed = true;
    await clock.advance(15_000);
    assert.equal(store.get(run.id)?.state, 'running');
    assert.equal(store.get(run.id)?.needsFeedback, false);
    assert.deepEqual(gaps(source.callsFor('k1')), [15_000]);
  });

  it('a run resumed from elsewhere after running is polled fast again: leaving feedback is news, though it ran before', async () => {
    await addRun('k1');
    let phase: RunState = 'running';
    source.script('k1', () => snap(phase, phase === 'awaitingFeedback' ? { feedback: { taskId: 't-1' } } : {}));
    makePoller().start();
    await clock.advance(1_500);
    phase = 'awaitingFeedback';
    await clock.advance(2_250);
    phase = 'running';
    await clock.advance(15_000 + 1_500);
    assert.deepEqual(gaps(source.callsFor('k1')), [1_500, 15_000, 1_500], 'fast after the resume, not at the 15 s cap');
  });

  it('stops watching at the watch deadline without marking the run failed', async () => {
    const run = await addRun('k1');
    source.script('k1', () => snap('running'));
    makePoller({ watchDeadlineMs: 60_000 }).start();
    await clock.advance(59_000);
    assert.equal(store.get(run.id)?.watching, true);
    await clock.advance(20_000);
    const r = store.get(run.id)!;
    assert.equal(r.watching, false);
    assert.equal(r.stopReason, 'deadline');
    assert.equal(r.state, 'running');
    const count = source.calls.length;
    await clock.advance(120_000);
    assert.equal(source.calls.length, count);
  });

  it('turns transient errors into warnings, says so after several, and never ends the run', async () => {
    const run = await addRun('k1');
    let failing = true;
    source.script('k1', (n) => {
      if (!failing) {
        return snap('running');
      }
      return n % 2 === 0 ? new CrewApiError('network', 'socket hang up') : new CrewApiError('server', 'Internal Server Error', { status: 500 });
    });
    makePoller().start();
    await clock.advance(1_500);
    assert.equal(store.get(run.id)?.warning, 'Last status check failed: socket hang up. Trying again in 2 s.');
    await clock.advance(2_250);
    assert.equal(store.get(run.id)?.warning, 'Last status check failed: Internal Server Error. Trying again in 3 s.');
    await clock.advance(3_375);
    assert.equal(store.get(run.id)?.warning, '3 status checks in a row failed, the last: socket hang up. Still trying, next in 15 s.');
    await clock.advance(10 * 60_000);
    assert.deepEqual(gaps(source.callsFor('k1')).slice(0, 5), [2_250, 3_375, 15_000, 15_000, 15_000]);
    const r = store.get(run.id)!;
    assert.equal(r.watching, true);
    assert.equal(r.state, 'queued');
    assert.equal(r.stopReason, undefined);
    assert.ok(polls.every((p) => !p.ok));
    failing = false;
    await clock.advance(15_000);
    assert.equal(store.get(run.id)?.warning, undefined);
    assert.equal(store.get(run.id)?.state, 'running');
  });

  it('stops at a final state and keeps the final output', async () => {
    const run = await addRun('k1');
    source.script('k1', (n) => (n === 0 ? snap('running') : snap('succeeded', { finalOutput: { kind: 'markdown', text: 'Done!' } })));
    makePoller().start();
    await clock.advance(3_000);
    const r = store.get(run.id)!;
    assert.equal(r.state, 'succeeded');
    assert.equal(r.watching, false);
    assert.equal(r.finishedAt, t0 + 3_000);
    assert.equal((await store.readDetails(run.id)).finalOutput?.text, 'Done!');
    await clock.advance(60_000);
    assert.equal(source.calls.length, 2);
  });

  it('resumes unfinished watched runs on start after a reload, and only those', async () => {
    const active = await addRun('k-active');
    const stopped = await addRun('k-stopped');
    const done = await addRun('k-done');
    source.script('k-active', () => snap('running'));
    source.script('k-stopped', () => snap('running'));
    source.script('k-done', () => snap('succeeded'));
    const first = makePoller();
    first.start();
    await clock.advance(1_500);
    await first.stopWatching(stopped.id);
    first.dispose();
    await store.flush();
    assert.equal(store.get(done.id)?.state, 'succeeded');

    // A window reload: new store on the same storage, new poller.
    const reloaded = new RunStore(kv, dir, logger, { clock });
    await reloaded.load();
    const before = source.calls.length;
    makePoller({}, undefined, reloaded).start();
    await clock.advance(1_500);
    assert.deepEqual(source.calls.slice(before).map((c) => c.kickoffId), ['k-active']);
    assert.equal(reloaded.get(active.id)?.state, 'running');
    assert.equal(reloaded.get(stopped.id)?.stopReason, 'user');
    await reloaded.flush();
  });

  it('polls only runs this window may poll, and takes one up once allowed', async () => {
    const mine = await addRun('mine');
    const theirs = await addRun('theirs');
    source.script('mine', () => snap('running'));
    source.script('theirs', () => snap('running'));
    let allowTheirs = false;
    const released: string[] = [];
    const ownership: RunOwnership = {
      canPoll: async (id) => id === mine.id || allowTheirs,
      release: (id) => {
        released.push(id);
      },
    };
    const p = makePoller({ ownershipRecheckMs: 10_000 }, ownership);
    p.start();
    await clock.advance(30_000);
    assert.equal(source.callsFor('theirs').length, 0);
    assert.ok(source.callsFor('mine').length >= 5);
    allowTheirs = true;
    await clock.advance(10_000);
    // Asked at 1.5 s, then every 10 s: allowed from 30 s, so first polled at 31.5 s.
    assert.equal(source.callsFor('theirs')[0], t0 + 31_500);
    await p.stopWatching(theirs.id);
    assert.deepEqual(released, [theirs.id]);
    assert.equal(store.get(theirs.id)?.stopReason, 'user');
  });

  it('follows a run under its new kickoff id after a live resume, with a fresh grace period', async () => {
    const run = await addRun('old');
    source.script('old', () => snap('awaitingFeedback'));
    source.script('new', (n) => (n === 0 ? snap('notFound') : snap('running')));
    const p = makePoller();
    p.start();
    await clock.advance(1_500);
    await store.addFeedbackRound(run.id, { at: clock.now(), approve: true, feedback: '', taskId: 't-1' }, 'new');
    p.pokeRun(run.id);
    await clock.advance(1_500);
    assert.equal(store.get(run.id)?.state, 'queued');
    assert.equal(store.get(run.id)?.watching, true);
    await clock.advance(2_250);
    assert.equal(store.get(run.id)?.state, 'running');
    assert.deepEqual(store.get(run.id)?.previousKickoffIds, ['old']);
    assert.equal(source.callsFor('old').length, 1);
  });

  it('a crew\u2019s token changing (from anywhere) resumes its paused runs, and a new kickoff is polled', async () => {
    const a1 = await addRun('a1');
    let tokenOk = false;
    source.script('a1', () => (tokenOk ? snap('running') : new CrewApiError('unauthorized', 'Invalid or missing authentication credentials', { status: 401 })));
    source.script('a2', () => snap('running'));
    const tokenChanged = new Emitter<string>();
    const options = { jitter: 0.2, tokenChanges: tokenChanged.event };
    const p = makePoller(options);
    p.start();
    await clock.advance(3_000);
    assert.equal(store.get(a1.id)?.stopReason, 'unauthorized');
    tokenOk = true;
    tokenChanged.fire(CREW_A); // Set Token from the tree, the palette or the kickoff flow: no notification involved.
    await clock.advance(1_500);
    assert.equal(store.get(a1.id)?.watching, true);
    assert.equal(store.get(a1.id)?.state, 'running');
    const a2 = await addRun('a2');
    p.watch(a2.id);
    await clock.advance(1_500);
    assert.equal(store.get(a2.id)?.stopReason, undefined, 'a new kickoff was marked refused at once');
    assert.equal(store.get(a2.id)?.state, 'running');
  });

  it('a poll started before feedback was sent cannot land after it; the re-check stays fast', async () => {
    const run = await addRun('k1');
    const waiting = snap('awaitingFeedback', { feedback: { taskId: 't-1' } });
    source.script('k1', (n) => (n === 0 ? waiting : n === 1 ? { delayMs: 5_000, reply: waiting } : snap('running')));
    const p = makePoller();
    p.start();
    await clock.advance(1_500);
    assert.equal(store.get(run.id)?.needsFeedback, true);
    await clock.advance(15_000); // The slow check while waiting starts, and is held by the service.
    assert.equal(source.held, 1);
    await store.addFeedbackRound(run.id, { at: clock.now(), approve: true, feedback: '', taskId: 't-1' });
    p.pokeRun(run.id);
    await clock.advance(5_000); // The answer polled before the feedback lands now.
    assert.equal(store.get(run.id)?.needsFeedback, false, 'a stale poll put the run back to waiting');
    await clock.advance(1_500);
    assert.ok(source.callsFor('k1')[2] <= t0 + 21_500 + 1_500, 'the fast re-check after feedback was lost');
    assert.equal(store.get(run.id)?.state, 'running');
  });

  it('"no token stored" pauses the crew\u2019s runs as such, not as a refused token, and is not retried at every start', async () => {
    const run = await addRun('k1');
    source.script('k1', () => new CrewApiError('noToken' as string as CrewApiErrorKind, 'No token is stored for this crew.'));
    const p = makePoller();
    p.start();
    await clock.advance(1_500);
    assert.equal(store.get(run.id)?.watching, false);
    assert.equal(store.get(run.id)?.stopReason, 'noToken');
    p.dispose();
    const calls = source.calls.length;
    const again = makePoller();
    let asked = 0;
    again.onDidNeedToken(() => asked++);
    again.start(); // A window reload: nothing has changed, so nothing to ask.
    await clock.advance(30_000);
    assert.equal(source.calls.length, calls);
    assert.equal(asked, 0);
  });

  it('another window\u2019s Stop Watching and Remove from History are not undone by a poll that was in flight here', async () => {
    const stopped = await addRun('k-stop');
    const removed = await addRun('k-remove');
    source.script('k-stop', () => ({ delayMs: 3_000, reply: snap('running', { message: 'still going' }) }));
    source.script('k-remove', () => ({ delayMs: 3_000, reply: snap('running', { message: 'still going' }) }));
    makePoller().start();
    await clock.advance(1_500);
    assert.equal(source.held, 2, 'both polls in flight');
    const otherWindow = new RunStore(kv, dir, logger, { clock });
    await otherWindow.load();
    await otherWindow.setWatching(stopped.id, false, 'user');
    await otherWindow.remove(removed.id);
    await clock.advance(3_000); // The answers land here, on this window's stale copies.
    const fresh = new RunStore(kv, dir, logger, { clock });
    await fresh.load();
    assert.equal(fresh.get(stopped.id)?.watching, false, 'Stop Watching was undone');
    assert.equal(fresh.get(stopped.id)?.message, undefined, 'a status polled before the stop was applied');
    assert.equal(fresh.get(removed.id), undefined, 'the removed run came back');
    assert.equal(store.get(removed.id), undefined, 'this window still shows the removed run');
    await clock.advance(60_000);
    assert.deepEqual([source.callsFor('k-stop').length, source.callsFor('k-remove').length], [1, 1], 'polled on after the other window stopped them');
    await otherWindow.flush();
  });

  it('Resume Watching on a run paused for its token tries again, rather than marking it watched and never polling it', async () => {
    const run = await addRun('a1');
    let tokenOk = false;
    source.script('a1', () => (tokenOk ? snap('running') : new CrewApiError('unauthorized', 'Invalid or missing authentication credentials', { status: 401 })));
    const p = makePoller();
    p.start();
    await clock.advance(3_000);
    assert.equal(store.get(run.id)?.stopReason, 'unauthorized');
    tokenOk = true; // e.g. the crew's token was fixed on the crew's side
    await p.resumeWatching(run.id);
    await clock.advance(1_500);
    assert.equal(store.get(run.id)?.state, 'running', 'watched but never polled');
  });

  it('sends no status request for a run another window has stopped or removed, even before this window reloads', async () => {
    const stopped = await addRun('k-stop');
    const removed = await addRun('k-remove');
    source.script('k-stop', () => snap('running'));
    source.script('k-remove', () => snap('running'));
    const otherWindow = new RunStore(kv, dir, logger, { clock });
    await otherWindow.load();
    await otherWindow.setWatching(stopped.id, false, 'user');
    await otherWindow.remove(removed.id);
    assert.equal(store.get(stopped.id)?.watching, true, 'this window has not reloaded');
    makePoller().start();
    await clock.advance(30_000);
    assert.deepEqual(source.calls.map((c) => c.kickoffId), [], 'polled a run another window stopped or removed');
    assert.equal(store.get(stopped.id)?.watching, false);
    assert.equal(store.get(removed.id), undefined);
    await otherWindow.flush();
  });

  it('dispose clears timers and aborts requests in flight', async () => {
    await addRun('k1');
    source.script('k1', () => ({ delayMs: 60_000, reply: snap('running') }));
    const p = makePoller();
    p.start();
    await clock.advance(1_500);
    assert.equal(source.held, 1);
    p.dispose();
    await polling.whenIdle();
    assert.equal(source.held, 0);
    assert.equal(clock.pendingTimers, 0);
  });
});
