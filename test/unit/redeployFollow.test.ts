// Following a redeploy (#51): "online" only once the redeploy was seen to start. A platform that still says
// "Crew is Online" just after the POST (the rebuild not begun yet) must not be announced online at once. The phase
// (sentence case) and the elapsed time on the way; a failed build's first log error on the row and in the notice;
// "stop following" stops the notices, not the redeploy. And the redeploy goes out once machine-wide (send-once marks).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PaceClock } from '../../src/platform/bounded';
import type * as HealthModule from '../../src/platform/deploymentHealth';
import type { DeploymentStatus, LogLine } from '../../src/platform/parse';
import type * as ClientModule from '../../src/platform/platformClient';
import { SendOnce } from '../../src/runTracking/sendOnce';

interface Notice {
  kind: 'info' | 'error';
  message: string;
}

function fakeVscode(notices: Notice[], commands: unknown[][] = []) {
  class Emitter {
    private listeners: (() => void)[] = [];
    event = (l: () => void) => (this.listeners.push(l), { dispose: () => undefined });
    fire = () => this.listeners.forEach((l) => l());
    dispose = () => undefined;
  }
  const t = (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] === undefined ? m : String(args[Number(i)])));
  return {
    EventEmitter: Emitter,
    Disposable: { from: (...items: { dispose(): void }[]) => ({ dispose: () => items.forEach((i) => i.dispose()) }) },
    window: {
      onDidChangeWindowState: () => ({ dispose: () => undefined }),
      showInformationMessage: async (message: string) => (notices.push({ kind: 'info', message }), undefined),
      showErrorMessage: async (message: string) => (notices.push({ kind: 'error', message }), undefined),
      showWarningMessage: async () => undefined,
    },
    commands: { executeCommand: async (...args: unknown[]) => void commands.push(args) },
    l10n: { t },
  };
}

/** A cancellation the test pulls itself, as "stop following" does. */
function cancellation() {
  const listeners: (() => void)[] = [];
  const token = {
    isCancellationRequested: false,
    onCancellationRequested: (l: () => void) => (listeners.push(l), { dispose: () => undefined }),
  };
  return { token, cancel: () => ((token.isCancellationRequested = true), listeners.forEach((l) => l())) };
}

/** A clock that moves only when waited on: a 20-minute follow runs at once, and nothing sleeps. */
function steppedClock(start = 1_700_000_000_000): PaceClock & { time: number } {
  const clock = { time: start, now: () => clock.time, wait: async (ms: number) => void (clock.time += ms) };
  return clock;
}

const status = (words: string, deployedAt?: string): DeploymentStatus => ({
  status: words,
  state: /online/i.test(words) ? 'online' : /fail/i.test(words) ? 'failed' : 'deploying',
  ...(deployedAt ? { deployedAt } : {}),
});
const SIGN_IN = { baseUrl: 'https://app.crewai.com', token: 'pat_x' };
const CREW = 'https://research.example';

