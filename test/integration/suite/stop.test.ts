// Stop Run in a real VS Code against the simulator: a running run ends cancelled, a finished one
// says it already ended, and a crew without the route is said so once and loses the action.
import * as assert from 'assert';
import type { CrewConfig, Simulator } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import { executeCommand, showCrewRunsView, waitFor } from '../helpers';
import { answerModal, closeQuickInput, pressInQuickInput, waitForQuickInput } from './support/kit';
import { type Api, MessageSpy, addSimulatorCrews, cleanUp, kickOff, runItem, testApi, waitForRun } from './support/monitoring';

const crew = (id: string, name: string, taskMs: number, extra: Partial<CrewConfig> = {}): CrewConfig => ({
  id,
  name,
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 300,
  tasks: [
    { name: 'research_task', agent: 'Researcher', durationMs: taskMs, output: 'Notes on {topic}.' },
    { name: 'writing_task', agent: 'Writer', durationMs: taskMs, output: '# {topic}' },
  ],
  ...extra,
});

describe('Stop Run', function () {
  this.timeout(120_000);
  let api: Api;
  let sim: Simulator;
  let crews: Record<string, { url: string; name: string }>;
  const runIds = new Set<string>();
  let spy: MessageSpy;

  before(async () => {
    spy = new MessageSpy();
    api = await testApi();
    sim = await startSimulator({ timeScale: 1, dialect: 'live', crews: [crew('long', 'Long', 60_000), crew('quick', 'Quick', 200), crew('nostop', 'No Stop', 60_000, { stopRoute: false })] });
    crews = await addSimulatorCrews(api, sim, 'Stop');
    await showCrewRunsView();
  });

  after(async () => {
    spy?.dispose();
    await cleanUp(api, runIds);
    await sim?.close();
  });

  it('a running run is stopped after the confirmation and ends cancelled', async () => {
    const runId = await kickOff(crews.long.url, { topic: 'stop me' });
    runIds.add(runId);
    await waitForRun(api, runId, (r) => r.state === 'running', 'the run is running');
    assert.match((await runItem(api, runId)).contextValue ?? '', /\bwatching\b/);
    assert.doesNotMatch((await runItem(api, runId)).contextValue ?? '', /\bnoStop\b/, 'Stop Run is offered');
    const modal = answerModal('Stop Run');
    let outcome: unknown;
    try {
      outcome = await executeCommand('crewRuns.stopRun', { runId });
    } finally {
      modal.dispose();
    }
    assert.strictEqual(modal.calls.length, 1, 'the user was asked first');
    assert.match(modal.calls[0].message, /Stop "stop me" on Stop Long\?/);
    assert.strictEqual(outcome, 'stopped');
    assert.ok(spy.matching(/accepted the stop of "stop me"/).length > 0, 'the outcome is said in plain words');
    const run = await waitForRun(api, runId, (r) => r.state === 'cancelled', 'polling reports the run cancelled', 30_000);
    assert.strictEqual(sim.getRun(run.kickoffId)?.phase, 'stopped');
    assert.strictEqual(sim.requestLog.counts('long').stop, 1, 'one stop request');
  });

  it('declining the confirmation sends nothing', async () => {
    const runId = await kickOff(crews.long.url, { topic: 'keep me' });
    runIds.add(runId);
    const modal = answerModal(undefined);
    try {
      assert.strictEqual(await executeCommand('crewRuns.stopRun', { runId }), 'declined');
    } finally {
      modal.dispose();
    }
    assert.strictEqual(sim.requestLog.counts('long').stop, 1, 'no new stop request');
    await api.stopRun(runId); // Not left running.
  });

  it('a run that already ended says so in the crew\'s words', async () => {
    const runId = await kickOff(crews.quick.url, { topic: 'too late' });
    runIds.add(runId);
    const run = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the quick run succeeds');
    // The store already knows; the crew is asked anyway (as from another window that had not yet seen it).
    const outcome = await api.stopRun(run.id);
    assert.strictEqual(outcome, 'alreadyEnded');
    const said = spy.matching(/had already ended/);
    assert.ok(said.length > 0 && /Current state: SUCCESS/.test(said[said.length - 1].message), `the crew's words are quoted: ${JSON.stringify(said)}`);
    assert.strictEqual(api.runs.get(runId)?.state, 'succeeded');
  });

  // Issue 30: anything that can run a command (another extension, a command link) names what to do; the user still decides.
  it('crewRuns.kickOff { crew, inputs } from outside only opens the review with those inputs: nothing is sent until the user kicks off', async () => {
    const kickoffs = () => sim.requestLog.counts('quick').kickoff;
    const before = kickoffs();
    const declined = executeCommand<string | undefined>('crewRuns.kickOff', { crew: crews.quick.url, inputs: { topic: 'from a link' } });
    const review = await waitForQuickInput(/Kick Off Stop Quick: review/);
    assert.match(review, /from a link/, 'the review shows the inputs given');
    assert.strictEqual(kickoffs(), before, 'no kickoff while the review is open');
    await closeQuickInput();
    assert.strictEqual(await declined, undefined);
    assert.strictEqual(kickoffs(), before, 'no kickoff after Escape');
    const accepted = executeCommand<string | undefined>('crewRuns.kickOff', { crew: crews.quick.url, inputs: { topic: 'seen first' } });
    await pressInQuickInput('Enter', { when: /seen first/, activeItem: 'Kick Off' });
    const runId = await accepted;
    assert.ok(typeof runId === 'string', 'kicked off once the user pressed Kick Off');
    runIds.add(runId);
    assert.strictEqual(kickoffs(), before + 1);
  });

  it('crewRuns.stopRun { runId, confirmed: true } from outside still asks first; declined, nothing is sent', async () => {
    const runId = await kickOff(crews.long.url, { topic: 'not from a link' });
    runIds.add(runId);
    await waitForRun(api, runId, (r) => r.state === 'running', 'the run is running');
    const stops = sim.requestLog.counts('long').stop;
    const modal = answerModal(undefined);
    try {
      assert.strictEqual(await executeCommand('crewRuns.stopRun', { runId, confirmed: true }), 'declined');
    } finally {
      modal.dispose();
    }
    assert.strictEqual(modal.calls.length, 1, 'the confirmation was shown');
    assert.strictEqual(sim.requestLog.counts('long').stop, stops, 'no stop request');
    assert.notStrictEqual(api.runs.get(runId)?.state, 'cancelled');
    await api.stopRun(runId); // Not left running.
  });

  it('a crew without the route is said so once and the action is hidden for its runs', async () => {
    const first = await kickOff(crews.nostop.url, { topic: 'unstoppable' });
    const second = await kickOff(crews.nostop.url, { topic: 'also unstoppable' });
    runIds.add(first).add(second);
    assert.doesNotMatch((await runItem(api, first)).contextValue ?? '', /\bnoStop\b/, 'offered until the crew says otherwise');
    assert.strictEqual(await api.stopRun(first), 'unsupported');
    assert.strictEqual(await api.stopRun(second), 'unsupported');
    assert.strictEqual(spy.matching(/does not offer stopping runs/).length, 1, 'said once');
    for (const id of [first, second]) {
      assert.match((await runItem(api, id)).contextValue ?? '', /\bnoStop\b/, 'Stop Run is hidden for the crew\'s runs');
    }
    assert.notStrictEqual(api.runs.get(first)?.state, 'cancelled');
  });

  it('a Check Connection that succeeds offers Stop Run again (a redeployed crew may have gained the route)', async () => {
    const id = await kickOff(crews.nostop.url, { topic: 'redeployed' });
    runIds.add(id);
    await waitFor(async () => /\bnoStop\b/.test((await runItem(api, id)).contextValue ?? ''), { message: 'hidden after the 404' });
    assert.strictEqual(await executeCommand('crewRuns.checkConnection', crews.nostop.url), true);
    await waitFor(async () => !/\bnoStop\b/.test((await runItem(api, id)).contextValue ?? ''), { message: 'Stop Run is offered again after Check Connection' });
  });
});
