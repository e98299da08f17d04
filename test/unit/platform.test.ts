// The platform (organization) API: its tolerant parsers, and the client against the simulator's platform routes
// over real HTTP (the crews' transport).

import * as assert from 'node:assert/strict';
import { eachBounded } from '../../src/platform/bounded';
import { PlatformClient, PlatformError } from '../../src/platform/platformClient';
import { classifyStatus, MAX_LOG_LINES, parseDeployments, parseDeploymentStatus, parseLogs, parseOrganizations, platformErrorWords } from '../../src/platform/parse';
import { demoCrews, startSimulator, type Simulator } from '../../src/simulator/server';

describe('platform bodies', () => {
  it('classifies status prose loosely and keeps unknown words unknown', () => {
    assert.equal(classifyStatus('Crew is Online'), 'online');
    assert.equal(classifyStatus('Deploy Enqueued'), 'deploying');
    assert.equal(classifyStatus('Building Image'), 'deploying');
    assert.equal(classifyStatus('Provisioning Failed, try again.'), 'failed');
    assert.equal(classifyStatus('ERROR'), 'failed');
    assert.equal(classifyStatus('Hibernating'), 'unknown');
    assert.equal(classifyStatus(undefined), 'unknown');
  });

  it('reads organizations from a bare list or a wrapper, skipping odd entries', () => {
    assert.deepEqual(parseOrganizations([{ name: 'A', uuid: 'a-1' }, null, 7, { name: 'no id' }, { uuid: 'b-2', extra: true }, { uuid: 'a-1', name: 'dup' }]), [
      { uuid: 'a-1', name: 'A' },
      { uuid: 'b-2', name: 'b-2' },
    ]);
    assert.deepEqual(parseOrganizations({ organizations: [{ id: 3, name: 'C' }] }), [{ uuid: '3', name: 'C' }]);
    assert.deepEqual(parseOrganizations({ error: 'x' }), []);
    assert.deepEqual(parseOrganizations('nonsense'), []);
  });

  it('never fails a deployment list for one odd entry; refuses URLs that are not https', () => {
    const { deployments, skipped } = parseDeployments([
      { name: 'Good', uuid: 'u1', status: 'Crew is Online', public_url: 'https://good.crewai.com/', unknown: { deep: 1 } },
      { name: 'No id', status: 'Crew is Online' },
      { name: 'Plain http', uuid: 'u2', status: 'Deploy Enqueued', public_url: 'http://evil.example.com' },
      { name: ['not', 'a', 'string'], uuid: 'u3', status: 42, public_url: 17 },
      'a string',
      { uuid: '../escape', name: 'Bad id' },
      { deployment: { id: 'u4' }, name: 'Nested id', status: 'Provisioning Failed, try again.' },
    ]);
    assert.equal(skipped, 3);
    assert.deepEqual(
      deployments.map((d) => [d.uuid, d.name, d.state, d.publicUrl]),
      [
        ['u1', 'Good', 'online', 'https://good.crewai.com'],
        ['u2', 'Plain http', 'deploying', undefined],
        ['u3', 'u3', 'unknown', undefined],
        ['u4', 'Nested id', 'failed', undefined],
      ],
    );
  });

  it('bounds a list of 5,000 deployments and keeps the first 2,000', () => {
    const list = Array.from({ length: 5000 }, (_, i) => ({ uuid: `d${i}`, name: `Crew ${i}`, status: 'Crew is Online' }));
    const { deployments, skipped } = parseDeployments(list);
    assert.equal(deployments.length, 2000);
    assert.equal(skipped, 3000);
  });

  it('clips a 1,000,000-character log line to 4,000 characters with an ellipsis, and keeps every line (#47)', () => {
    const { lines } = parseLogs([{ message: `long ${'y'.repeat(1_000_000)}` }, 'short', { msg: `${'z'.repeat(3998)}😀😀` }]);
    assert.equal(lines.length, 3);
    assert.equal(lines[0].message.length, 4000);
    assert.ok(lines[0].message.endsWith('y…'));
    assert.equal(lines[1].message, 'short');
    assert.ok(lines[2].message.endsWith('z…'), 'never half a surrogate pair');
  });

  it('takes a status token only when it is a plausible string', () => {
    assert.equal(parseDeploymentStatus({ status: 'Crew is Online', token: 'abc123' }).token, 'abc123');
    assert.equal(parseDeploymentStatus({ status: 'Crew is Online', token: 12345 }).token, undefined);
    assert.equal(parseDeploymentStatus({ status: 'Crew is Online', token: { value: 'x' } }).token, undefined);
    assert.equal(parseDeploymentStatus({ status: 'Crew is Online', token: 'two words' }).token, undefined);
    assert.equal(parseDeploymentStatus(null).state, 'unknown');
    const nested = parseDeploymentStatus({ deployment: { public_url: 'https://x.crewai.com', status: 'Crew is Online' } });
    assert.deepEqual([nested.publicUrl, nested.state], ['https://x.crewai.com', 'online']);
  });

  it('keeps the last 50,000 log lines and makes their text inert', () => {
    const many = Array.from({ length: 60_000 }, (_, i) => ({ timestamp: 't', level: 'info', message: `line ${i}` }));
    const { lines, dropped } = parseLogs(many);
    assert.equal(lines.length, MAX_LOG_LINES);
    assert.equal(dropped, 10_000);
    assert.equal(lines[0].message, 'line 10000');
    assert.equal(lines[0].level, 'INFO');
    const odd = parseLogs([{ message: 'click [here](command:x)\u202e' }, { level: 'ERROR' }, 'plain', 5]).lines;
    assert.equal(odd.length, 2);
    assert.ok(!odd[0].message.includes('](') && !odd[0].message.includes('\u202e'));
  });

  it('reads the platform words of an error body, 422 fields included', () => {
    assert.equal(platformErrorWords({ error: 'deployment_not_found' }), 'deployment_not_found');
    assert.equal(platformErrorWords({ message: 'Nope' }), 'Nope');
    assert.equal(platformErrorWords({ name: ['is taken', 'is too long'] }), 'name: is taken; is too long');
    assert.equal(platformErrorWords([1, 2]), undefined);
  });
});

