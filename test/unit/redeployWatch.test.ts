// What a followed redeploy has shown (#51): when it counts as started, its phase in sentence case, a failed build's
// first error line; the status body's numeric id and deployment time; the simulator platform's redeploy phases
// (with the lag before the platform shows one) and its deployment API route.
import * as assert from 'node:assert/strict';
import { parseDeploymentStatus, parseRedeploy } from '../../src/platform/parse';
import { PlatformClient } from '../../src/platform/platformClient';
import { endOf, firstErrorLine, phaseLine, sentenceCase, showsStart } from '../../src/platform/redeployWatch';
import { DEMO_CI_TOKEN } from '../../src/simulator/platform';
import { startSimulator, type Simulator } from '../../src/simulator/server';

describe('a followed redeploy’s status (#51)', () => {
  it('counts as started on other words or a new deployment time; with nothing known before, on a deploying status', () => {
    const before = { status: 'Crew is Online', deployedAt: 't1' };
    assert.equal(showsStart(before, { status: 'Crew is Online', state: 'online', deployedAt: 't1' }), false);
    assert.equal(showsStart(before, { status: 'Crew is Online', state: 'online' }), false);
    assert.equal(showsStart(before, { status: 'Deploy Enqueued', state: 'deploying', deployedAt: 't1' }), true);
    assert.equal(showsStart(before, { status: 'Crew is Online', state: 'online', deployedAt: 't2' }), true);
    assert.equal(showsStart(before, { state: 'unknown' }), false, 'no words are no sign');
    assert.equal(showsStart(undefined, { status: 'Crew is Online', state: 'online' }), false);
    assert.equal(showsStart(undefined, { status: 'Building Image', state: 'deploying' }), true);
    assert.equal(endOf(false, { status: 'Crew is Online', state: 'online' }), undefined);
    assert.equal(endOf(true, { status: 'Crew is Online', state: 'online' }), 'online');
    assert.equal(endOf(true, { status: 'Provisioning Failed, try again.', state: 'failed' }), 'failed');
    assert.equal(endOf(true, { status: 'Building Image', state: 'deploying' }), undefined);
  });

  it('shows the platform’s words in sentence case, keeping capitals that mean something', () => {
    assert.equal(sentenceCase('Crew is Online'), 'Crew is online');
    assert.equal(sentenceCase('Deploy Enqueued'), 'Deploy enqueued');
    assert.equal(sentenceCase('Provisioning Failed, try again.'), 'Provisioning failed, try again.');
    assert.equal(sentenceCase('building image on CrewAI AMP'), 'Building image on CrewAI AMP');
    assert.equal(sentenceCase('ERROR: Image Build Failed'), 'ERROR: image build failed');
    assert.equal(sentenceCase(''), '');
    assert.equal(phaseLine(true, 'Building Image', 65_000), 'Building image · 1m 05s');
    assert.equal(phaseLine(false, undefined, 0), 'Waiting for the platform to start it · 0s');
  });

  it('finds the build’s first error line: by level when there is one, by words only without; older builds’ lines left out', () => {
    const since = Date.parse('2025-06-01T12:00:00Z');
    const lines = [
      { timestamp: '2025-06-01T11:00:00Z', level: 'ERROR', message: 'last hour’s failure' },
      { timestamp: '2025-06-01T11:59:30Z', level: 'INFO', message: 'Deploy enqueued (the platform’s clock is 30 s behind)' },
      { timestamp: '2025-06-01T12:00:05Z', level: 'INFO', message: 'pip: 0 errors, 1 warning' },
      { timestamp: '2025-06-01T12:00:06Z', level: 'WARNING', message: 'failed to read cache, rebuilding' },
      { timestamp: '2025-06-01T12:00:07Z', level: 'CRITICAL', message: '  Traceback: ModuleNotFoundError: crewai_tools  ' },
      { timestamp: '2025-06-01T12:00:08Z', level: 'ERROR', message: 'Build failed' },
    ];
    assert.equal(firstErrorLine(lines, since), 'Traceback: ModuleNotFoundError: crewai_tools');
    assert.equal(firstErrorLine(lines), 'last hour’s failure', 'with no start time, the whole log');
    assert.equal(firstErrorLine([{ message: 'Step 1' }, { message: 'E: pip install failed (exit 1)' }, { message: 'error again' }], since), 'E: pip install failed (exit 1)', 'no times: every line');
    assert.equal(firstErrorLine(lines.slice(0, 1), since), undefined, 'nothing of this build');
    assert.equal(firstErrorLine([], since), undefined);
  });

  it('reads the numeric deployment id and the deployment time from a status, wherever the body puts them', () => {
    assert.deepEqual(
      [parseDeploymentStatus({ status: 'x', deployment_id: 103671, deployed_at: '2025-06-01T12:00:00Z' })].map((s) => [s.deploymentId, s.deployedAt]),
      [['103671', '2025-06-01T12:00:00Z']],
    );
    assert.equal(parseDeploymentStatus({ deploymentId: '42' }).deploymentId, '42');
    assert.equal(parseDeploymentStatus({ deployment: { id: 7, updated_at: 'later' } }).deploymentId, '7');
    assert.equal(parseDeploymentStatus({ deployment: { id: 7, updated_at: 'later' } }).deployedAt, 'later');
    for (const bad of ['d0000001-5d1e', -3, 1.5, '1 2', { id: 1 }, '9'.repeat(21)]) {
      assert.equal(parseDeploymentStatus({ deployment_id: bad }).deploymentId, undefined, JSON.stringify(bad));
    }
    assert.deepEqual([parseRedeploy({ uuid: 'u-1', status: 'Deploy Enqueued' }).uuid, parseRedeploy({}).uuid, parseRedeploy({}).deploymentId], ['u-1', undefined, undefined]);
  });
});

