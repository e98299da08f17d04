// Run monitoring in a real VS Code against the crew simulator: the tree, the log channel, the status
// bar and the notifications follow a run from kickoff to its end; failures, NOT FOUND, flaky reads,
// Stop/Resume Watching, tracking a kickoff id, and ten runs on three crews.
import * as assert from 'assert';
import type { CrewConfig, Simulator } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import { executeCommand, showCrewRunsView, ui, waitFor, waitForLog } from '../helpers';
import { answerModal, typeInQuickInput, waitForQuickInput } from './support/kit';
import {
  type Api,
  MessageSpy,
  addSimulatorCrews,
  childItems,
  cleanUp,
  iconId,
  kickOff,
  kickOffUnreviewed,
  runItem,
  runLogLines,
  testApi,
  waitForRun,
  waitForStatusBar,
  waitForNotification,
  stateChanges,
} from './support/monitoring';

const twoTasks = (pendingMs: number, taskMs: number): Pick<CrewConfig, 'pendingMs' | 'tasks' | 'inputs' | 'kind'> => ({
  kind: 'crew',
  inputs: ['topic'],
  pendingMs,
  tasks: [
    { name: 'research_task', agent: 'Researcher', durationMs: taskMs, output: 'Notes on {topic}: three findings.' },
    { name: 'writing_task', agent: 'Writer', durationMs: taskMs, output: '# Report on {topic}\n\nEverything went well.' },
  ],
});

const CREWS: CrewConfig[] = [
  // Long enough to be seen queued, then running (also in the status bar's DOM, read through the
  // UI bridge, which is slow on a loaded 2-core machine).
  { id: 'alpha', name: 'Alpha', ...twoTasks(4000, 6000) },
  { id: 'broken', name: 'Broken', ...twoTasks(500, 1000), scenario: 'fail', failureMessage: 'ValueError: the data source is down' },
  { id: 'late', name: 'Late', ...twoTasks(500, 4000), scenario: 'notFoundAfterKickoff', notFoundForMs: 5000 },
  { id: 'lost', name: 'Lost', ...twoTasks(500, 1000), scenario: 'lost' },
  {
    id: 'flaky',
    name: 'Flaky',
    ...twoTasks(1000, 6000),
    faults: { readFaultRate: 0.6, readFaultKinds: ['500', '502html', '429', 'reset', 'malformed'], retryAfterSeconds: 1 },
  },
  { id: 'slow', name: 'Slow', ...twoTasks(500, 4000) },
  { id: 'ten-a', name: 'Ten A', ...twoTasks(500, 800) },
  { id: 'ten-b', name: 'Ten B', ...twoTasks(500, 800), scenario: 'fail' },
  { id: 'ten-c', name: 'Ten C', ...twoTasks(500, 800) },
];