describe('platform fan-out', () => {
  it('health refreshes of 100 crews keep at most 4 requests in flight against the simulator, each answered', async () => {
    const crews = Array.from({ length: 100 }, (_, i) => ({ ...demoCrews()[0], id: `c${i}`, name: `Crew ${i}` }));
    const sim = await startSimulator({
      crews,
      platform: { token: 'pat', deployments: crews.map((c) => ({ uuid: `dep-${c.id}`, organization: '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d', crewId: c.id, name: c.name })) },
    });
    const client = new PlatformClient();
    let inFlight = 0;
    let most = 0;
    try {
      await eachBounded(crews, 4, async (crew) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          assert.equal((await client.status({ baseUrl: sim.origin, token: 'pat' }, `dep-${crew.id}`)).state, 'online');
        } finally {
          inFlight -= 1;
        }
      });
    } finally {
      await client.dispose();
      await sim.close();
    }
    assert.equal(most, 4);
    const statuses = sim.requestLog.entries.filter((e) => e.path.endsWith('/status')).map((e) => e.status);
    assert.equal(statuses.length, 100);
    assert.ok(statuses.every((s) => s === 200));
  });

  it('runs nothing for no items and everything for fewer items than the limit', async () => {
    const seen: number[] = [];
    await eachBounded([], 4, async () => {
      seen.push(0);
    });
    await eachBounded([1, 2], 4, async (n) => {
      seen.push(n);
    });
    assert.deepEqual(seen, [1, 2]);
  });
});

