// Deployment health against a platform that limits requests per token: starts are paced (MAX_PER_SECOND), at most
// MAX_IN_FLIGHT run at once, and a 429's Retry-After holds every start, then the crew is asked again.
import * as assert from 'node:assert/strict';
import Module from 'node:module';
import { Pacer, type PaceClock } from '../../src/platform/bounded';
import type * as HealthModule from '../../src/platform/deploymentHealth';
import type * as ImportedModule from '../../src/platform/importedCrews';
import { PlatformClient, PlatformError } from '../../src/platform/platformClient';
import { startSimulator, type Simulator } from '../../src/simulator/server';

const ORG = '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d';
const PAT = 'pace-personal-token';

/** A clock that only moves when waited on: every wait is recorded, and nothing sleeps. */
function steppedClock(): PaceClock & { waits: number[]; time: number } {
  const clock = {
    time: 0,
    waits: [] as number[],
    now: () => clock.time,
    wait: async (ms: number) => {
      clock.waits.push(ms);
      clock.time += ms;
    },
  };
  return clock;
}

describe('platform pace', () => {
  it('spaces starts 1000/perSecond ms apart, the first at once', async () => {
    const clock = steppedClock();
    const pacer = new Pacer(5, clock);
    const starts: number[] = [];
    for (let i = 0; i < 4; i++) {
      await pacer.turn();
      starts.push(clock.time);
    }
    assert.deepEqual(starts, [0, 200, 400, 600]);
  });

  it('holds every later start for a Retry-After', async () => {
    const clock = steppedClock();
    const pacer = new Pacer(5, clock);
    await pacer.turn();
    pacer.holdFor(2000);
    await pacer.turn();
    assert.equal(clock.time, 2000);
    await pacer.turn();
    assert.equal(clock.time, 2200);
  });
});

describe('deployment health against a rate-limited platform', function () {
  this.timeout(30_000);
  let sim: Simulator | undefined;
  const client = new PlatformClient();
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  let DeploymentHealth: typeof HealthModule.DeploymentHealth;
  let ImportedCrews: typeof ImportedModule.ImportedCrews;

  before(() => {
    class Emitter {
      private listeners: (() => void)[] = [];
      event = (l: () => void) => (this.listeners.push(l), { dispose: () => undefined });
      fire = () => this.listeners.forEach((l) => l());
      dispose = () => undefined;
    }
    const vscode = {
      EventEmitter: Emitter,
      Disposable: { from: (...items: { dispose(): void }[]) => ({ dispose: () => items.forEach((i) => i.dispose()) }) },
      window: { onDidChangeWindowState: () => ({ dispose: () => undefined }) },
      l10n: { t: (message: string) => message },
    };
    loader._load = function (request: string, ...rest: unknown[]) {
      return request === 'vscode' ? vscode : load.call(this, request, ...rest);
    };
    /* eslint-disable @typescript-eslint/no-require-imports */
    DeploymentHealth = (require('../../src/platform/deploymentHealth') as typeof HealthModule).DeploymentHealth;
    ImportedCrews = (require('../../src/platform/importedCrews') as typeof ImportedModule).ImportedCrews;
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  after(async () => {
    loader._load = load;
    await client.dispose();
  });
  afterEach(async () => {
    await sim?.close();
  });

  async function refreshAgainst(crewCount: number, rateLimitPerSecond: number) {
    const uuids = Array.from({ length: crewCount }, (_, i) => `dep-${i}`);
    sim = await startSimulator({ crews: [], platform: { token: PAT, rateLimitPerSecond, latencyMs: 5, deployments: uuids.map((uuid) => ({ uuid, organization: ORG, name: uuid })) } });
    const origin = sim.origin;
    const values = new Map<string, unknown>([['crewRuns.platform.imported', uuids.map((uuid) => ({ crewUrl: `https://${uuid}.example`, uuid, platformUrl: origin, name: uuid }))]]);
    const imported = new ImportedCrews({ get: <T>(key: string) => values.get(key) as T | undefined, change: async () => undefined });
    const account = { current: async () => ({ baseUrl: origin, token: PAT }), onDidChange: () => ({ dispose: () => undefined }) };
    const warnings: string[] = [];
    const health = new DeploymentHealth(account as never, imported, client, { warn: (m: string) => warnings.push(m) } as never);
    try {
      await health.refresh();
    } finally {
      health.dispose();
    }
    return { states: uuids.map((uuid) => health.get(`https://${uuid}.example`)?.state), stats: { ...sim.platform.stats }, warnings };
  }

  it('refreshes 12 crews under a 10 req/s limit with no 429 and at most 4 in flight', async () => {
    const { states, stats, warnings } = await refreshAgainst(12, 10);
    assert.deepEqual(warnings, []);
    assert.ok(states.every((s) => s === 'online'), states.join());
    assert.equal(stats.rateLimited, 0);
    assert.ok(stats.maxInFlight <= 4, `${stats.maxInFlight} in flight`);
    assert.equal(stats.requests, 12);
  });

  it('waits out Retry-After and asks again, so a tighter limit still shows every crew online', async () => {
    const { states, stats } = await refreshAgainst(6, 2);
    assert.ok(stats.rateLimited > 0, 'the limit was reached');
    assert.ok(states.every((s) => s === 'online'), states.join());
  });

  it('gives a 429 its Retry-After in ms', async () => {
    sim = await startSimulator({ crews: [], platform: { token: PAT, rateLimitPerSecond: 0, deployments: [{ uuid: 'dep-0', organization: ORG, name: 'x' }] } });
    await assert.rejects(client.status({ baseUrl: sim.origin, token: PAT }, 'dep-0'), (e: unknown) => e instanceof PlatformError && e.kind === 'rateLimited' && e.retryAfterMs === 1000);
  });
});