describe('following a redeploy (#51)', function () {
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  const notices: Notice[] = [];
  const commands: unknown[][] = [];
  let DeploymentHealth: typeof HealthModule.DeploymentHealth;
  let PlatformError: typeof ClientModule.PlatformError;
  let dir: string;

  before(() => {
    const vscode = fakeVscode(notices, commands);
    loader._load = function (request: string, ...rest: unknown[]) {
      return request === 'vscode' ? vscode : load.call(this, request, ...rest);
    };
    // Loaded afresh with this fake: an earlier suite may have loaded them with a fake that shows no notices.
    for (const file of Object.keys(require.cache).filter((f) => /[\\/]src[\\/](platform|ui)[\\/]/.test(f))) {
      delete require.cache[file];
    }
    /* eslint-disable @typescript-eslint/no-require-imports */
    DeploymentHealth = (require('../../src/platform/deploymentHealth') as typeof HealthModule).DeploymentHealth;
    // The class the health's client module throws (the fresh copy), as one bundle has one.
    PlatformError = (require('../../src/platform/platformClient') as typeof ClientModule).PlatformError;
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  after(() => {
    loader._load = load;
  });
  beforeEach(async () => {
    notices.splice(0);
    commands.splice(0);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'redeploy-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A platform whose status answers from `statuses` (by call), whose log is `logs`, whose redeploy counts its POSTs. */
  function healthWith(options: { statuses: (call: number) => DeploymentStatus; onCall?: (call: number) => void; logs?: LogLine[]; redeploy?: () => Promise<DeploymentStatus>; window?: string; clock?: PaceClock & { time: number } }) {
    let calls = 0;
    const posts: number[] = [];
    const clock = options.clock ?? steppedClock();
    const client = {
      status: async () => {
        calls += 1;
        options.onCall?.(calls);
        return options.statuses(calls);
      },
      logs: async () => ({ lines: options.logs ?? [], dropped: 0, unread: 0 }),
      redeploy: async () => {
        posts.push(clock.now());
        return options.redeploy ? options.redeploy() : { uuid: 'dep-1', status: 'Deploy Enqueued', state: 'deploying' as const };
      },
    };
    const imported = { list: () => [], onDidChange: () => ({ dispose: () => undefined }) };
    const account = { current: async () => undefined, onDidChange: () => ({ dispose: () => undefined }) };
    const sends = new SendOnce(dir, options.window ?? 'window-a', () => clock.now());
    const log = { warn: () => undefined, info: () => undefined };
    const health = new DeploymentHealth(account as never, imported as never, client as never, log as never, clock, sends);
    return { health, calls: () => calls, posts, clock, sends };
  }

  it('does not announce online while the status stays "Crew is Online" as it was before the redeploy', async () => {
    const stop = cancellation();
    const { health, calls } = healthWith({ statuses: () => status('Crew is Online'), onCall: (call) => call === 3 && stop.cancel() });
    try {
      const ended = await health.followRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research', crewUrl: CREW }, { before: { status: 'Crew is Online' }, cancellation: stop.token as never });
      assert.equal(ended, undefined, 'the redeploy was never seen starting, so it is not "online again"');
      assert.ok(calls() >= 3, `asked ${calls()} times`);
      assert.ok(!notices.some((n) => /online again/.test(n.message)), JSON.stringify(notices));
    } finally {
      health.dispose();
    }
  });

  it('a redeploy never seen starting ends after 5 minutes with plain words, not "online", and frees its mark', async () => {
    const { health, calls, clock } = healthWith({ statuses: () => status('Crew is Online') });
    let released = 0;
    const sentAt = clock.now();
    health.set(CREW, { state: 'deploying', words: 'Deploy Enqueued' }); // As the command sets it once sent.
    const rows = new Set<string>();
    const ended = await health.followRedeploy(
      SIGN_IN,
      { uuid: 'dep-1', name: 'Research', crewUrl: CREW },
      { before: { status: 'Crew is Online' }, sentAt, release: async () => void (released += 1), onProgress: () => rows.add(JSON.stringify(health.get(CREW))) },
    );
    health.dispose();
    assert.equal(ended, undefined);
    assert.equal(clock.time - sentAt, 5 * 60_000, 'given up after START_WAIT_MS, no later');
    assert.equal(calls(), 300, 'once a second');
    assert.equal(released, 1);
    assert.deepEqual(notices, [{ kind: 'info', message: 'The platform has not shown the redeploy of Research starting after 5m 00s: it still says “Crew is online”. It may still be queued, or have run unseen; the deployment logs tell.' }]);
    assert.deepEqual([...rows], [JSON.stringify({ state: 'deploying', words: 'Deploy Enqueued' })], 'while followed, the row is not set back to the old "online"');
    assert.deepEqual(health.get(CREW), { state: 'online', words: 'Crew is Online' }, 'once given up, what the platform says');
  });

  it('follows enqueued → building → online, showing each phase in sentence case with the time since it was sent', async () => {
    const phases = ['Crew is Online', 'Crew is Online', 'Deploy Enqueued', 'Deploy Enqueued', 'Building Image', 'Crew is Online'];
    const { health, clock } = healthWith({ statuses: (call) => status(phases[Math.min(call, phases.length) - 1]) });
    const lines: string[] = [];
    let released = 0;
    const ended = await health.followRedeploy(
      SIGN_IN,
      { uuid: 'dep-1', name: 'Research', crewUrl: CREW },
      { before: { status: 'Crew is Online' }, sentAt: clock.now(), release: async () => void (released += 1), onProgress: (line) => lines.push(line) },
    );
    health.dispose();
    assert.equal(ended, 'online');
    assert.deepEqual(lines, [
      'Waiting for the platform to start it (it still says “Crew is online”) · 0s',
      'Waiting for the platform to start it (it still says “Crew is online”) · 1s',
      'Waiting for the platform to start it (it still says “Crew is online”) · 2s',
      'Deploy enqueued · 3s',
      'Deploy enqueued · 4s',
      'Building image · 5s',
    ]);
    assert.deepEqual(notices, [{ kind: 'info', message: 'Research is online again.' }]);
    assert.deepEqual(health.get(CREW), { state: 'online', words: 'Crew is Online' });
    assert.equal(released, 1);
    // Back online, a crew with a test suite in the workspace is offered its suite (#50; it asks, never runs by itself).
    assert.deepEqual(commands.filter(([id]) => id === 'crewRuns.suites.runForCrew'), [['crewRuns.suites.runForCrew', CREW]]);
  });

  it('a new deployment time counts as the start, even when the words stay the same', async () => {
    const { health } = healthWith({ statuses: (call) => status('Crew is Online', call < 3 ? '2025-01-01T00:00:00Z' : '2025-01-01T00:07:00Z') });
    const ended = await health.followRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' }, { before: { status: 'Crew is Online', deployedAt: '2025-01-01T00:00:00Z' } });
    health.dispose();
    assert.equal(ended, 'online');
  });

  it('a failed build: its first error line (not an older build’s) on the crew’s row and in the notice', async () => {
    const clock = steppedClock(Date.now());
    const at = (ms: number) => new Date(clock.time + ms).toISOString();
    const logs: LogLine[] = [
      { timestamp: at(-3_600_000), level: 'ERROR', message: 'an older build’s error' },
      { timestamp: at(1000), level: 'INFO', message: 'Deploy 2 enqueued' },
      { timestamp: at(2000), level: 'INFO', message: '0 errors in the lock file' },
      { timestamp: at(3000), level: 'ERROR', message: 'pip install failed: No matching distribution found for crewai-tools==0.0.0-missing' },
      { timestamp: at(4000), level: 'ERROR', message: 'Build failed' },
    ];
    const phases = ['Deploy Enqueued', 'Building Image', 'Provisioning Failed, try again.'];
    const { health } = healthWith({ clock, logs, statuses: (call) => status(phases[Math.min(call, phases.length) - 1]) });
    const ended = await health.followRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research', crewUrl: CREW }, { before: { status: 'Crew is Online' }, sentAt: clock.now() });
    assert.equal(ended, 'failed');
    const first = 'pip install failed: No matching distribution found for crewai-tools==0.0.0-missing';
    assert.deepEqual(health.get(CREW), { state: 'failed', words: 'Provisioning Failed, try again.', firstError: first });
    assert.deepEqual(notices, [{ kind: 'error', message: `The redeploy of Research failed: Provisioning failed, try again. First error in the build log: ${first}` }]);
    // A refresh that reads the same failed words keeps the error next to the crew; another state drops it.
    health.set(CREW, { state: 'failed', words: 'Provisioning Failed, try again.' });
    assert.equal(health.get(CREW)?.firstError, first);
    health.set(CREW, { state: 'deploying', words: 'Deploy Enqueued' });
    assert.deepEqual(health.get(CREW), { state: 'deploying', words: 'Deploy Enqueued' });
    health.dispose();
  });

  it('a status that stays failed as before the redeploy is not its failure', async () => {
    const stop = cancellation();
    const { health } = healthWith({ statuses: () => status('Provisioning Failed, try again.'), onCall: (call) => call === 4 && stop.cancel() });
    const ended = await health.followRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' }, { before: { status: 'Provisioning Failed, try again.' }, cancellation: stop.token as never });
    health.dispose();
    assert.equal(ended, undefined);
    assert.ok(!notices.some((n) => n.kind === 'error'), JSON.stringify(notices));
  });

  it('"stop following" stops the progress and the notices, not the follow: the row still reaches online and the mark is freed', async () => {
    const stop = cancellation();
    const phases = ['Deploy Enqueued', 'Building Image', 'Building Image', 'Building Image', 'Crew is Online'];
    const { health } = healthWith({ statuses: (call) => status(phases[Math.min(call, phases.length) - 1]), onCall: (call) => call === 2 && stop.cancel() });
    const released = new Promise<void>((resolve) => {
      void health
        .followRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research', crewUrl: CREW }, { before: { status: 'Crew is Online' }, cancellation: stop.token as never, release: async () => resolve() })
        .then((ended) => assert.equal(ended, undefined));
    });
    await released;
    health.dispose();
    assert.deepEqual(health.get(CREW), { state: 'online', words: 'Crew is Online' });
    assert.deepEqual(notices, [{ kind: 'info', message: 'Stopped following the redeploy of Research; the redeploy goes on, and its row in the crews view shows where it is.' }]);
  });

  describe('sent once machine-wide', () => {
    it('a second redeploy while the first is being sent, or building, sends nothing and says it is under way', async () => {
      let answer!: () => void;
      const replied = new Promise<void>((resolve) => (answer = resolve));
      const a = healthWith({ statuses: () => status('Building Image'), redeploy: async () => (await replied, { uuid: 'dep-1', status: 'Deploy Enqueued', state: 'deploying' }) });
      const b = healthWith({ statuses: () => status('Building Image'), window: 'window-b' });
      const first = a.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' });
      while (a.posts.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      const double = await a.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' });
      const otherWindow = await b.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' });
      assert.deepEqual([double, otherWindow], [
        { kind: 'underWay', words: 'being sent' },
        { kind: 'underWay', words: 'being sent' },
      ]);
      answer();
      const sent = await first;
      assert.equal(sent.kind, 'sent');
      // Sent, and the platform says it builds: still under way, from any window.
      assert.deepEqual(await b.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' }), { kind: 'underWay', words: 'Building image' });
      assert.equal(a.posts.length + b.posts.length, 1, 'one POST');
      a.health.dispose();
      b.health.dispose();
    });

    it('a redeploy sent but not shown yet is under way; once it ended (or its follow freed the mark) another may go', async () => {
      const clock = steppedClock();
      const w = healthWith({ clock, statuses: () => status('Crew is Online') });
      const sent = await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' });
      assert.ok(sent.kind === 'sent');
      assert.deepEqual(sent.before, { status: 'Crew is Online', deployedAt: undefined }, 'the status just before it was sent');
      clock.time += 60_000;
      assert.deepEqual(await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' }), { kind: 'underWay', words: 'sent 1m 00s ago, not shown by the platform yet' });
      clock.time += 5 * 60_000;
      assert.equal((await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' })).kind, 'sent', 'the platform never showed it: its window is gone or its follow was stopped');
      const third = await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' });
      assert.equal(third.kind, 'underWay');
      await w.sends.forget('redeploy:dep-1'); // What the follow's release does once it ended.
      assert.equal((await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' })).kind, 'sent');
      assert.equal(w.posts.length, 3);
      w.health.dispose();
    });

    it('while the platform cannot be asked, a sent redeploy counts as under way until the longest follow would have ended', async () => {
      const clock = steppedClock();
      let reachable = true;
      const w = healthWith({
        clock,
        statuses: () => {
          if (!reachable) {
            throw new PlatformError('network', 'no route to host');
          }
          return status('Crew is Online');
        },
      });
      assert.equal((await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' })).kind, 'sent');
      reachable = false;
      clock.time += 10 * 60_000;
      assert.deepEqual(await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' }), { kind: 'underWay', words: 'sent 10m 00s ago, not shown by the platform yet' });
      clock.time += 10 * 60_000;
      assert.equal((await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' })).kind, 'sent');
      assert.equal(w.posts.length, 2);
      w.health.dispose();
    });

    it('a refused redeploy frees the mark; one that may have reached the platform keeps it (uncertain)', async () => {
      let failure: Error = new PlatformError('unauthorized', 'refused (401)');
      const w = healthWith({ statuses: () => status('Crew is Online'), redeploy: async () => Promise.reject(failure) });
      await assert.rejects(w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' }), /refused/);
      assert.equal(await w.sends.peek('redeploy:dep-1'), undefined, 'refused: nothing happened');
      failure = new PlatformError('network', 'connection refused', undefined, undefined, undefined, true);
      await assert.rejects(w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' }));
      assert.equal(await w.sends.peek('redeploy:dep-1'), undefined, 'never left: free');
      failure = new PlatformError('server', 'bad gateway (502)');
      await assert.rejects(w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' }));
      assert.equal((await w.sends.peek('redeploy:dep-1'))?.state, 'uncertain');
      assert.equal((await w.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' })).kind, 'underWay');
      w.health.dispose();
    });

    it('a reply without an id or uuid is accepted and said so (noId); a reply naming one is not', async () => {
      const bare = healthWith({ statuses: () => status('Crew is Online'), redeploy: async () => ({ state: 'unknown' }) });
      const sent = await bare.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' });
      assert.ok(sent.kind === 'sent' && sent.noId);
      bare.health.dispose();
      const named = healthWith({ statuses: () => status('Crew is Online'), window: 'w2', redeploy: async () => ({ state: 'deploying', status: 'enqueued', deploymentId: '103671' }) });
      await named.sends.forget('redeploy:dep-1');
      const withId = await named.health.sendRedeploy(SIGN_IN, { uuid: 'dep-1', name: 'Research' });
      assert.ok(withId.kind === 'sent' && !withId.noId);
      named.health.dispose();
    });
  });
});