describe('Monitoring', function () {
  this.timeout(240_000);
  let api: Api;
  let sim: Simulator;
  let crews: Record<string, { url: string; name: string }>;
  const runIds = new Set<string>();
  let spy: MessageSpy;

  before(async () => {
    spy = new MessageSpy();
    api = await testApi();
    sim = await startSimulator({ timeScale: 1, dialect: 'live', crews: CREWS, seed: 7 });
    crews = await addSimulatorCrews(api, sim, 'Mon');
    await showCrewRunsView();
    await executeCommand('notifications.clearAll');
  });

  afterEach(async () => {
    await executeCommand('notifications.clearAll');
  });

  after(async () => {
    spy?.dispose();
    await cleanUp(api, runIds);
    await sim?.close();
  });

  async function start(crewId: string, topic: string): Promise<string> {
    const id = await kickOff(crews[crewId].url, { topic });
    runIds.add(id);
    return id;
  }

  it('follows a run queued → running → succeeded in the tree, log, status bar and a notification', async () => {
    const runId = await start('alpha', 'Lifecycle');
    const queued = api.runs.get(runId)!;
    assert.strictEqual(queued.state, 'queued');
    assert.strictEqual(queued.label, 'Lifecycle');
    let item = await runItem(api, runId);
    assert.strictEqual(item.label, 'Lifecycle');
    assert.match(String(item.description), /^queued · (<1m|\d+m)$/);
    assert.strictEqual(iconId(item), 'clock');
    assert.strictEqual(item.contextValue, 'run state-queued watching');
    await waitForStatusBar((t) => /(^|\s)1 running\b/.test(t), 'the status bar counting one running run');

    await waitForRun(api, runId, (r) => r.state === 'running', 'the run running');
    item = await runItem(api, runId);
    assert.match(String(item.description), /^running( \d\/2)? · (<1m|\d+m)$/);
    assert.strictEqual(iconId(item), 'sync~spin');
    assert.strictEqual(item.contextValue, 'run state-running watching');
    const statusWhileRunning = await waitForStatusBar((t) => /(^|\s)1 running\b/.test(t), 'the status bar still counting the run');
    assert.doesNotMatch(statusWhileRunning, /needs feedback/);
    // The task in progress is a child of the run.
    const inProgress = await waitFor(
      async () => (await childItems(api, api.tree.runNode(runId))).find((c) => c.description === 'in progress'),
      { message: 'a task in progress under the run', timeoutMs: 30_000 },
    );
    assert.match(String(inProgress.label), /^(research_task|writing_task)$/);
    assert.strictEqual(iconId(inProgress), 'loading~spin');

    const done = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the run succeeded');
    assert.strictEqual(done.watching, false);
    item = await runItem(api, runId);
    assert.strictEqual(item.description, 'succeeded · just now');
    assert.strictEqual(iconId(item), 'pass');
    assert.strictEqual(item.contextValue, 'run state-succeeded finished');
    const tasks = await childItems(api, api.tree.runNode(runId));
    assert.deepStrictEqual(
      tasks.map((t) => [t.label, t.description, iconId(t), t.contextValue]),
      [
        ['research_task', 'Researcher', 'check', 'task'],
        ['writing_task', 'Writer', 'check', 'task'],
      ],
    );
    const details = await api.runs.readDetails(runId);
    assert.strictEqual(details.finalOutput?.text, '# Report on Lifecycle\n\nEverything went well.');
    assert.deepStrictEqual(stateChanges(details.history), ['queued', 'running', 'succeeded']);

    await waitForStatusBar((t) => !/running/.test(t), 'the status bar item hidden once nothing runs');
    await waitForNotification(`Lifecycle on ${crews.alpha.name} succeeded.`);
    assert.deepStrictEqual(
      spy.matching(/Lifecycle/).map((m) => [m.level, m.message, m.items]),
      [['info', `Lifecycle on ${crews.alpha.name} succeeded.`, ['Open Run', 'Show Output']]],
      'one notification, at the end: "Started" passed in the status bar, so no toast of it stays behind the ended run',
    );
    assert.deepStrictEqual(spy.statusMessages.filter((m) => m.includes('Lifecycle')), [`Started Lifecycle on ${crews.alpha.name}.`]);

    const log = await waitForLog(/Lifecycle\] Final output:/);
    assert.strictEqual(log.split('# Report on Lifecycle').length - 1, 1, 'the final output is logged once');
    const lines = await runLogLines(done);
    console.log(`      log lines: ${JSON.stringify(lines)}`);
    const count = (line: string) => lines.filter((l) => l === line).length;
    assert.strictEqual(count('info: Run is queued'), 1);
    assert.strictEqual(count('info: Run is running'), 1);
    assert.strictEqual(count('info: Task research_task finished (Researcher)'), 1);
    assert.strictEqual(count('info: Task writing_task finished (Writer)'), 1);
    assert.strictEqual(count('info: Run succeeded'), 1);
    assert.strictEqual(count('info: Final output:'), 1);
    const order = ['info: Run is queued', 'info: Run is running', 'info: Run succeeded', 'info: Final output:'].map((l) => lines.indexOf(l));
    assert.deepStrictEqual([...order].sort((a, b) => a - b), order, 'queued, running, succeeded, then the output');
    lines.forEach((line, i) => assert.notStrictEqual(line, lines[i - 1], `line ${i} repeats the previous one`));
    assert.ok(lines.every((l) => !l.startsWith('warning:') && !l.startsWith('error:')), 'no warnings or errors');
  });

  it('shows a failed run with its error, in the tree, the log and an error notification', async () => {
    const runId = await start('broken', 'Doomed');
    const run = await waitForRun(api, runId, (r) => r.state === 'failed', 'the run failed');
    assert.strictEqual(run.watching, false);
    assert.strictEqual(run.needsFeedback, false);
    const details = await api.runs.readDetails(runId);
    assert.strictEqual(details.error, 'ValueError: the data source is down');
    assert.strictEqual(details.finalOutput, undefined);
    const item = await runItem(api, runId);
    assert.strictEqual(iconId(item), 'error');
    assert.strictEqual(item.contextValue, 'run state-failed finished');
    assert.match(String(item.description), /^failed · just now$/);
    // Why it failed, in the notice; no Show Output for a run with no output.
    await waitForNotification(`Doomed on ${crews.broken.name} failed: ValueError: the data source is down`);
    assert.deepStrictEqual(
      spy.matching(/^Doomed on/).map((m) => [m.level, m.message, m.items]),
      [['error', `Doomed on ${crews.broken.name} failed: ValueError: the data source is down`, ['Open Run', 'Show Log']]],
    );
    await waitForLog(/Doomed\] ValueError: the data source is down/);
    const lines = await runLogLines(run);
    assert.strictEqual(lines.filter((l) => l === 'info: Run failed').length, 1);
    assert.strictEqual(lines.filter((l) => l === 'error: ValueError: the data source is down').length, 1);
    assert.ok(!lines.some((l) => l.includes('Final output')), 'no final output for a failed run');
    await waitForStatusBar((t) => !/running/.test(t), 'the status bar item hidden once nothing runs');
  });

  it('keeps watching a run the service does not know yet just after kickoff (notFoundAfterKickoff), then it succeeds', async () => {
    const states: string[] = [];
    let runId = '';
    const subscription = api.poller.onDidPoll((p) => p.runId === runId && states.push(`${p.ok ? 'ok' : 'failed'} ${api.runs.get(runId)?.state}`));
    try {
      runId = await start('late', 'Latecomer');
      const run = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the late run succeeded');
      const simRun = sim.getRun(run.kickoffId)!;
      const hiddenChecks = sim.requestLog.entries.filter((e) => e.crewId === 'late' && e.endpoint === 'status' && e.time < simRun.createdAt + 5000).length;
      console.log(`      checks while hidden: ${hiddenChecks}; states after each check: ${JSON.stringify(states)}`);
      assert.ok(hiddenChecks >= 1, 'at least one status check met NOT FOUND');
      assert.deepStrictEqual(states.slice(0, hiddenChecks), Array(hiddenChecks).fill('ok queued'), 'NOT FOUND right after kickoff changes nothing');
      const details = await api.runs.readDetails(runId);
      assert.deepStrictEqual(stateChanges(details.history), ['queued', 'running', 'succeeded']);
      const lines = await runLogLines(run);
      assert.ok(!lines.some((l) => /does not know|not found/i.test(l)), `no NOT FOUND line in ${JSON.stringify(lines)}`);
      await waitFor(() => spy.matching(/^Latecomer on .* succeeded\.$/).length === 1, { message: 'one success notification' });
      assert.strictEqual(spy.matching(/Latecomer.*(waiting for your feedback|failed)/).length, 0);
    } finally {
      subscription.dispose();
    }
  });

  it('keeps a lost run queued and watched within the NOT FOUND grace period', async () => {
    // The grace period (2 min) is not configurable, so expiry itself is not waited for here.
    const runId = await start('lost', 'Vanished');
    await waitFor(() => sim.requestLog.entries.filter((e) => e.crewId === 'lost' && e.endpoint === 'status').length >= 3, {
      message: 'three status checks of the lost run',
      timeoutMs: 40_000,
    });
    const run = api.runs.get(runId)!;
    assert.strictEqual(run.state, 'queued');
    assert.strictEqual(run.watching, true);
    assert.strictEqual(run.stopReason, undefined);
    assert.strictEqual(run.needsFeedback, false);
    assert.strictEqual(run.seenBySource, false);
    assert.strictEqual((await runItem(api, runId)).contextValue, 'run state-queued watching');
    await api.poller.stopWatching(runId);
    assert.strictEqual(api.runs.get(runId)?.watching, false);
  });

  it('rides out 500, 502 HTML, 429 with Retry-After, resets and malformed bodies: the run succeeds, warnings stay bounded', async () => {
    const polls: { ok: boolean; error?: string }[] = [];
    let runId = '';
    const subscription = api.poller.onDidPoll((p) => p.runId === runId && polls.push({ ok: p.ok, error: p.error }));
    try {
      runId = await start('flaky', 'Bumpy');
      const run = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the flaky run succeeded', 150_000);
      const faults = sim.requestLog.entries.filter((e) => e.crewId === 'flaky' && e.fault).map((e) => e.fault);
      console.log(`      faults injected: ${JSON.stringify(faults)}; failed checks: ${polls.filter((p) => !p.ok).length} of ${polls.length}`);
      assert.ok(faults.length >= 3, `faults were injected (${faults.length})`);
      const details = await api.runs.readDetails(runId);
      assert.strictEqual(details.finalOutput?.text, '# Report on Bumpy\n\nEverything went well.');
      assert.ok(!details.history.some((h) => h.state === 'failed' || h.state === 'notFound'), JSON.stringify(details.history));
      assert.strictEqual(run.warning, undefined, 'the warning is cleared once checks work');
      const lines = await runLogLines(run);
      const warnings = lines.filter((l) => l.startsWith('warning:'));
      const failedChecks = polls.filter((p) => !p.ok).length;
      assert.ok(warnings.length <= failedChecks, `at most one warning per failed check (${warnings.length} > ${failedChecks})`);
      assert.ok(warnings.length <= 6, `bounded warnings: ${JSON.stringify(warnings)}`);
      assert.ok(warnings.every((w) => w.startsWith('warning: Status check failed: ') && w.endsWith('(still watching)')), JSON.stringify(warnings));
      assert.ok(!lines.some((l) => l.startsWith('error:')), 'no error lines');
      assert.strictEqual(lines.filter((l) => l === 'info: Run succeeded').length, 1);
    } finally {
      subscription.dispose();
    }
  });

  it('stops and resumes watching a run', async () => {
    const runId = await start('slow', 'Paused watch');
    await waitForRun(api, runId, (r) => r.state === 'running', 'the slow run running');
    // Any extension or link can run it with a run: it says which run and what happens, and watches on without a yes.
    const declined = answerModal(undefined);
    try {
      await executeCommand('crewRuns.stopWatching', { runId });
    } finally {
      declined.dispose();
    }
    assert.deepStrictEqual(declined.calls.map((c) => [c.message, c.items]), [[`Stop watching "Paused watch" on ${api.runs.get(runId)?.crewName}?`, ['Stop Watching']]]);
    assert.match(declined.calls[0].detail ?? '', /The run goes on at the crew/);
    assert.strictEqual(api.runs.get(runId)?.watching, true, 'still watched without a yes');
    const confirmed = answerModal('Stop Watching');
    try {
      await executeCommand('crewRuns.stopWatching', { runId });
    } finally {
      confirmed.dispose();
    }
    let run = api.runs.get(runId)!;
    assert.strictEqual(run.watching, false);
    assert.strictEqual(run.stopReason, 'user');
    assert.strictEqual(run.state, 'running');
    assert.ok(!api.inspection.poller.scheduledRunIds().includes(runId), 'not scheduled any more');
    let item = await runItem(api, runId);
    assert.strictEqual(item.contextValue, 'run state-running stopped');
    assert.strictEqual(iconId(item), 'debug-pause');
    // Why, rather than a state it last saw: the run goes on at the crew unwatched (#52: the row kept "running").
    assert.strictEqual(item.description, 'not watching');
    await waitForStatusBar((t) => !/running/.test(t), 'no running run in the status bar while not watching');
    const checks = () => sim.requestLog.entries.filter((e) => e.crewId === 'slow' && e.endpoint === 'status').length;
    const before = checks();
    // The run ends at the crew meanwhile (~8.5 s after kickoff); nothing may ask about it.
    await waitFor(() => sim.getRun(run.kickoffId)?.phase === 'succeeded', { message: 'the run ending at the crew', timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.strictEqual(checks(), before, 'no status check while not watching');
    assert.strictEqual(api.runs.get(runId)?.state, 'running');

    await executeCommand('crewRuns.resumeWatching', { runId });
    assert.strictEqual(api.runs.get(runId)?.watching, true);
    run = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the resumed run succeeded');
    item = await runItem(api, runId);
    assert.strictEqual(item.contextValue, 'run state-succeeded finished');
    assert.ok(checks() > before, 'checked again after Resume Watching');
  });

  it('tracks a kickoff id of a run started outside VS Code', async function () {
    if (!ui.available()) {
      this.skip();
    }
    const served = sim.crews.find((c) => c.id === 'alpha')!;
    const kickoffId = await kickOffUnreviewed(served.url, served.orgToken, { topic: 'Elsewhere' });
    const tracked = executeCommand<string | undefined>('crewRuns.trackKickoffId', { url: served.url });
    await waitForQuickInput('Track a Kickoff ID on Mon Alpha', 'the kickoff id input box');
    await typeInQuickInput(kickoffId, { when: 'Track a Kickoff ID on Mon Alpha', enter: true });
    const runId = await tracked;
    assert.ok(typeof runId === 'string', 'the command returns the new run id');
    runIds.add(runId);
    const run = api.runs.get(runId)!;
    assert.strictEqual(run.kickoffId, kickoffId);
    assert.strictEqual(run.crewUrl, served.url);
    assert.deepStrictEqual((await api.runs.readDetails(run.id)).inputs, {});
    assert.match(run.label, /^Run of \d{4}-\d\d-\d\d \d\d:\d\d$/);
    await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the tracked run succeeded');
    const details = await api.runs.readDetails(runId);
    assert.strictEqual(details.finalOutput?.text, '# Report on Elsewhere\n\nEverything went well.');
    assert.deepStrictEqual(
      (await childItems(api, api.tree.runNode(runId))).map((t) => t.label),
      ['research_task', 'writing_task'],
    );
  });

  it('ends ten runs on three crews in their true states, with one notification each', async () => {
    try {
      const plan: { crew: string; topic: string; scenario?: CrewConfig['scenario']; expected: 'succeeded' | 'failed' }[] = [];
      for (let i = 1; i <= 4; i++) {plan.push({ crew: 'ten-a', topic: `Ten-${i}`, expected: 'succeeded' });}
      for (let i = 5; i <= 7; i++) {plan.push({ crew: 'ten-b', topic: `Ten-${i}`, expected: 'failed' });}
      plan.push({ crew: 'ten-c', topic: 'Ten-8', scenario: 'ok', expected: 'succeeded' });
      plan.push({ crew: 'ten-c', topic: 'Ten-9', scenario: 'failAtTask:1', expected: 'failed' });
      plan.push({ crew: 'ten-c', topic: 'Ten-10', scenario: 'ok', expected: 'succeeded' });
      const started: { runId: string; topic: string; crewName: string; expected: string }[] = [];
      for (const entry of plan) {
        if (entry.scenario) {
          sim.updateCrew(entry.crew, { scenario: entry.scenario });
        }
        started.push({ runId: await start(entry.crew, entry.topic), topic: entry.topic, crewName: crews[entry.crew].name, expected: entry.expected });
      }
      await waitFor(() => started.every((s) => ['succeeded', 'failed'].includes(api.runs.get(s.runId)?.state ?? '')), {
        message: `ten runs ended (${JSON.stringify(started.map((s) => api.runs.get(s.runId)?.state))})`,
        timeoutMs: 150_000,
        intervalMs: 300,
      });
      assert.deepStrictEqual(
        started.map((s) => [s.topic, api.runs.get(s.runId)?.state]),
        started.map((s) => [s.topic, s.expected]),
      );
      // A failure says why after a colon.
      const ending = /^(Ten-\d+) on (Mon Ten [ABC]) (succeeded|failed)(?:\.|: .+)$/;
      await waitFor(() => spy.matching(ending).length >= 10, { message: 'ten end notifications', timeoutMs: 30_000 });
      await new Promise((resolve) => setTimeout(resolve, 1000)); // A duplicate would show up by now.
      const endings = spy.matching(ending).map((m) => {
        const [, topic, crewName, verdict] = ending.exec(m.message)!;
        return [topic, crewName, verdict, m.level].join(' ');
      });
      assert.deepStrictEqual(
        endings.sort(),
        started.map((s) => [s.topic, s.crewName, s.expected, s.expected === 'succeeded' ? 'info' : 'error'].join(' ')).sort(),
      );
      assert.strictEqual(spy.statusMessages.filter((m) => /^Started Ten-\d+ on /.test(m)).length, 10, 'one passing "Started" message per kickoff');
      assert.deepStrictEqual(spy.matching(/^Started /), [], 'and no "Started" toast');
      // The newest is listed in the notification center.
      const last = spy.matching(ending).at(-1)!;
      await waitForNotification(last.message);
      const ten9 = started.find((s) => s.topic === 'Ten-9')!;
      const details = await api.runs.readDetails(ten9.runId);
      assert.strictEqual(details.error, "ValueError: Simulated failure in task 'writing_task'");
      assert.deepStrictEqual(details.tasks.map((t) => t.name), ['research_task']);
      await waitForStatusBar((t) => !/running/.test(t), 'the status bar item hidden once all ended');
    } finally {
      sim.updateCrew('ten-c', { scenario: 'ok' });
    }
  });
});