describe('platform client against the simulator', function () {
  this.timeout(20_000);
  let sim: Simulator;
  const client = new PlatformClient();
  const [research, review] = demoCrews();
  const ORG_A = 'org-a';
  const ORG_B = 'org-b';

  before(async () => {
    sim = await startSimulator({
      timeScale: 1,
      crews: [research, review],
      platform: {
        token: 'pat-secret-123',
        organizations: [
          { uuid: ORG_A, name: 'Org A' },
          { uuid: ORG_B, name: 'Org B' },
        ],
        phaseMs: 60,
        deployments: [
          { uuid: 'dep-research', organization: ORG_A, crewId: research.id, name: 'Research', shape: 'full' },
          { uuid: 'dep-review', organization: ORG_A, crewId: review.id, name: 'Review', shape: 'urlOnly' },
          { uuid: 'dep-names', organization: ORG_A, name: 'Names only', shape: 'namesOnly' },
          { uuid: 'dep-other', organization: ORG_B, crewId: research.id, name: 'Other org' },
        ],
      },
    });
  });
  after(async () => {
    await client.dispose();
    await sim?.close();
  });

  const creds = (organizationId?: string, token = 'pat-secret-123') => ({ baseUrl: sim.origin, token, organizationId });

  it('refuses a wrong personal token with 401 and never echoes it', async () => {
    await assert.rejects(client.organizations(creds(undefined, 'wrong-token')), (e: unknown) => e instanceof PlatformError && e.kind === 'unauthorized' && !e.message.includes('wrong-token'));
  });

  it('lists organizations and the selected organization’s deployments in every shape', async () => {
    assert.deepEqual(await client.organizations(creds()), [
      { uuid: ORG_A, name: 'Org A' },
      { uuid: ORG_B, name: 'Org B' },
    ]);
    const { deployments } = await client.deployments(creds(ORG_A));
    assert.deepEqual(
      deployments.map((d) => [d.uuid, d.state, d.publicUrl]),
      [
        ['dep-research', 'online', sim.crewUrl(research.id)],
        ['dep-review', 'online', sim.crewUrl(review.id)],
        ['dep-names', 'online', undefined],
      ],
    );
    const full = await client.status(creds(ORG_A), 'dep-research');
    assert.equal(full.token, sim.crews.find((c) => c.id === research.id)?.orgToken);
    const urlOnly = await client.status(creds(ORG_A), 'dep-review');
    assert.deepEqual([urlOnly.publicUrl, urlOnly.token], [sim.crewUrl(review.id), undefined]);
    assert.deepEqual((await client.deployments(creds(ORG_B))).deployments.map((d) => d.uuid), ['dep-other']);
  });

  it('answers 404 deployment_not_found for another organization’s deployment', async () => {
    await assert.rejects(client.status(creds(ORG_B), 'dep-research'), (e: unknown) => e instanceof PlatformError && e.kind === 'notFound' && /deployment/i.test(e.message));
  });

  it('redeploys: enqueued, building, online, with logs; a failing one says why', async () => {
    const reply = await client.redeploy(creds(ORG_A), 'dep-research');
    assert.equal(reply.state, 'deploying');
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const s = await client.status(creds(ORG_A), 'dep-research');
      seen.add(s.status ?? '');
      if (s.state !== 'deploying') {
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(seen.has('Crew is Online'), [...seen].join(', '));
    assert.equal(sim.platform.deploys('dep-research'), 1);
    sim.platform.setFailNextDeploy('dep-review', true);
    await client.redeploy(creds(ORG_A), 'dep-review');
    let last = '';
    for (let i = 0; i < 200 && classifyStatus(last) !== 'failed'; i++) {
      last = (await client.status(creds(ORG_A), 'dep-review')).status ?? '';
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(last, 'Provisioning Failed, try again.');
    const { lines } = await client.logs(creds(ORG_A), 'dep-review');
    assert.match(lines[lines.length - 1].message, /pip install failed/);
    assert.equal(lines[lines.length - 1].level, 'ERROR');
  });
});