describe('the simulator platform’s redeploys (#51)', function () {
  this.timeout(20_000);
  let sim: Simulator | undefined;
  const client = new PlatformClient();
  const ORG = '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d';
  after(() => client.dispose());
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('keeps saying what it said before for the start lag, then enqueued with a new deployment time; the status names the numeric id', async () => {
    // timeScale 1, phases of an hour: the lag and the phases are far longer than the test.
    sim = await startSimulator({ crews: [], platform: { startLagMs: 3_600_000, phaseMs: 3_600_000, deployments: [{ uuid: 'dep-a', organization: ORG, name: 'A', deploymentId: 555 }] } });
    const creds = { baseUrl: sim.origin, token: sim.platform.token };
    const before = await client.status(creds, 'dep-a');
    assert.deepEqual([before.status, before.deploymentId], ['Crew is Online', '555']);
    assert.ok(before.deployedAt && !Number.isNaN(Date.parse(before.deployedAt)));
    const reply = await client.redeploy(creds, 'dep-a');
    assert.equal(reply.status, 'Deploy Enqueued');
    const during = await client.status(creds, 'dep-a');
    assert.deepEqual([during.status, during.deployedAt], [before.status, before.deployedAt], 'the platform has not shown it yet');
    assert.equal(sim.platform.idOf('dep-a'), '555');
  });

  it('goes enqueued → building → online with no lag; the deployment time changes with the start', async () => {
    sim = await startSimulator({ crews: [], platform: { startLagMs: 0, phaseMs: 3_600_000, deployments: [{ uuid: 'dep-a', organization: ORG, name: 'A' }] } });
    const creds = { baseUrl: sim.origin, token: sim.platform.token };
    const before = await client.status(creds, 'dep-a');
    await client.redeploy(creds, 'dep-a');
    const after = await client.status(creds, 'dep-a');
    assert.equal(after.status, 'Deploy Enqueued');
    assert.notEqual(after.deployedAt, before.deployedAt);
    assert.equal(after.deploymentId, '103671', 'the first deployment’s default id');
  });

  it('the deployment API: a pat_ token and the numeric id; 401 and 404 in the documented words', async () => {
    sim = await startSimulator({ crews: [], platform: { token: 'pat_personal', deployments: [{ uuid: 'dep-a', organization: ORG, name: 'A', deploymentId: 103671 }] } });
    const post = async (id: string, token: string, method = 'POST') => {
      const response = await fetch(`${sim!.origin}/crewai_plus/api/v1/deployments/${id}/redeploy`, { method, headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    assert.deepEqual(await post('103671', DEMO_CI_TOKEN), { status: 200, body: { message: 'Deployment triggered successfully', deployment_id: '103671', status: 'enqueued' } });
    assert.deepEqual(await post('103671', 'pat_personal'), { status: 200, body: { message: 'Deployment triggered successfully', deployment_id: '103671', status: 'enqueued' } }, 'the user’s own pat_ token too');
    assert.deepEqual(await post('103671', 'crewai-demo-token'), { status: 401, body: { error: 'Authentication failed', message: 'Invalid or expired Personal Access Token' } });
    assert.deepEqual(await post('103671', 'pat_other'), { status: 401, body: { error: 'Authentication failed', message: 'Invalid or expired Personal Access Token' } });
    assert.equal((await post('999', DEMO_CI_TOKEN)).status, 404);
    assert.equal((await post('dep-a', DEMO_CI_TOKEN)).status, 404, 'the uuid is not the id');
    assert.equal((await post('103671', DEMO_CI_TOKEN, 'GET')).status, 405);
    assert.equal(sim.platform.deploys('dep-a'), 2);
  });
});
