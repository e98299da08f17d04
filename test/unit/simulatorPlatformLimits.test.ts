// The simulator's platform routes under load: a per-token rate limit answered 429 with Retry-After (as the crew
// endpoints answer), and counts of the requests in flight, which the platform bench and tests read.
import * as assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../../src/simulator/server';

const ORG = '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d';

describe('simulator platform limits', function () {
  this.timeout(20_000);
  let sim: Simulator;
  afterEach(async () => {
    await sim?.close();
  });

  const status = (token = 'pat') => fetch(`${sim.origin}/crewai_plus/api/v1/crews/dep-1/status`, { headers: { authorization: `Bearer ${token}` } });

  /** Resolves once the server has seen every answer through (its in-flight count is kept on each response's close). */
  const settled = async () => {
    while (sim.platform.stats.inFlight > 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  it('answers 429 with Retry-After past the per-token limit, counts it and logs it as rateLimit', async () => {
    sim = await startSimulator({ crews: [], platform: { token: 'pat', rateLimitPerSecond: 3, deployments: [{ uuid: 'dep-1', organization: ORG, name: 'One' }] } });
    const replies = await Promise.all(Array.from({ length: 5 }, () => status()));
    const codes = replies.map((r) => r.status).sort();
    assert.deepEqual(codes, [200, 200, 200, 429, 429]);
    const limited = replies.filter((r) => r.status === 429);
    for (const reply of limited) {
      assert.ok(Number(reply.headers.get('retry-after')) >= 1, `Retry-After ${reply.headers.get('retry-after')}`);
      assert.match(await reply.text(), /rate|many/i);
    }
    await settled();
    assert.equal(sim.platform.stats.rateLimited, 2);
    assert.equal(sim.platform.stats.requests, 5);
    assert.equal(sim.requestLog.entries.filter((e) => e.fault === 'rateLimit' && e.status === 429).length, 2);
    // Another token has a window of its own: refused for what it is (401), not rate limited.
    assert.equal((await status('someone-else')).status, 401);
  });

  it('counts the most requests in flight at once, overlapping ones and one after another', async () => {
    sim = await startSimulator({ crews: [], platform: { token: 'pat', latencyMs: 50, deployments: [{ uuid: 'dep-1', organization: ORG, name: 'One' }] } });
    const together = await Promise.all(Array.from({ length: 6 }, () => status()));
    assert.ok(together.every((r) => r.status === 200));
    await settled();
    assert.equal(sim.platform.stats.maxInFlight, 6);
    sim.platform.resetStats();
    for (let i = 0; i < 3; i++) {
      assert.equal((await status()).status, 200);
      await settled();
    }
    assert.deepEqual(sim.platform.stats, { requests: 3, rateLimited: 0, inFlight: 0, maxInFlight: 1 });
  });

  it('serves a long deployment log when asked for one', async () => {
    sim = await startSimulator({ crews: [], platform: { token: 'pat', deployments: [{ uuid: 'dep-1', organization: ORG, name: 'One', extraLogLines: 1000 }] } });
    const reply = await fetch(`${sim.origin}/crewai_plus/api/v1/crews/dep-1/logs/deployment`, { headers: { authorization: 'Bearer pat' } });
    const lines = (await reply.json()) as { level: string; message: string }[];
    assert.equal(lines.length, 1003);
    assert.equal(lines.at(-1)?.message, 'Crew is Online');
  });
});
