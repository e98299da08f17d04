// @crew-runs-own-session — crews paused by a refused token must not weigh on the other suites.
//
// Issue #21 "Run state you can trust", Done when: a 401 pauses a crew; the token is then set from the
// tree's key action (not the notification) and every paused run, and a new kickoff, is polled
// again; Forget Token and Remove Crew never say "rejected" (no token is not a refused token); runs of
// a removed crew stay reachable (in the tree, and Open Run) until they are removed.
import * as assert from 'assert';
import type { CrewConfig, Simulator, TaskConfig } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, holdsFor, readLog, showCrewRunsView, ui, waitFor } from '../helpers';
import {
  answerModal,
  type Api,
  clearNotifications,
  closeQuickInput,
  crewRow,
  flatRows,
  pressInQuickInput,
  removeAllCrews,
  testApi,
  treeRows,
  type TreeRow,
  typeInQuickInput,
  waitForCrewDescription,
  waitForQuickInput,
} from './support/kit';
import { kickOff, MessageSpy } from './support/monitoring';

const task = (name: string, durationMs: number): TaskConfig => ({ name, agent: 'Agent', durationMs, output: `${name} on {topic}.` });
/** Runs that stay in flight through each test. */
const crew = (id: string, name: string): CrewConfig => ({ id, name, kind: 'crew', inputs: ['topic'], pendingMs: 500, tasks: [task('research_task', 300_000)] });

const ROTATED = 'rotated-token-0021';
/** Words that blame the token; a missing token is not a refused one. */
const BLAME = /reject|refused/i;
/** Long enough for several checks of a run in its first, fast minute (one every ~1.25 s). */
const OBSERVE_MS = 20_000;

describe('Token recovery', function () {
  this.timeout(180_000);
  let api: Api;
  let sim: Simulator;
  let spy: MessageSpy;
  const urls: Record<string, string> = {};
  const names: Record<string, string> = {};

  const kickoffIdOf = (runId: string) => {
    const run = api.runs.get(runId);
    assert.ok(run, `run ${runId} is in the store`);
    return run.kickoffId;
  };
  /** Status checks of a run the simulator answered since `since`. */
  const statusChecks = (runId: string, since = 0) => {
    const kickoffId = kickoffIdOf(runId);
    return sim.requestLog.entries.filter((e) => e.endpoint === 'status' && e.path.endsWith(`/${kickoffId}`) && e.time >= since);
  };
  const describeRun = (runId: string) => {
    const run = api.runs.get(runId);
    return JSON.stringify(run && { state: run.state, watching: run.watching, stopReason: run.stopReason, warning: run.warning });
  };
  const rowOf = (rows: TreeRow[], runId: string) => flatRows(rows).find((row) => row.type === 'run' && row.id === runId);

  async function startPolled(crewId: string, topic: string): Promise<string> {
    const runId = await kickOff(urls[crewId], { topic });
    await waitFor(() => statusChecks(runId).some((e) => e.status === 200), { message: `${topic} polled with its token`, timeoutMs: 30_000 });
    return runId;
  }

  /** Everything the user can read about a crew and its runs: notifications since `from`, warnings, tree rows, log lines after `logFrom`. */
  async function wordsAbout(crewUrl: string, runIds: string[], from: number, logFrom: number): Promise<string[]> {
    const rows = flatRows(await treeRows(api)).filter((row) => row.id === crewUrl || runIds.includes(row.id ?? ''));
    return [
      ...spy.shown.slice(from).map((m) => `notification: ${m.message}`),
      ...runIds.flatMap((id) => [api.runs.get(id)?.warning, api.runs.get(id)?.message].filter((w): w is string => Boolean(w)).map((w) => `run: ${w}`)),
      ...rows.map((row) => `tree: ${row.label} ${row.description} ${row.tooltip}`),
      ...(await readLog()).slice(logFrom).split('\n').filter((line) => line.trim()).map((line) => `log: ${line}`),
    ];
  }

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Set Token is answered in the real quick input.
    }
    api = await testApi();
    spy = new MessageSpy();
    sim = await startSimulator({ timeScale: 1, seed: 21, crews: [crew('paused', 'Paused'), crew('forgot', 'Forgot'), crew('removed', 'Removed')] });
    for (const served of sim.crews) {
      names[served.id] = `Tok ${served.name}`;
      urls[served.id] = served.url;
      await addCrewWithToken({ url: served.url, name: names[served.id], token: served.orgToken });
    }
    await showCrewRunsView();
    await clearNotifications();
  });

  afterEach(async () => {
    await closeQuickInput();
    await clearNotifications();
  });

  after(async () => {
    spy?.dispose();
    for (const run of api?.runs.list() ?? []) {
      await api.poller.stopWatching(run.id).catch(() => undefined);
      await api.runs.remove(run.id).catch(() => undefined);
    }
    if (api) {
      await removeAllCrews(api);
    }
    await executeCommand('workbench.action.closeAllEditors');
    await sim?.close();
  });

  it("a 401 pauses the crew; Set Token from the tree's key action polls every paused run again, and a new kickoff", async () => {
    const first = await startPolled('paused', 'Paused one');
    const second = await startPolled('paused', 'Paused two');
    sim.updateCrew('paused', { orgToken: ROTATED }); // Reset on the crew's Status tab meanwhile.
    await waitFor(() => [first, second].every((id) => api.runs.get(id)?.watching === false && api.runs.get(id)?.stopReason === 'unauthorized'), {
      message: `both runs paused by the 401 (${describeRun(first)}, ${describeRun(second)})`,
      timeoutMs: 30_000,
    });
    // The reporter words the pause after the store changed: wait for its notification, not just the state.
    await waitFor(() => spy.matching(new RegExp(`${names.paused}.*reject`)).length > 0, {
      message: 'a real 401 reported as a rejected token',
      timeoutMs: 15_000,
    });

    // The crew row offers its key action (shown for noToken or health-tokenRejected).
    const row = await waitFor(async () => flatRows(await treeRows(api)).find((r) => r.type === 'crew' && r.id === urls.paused && /\bhealth-tokenRejected\b/.test(r.contextValue)), {
      message: 'the crew row with the key action',
      timeoutMs: 15_000,
    });
    assert.ok(row);
    const node = ((await api.tree.getChildren()) ?? []).find((n) => n.type === 'crew' && n.crew.url === urls.paused);
    assert.ok(node, 'the crew node');
    await clearNotifications(); // Not the notification's Set Token…: the tree's.
    const since = Date.now();
    const done = executeCommand('crewRuns.setToken', node); // What the inline key action runs, with its node.
    await waitForQuickInput(`Set Token for ${names.paused}`);
    await pressInQuickInput('Enter', { activeItem: 'Organization Bearer Token' });
    await waitForQuickInput('Paste the token');
    await typeInQuickInput(ROTATED, { enter: true });
    await done;
    // Ready again: the row says so, or (once its paused runs are watched again) what they do.
    await waitFor(async () => /^(ready|\d+ running)/.test((await crewRow(api, urls.paused))?.description ?? '') || undefined, {
      message: 'the crew row ready again',
      timeoutMs: 30_000,
    });

    await waitFor(() => [first, second].every((id) => api.runs.get(id)?.watching), { message: 'every paused run watched again', timeoutMs: 20_000 }).catch((error: Error) => {
      throw new Error(`${error.message}: ${describeRun(first)}, ${describeRun(second)}`);
    });
    await waitFor(() => [first, second].every((id) => statusChecks(id, since).some((e) => e.status === 200)), {
      message: 'every paused run polled again with the new token',
      timeoutMs: 30_000,
    });
    const third = await kickOff(urls.paused, { topic: 'After the new token' });
    await waitFor(() => statusChecks(third).some((e) => e.status === 200), { message: `the new kickoff polled (${describeRun(third)})`, timeoutMs: 30_000 });
    const run = api.runs.get(third)!;
    assert.deepStrictEqual([run.watching, run.stopReason], [true, undefined], 'the new run is watched, not marked "token refused"');
  });

  it('Forget Token never says "rejected": the crew has no token, which is not a refused one', async () => {
    const runId = await startPolled('forgot', 'Forgotten token');
    const from = spy.shown.length;
    const logFrom = (await readLog()).length;
    const since = Date.now();
    const forget = answerModal('Forget Token');
    try {
      await executeCommand('crewRuns.forgetToken', urls.forgot);
    } finally {
      forget.dispose();
    }
    await waitForCrewDescription(api, urls.forgot, 'token missing');
    // Several checks of the run are due meanwhile: whatever they say, they must not blame a token.
    await holdsFor(OBSERVE_MS, async () => {
      const blamed = (await wordsAbout(urls.forgot, [runId], from, logFrom)).filter((line) => BLAME.test(line));
      return blamed.length > 0 ? `it said ${JSON.stringify(blamed)}` : undefined;
    });
    assert.deepStrictEqual(statusChecks(runId, since).filter((e) => !e.hasAuthorization).map((e) => e.path), [], 'no check went out without a token');
    await waitForCrewDescription(api, urls.forgot, 'token missing');
  });

  it('Remove Crew never says "rejected", and its runs stay reachable until removed', async () => {
    const runId = await startPolled('removed', 'Crew removed');
    const label = api.runs.get(runId)!.label;
    const from = spy.shown.length;
    const logFrom = (await readLog()).length;
    const modal = answerModal('Remove Crew');
    try {
      await executeCommand('crewRuns.removeCrew', urls.removed);
    } finally {
      modal.dispose();
    }
    assert.strictEqual(modal.calls.length, 1, 'Remove Crew asked first');
    assert.strictEqual(api.crews.get(urls.removed), undefined, 'the crew is gone');
    await holdsFor(OBSERVE_MS, async () => {
      const blamed = (await wordsAbout(urls.removed, [runId], from, logFrom)).filter((line) => BLAME.test(line));
      return blamed.length > 0 ? `it said ${JSON.stringify(blamed)}` : undefined;
    });

    assert.ok(api.runs.get(runId), 'the run is still in the history');
    const row = rowOf(await treeRows(api), runId);
    assert.ok(row, `the run of the removed crew is still in the tree (tree: ${JSON.stringify(flatRows(await treeRows(api)).map((r) => [r.path, r.label]))})`);
    assert.strictEqual(row.label, label);
    await executeCommand('crewRuns.openRun', { runId });
    const report = await waitFor(() => api.panels.inspect(runId)?.pageReport, { message: 'the run view of the run', timeoutMs: 30_000 });
    assert.ok(report.stateText, 'the run view shows the run');
    await executeCommand('workbench.action.closeAllEditors');

    // Any extension or link can run it with a run: it says which run goes, and keeps it without a yes.
    const kept = answerModal(undefined);
    try {
      await executeCommand('crewRuns.removeRun', { runId });
    } finally {
      kept.dispose();
    }
    assert.strictEqual(kept.calls.length, 1, 'asked first');
    assert.ok(kept.calls[0].message.includes(`"${label}" on `), kept.calls[0].message);
    assert.deepStrictEqual(kept.calls[0].items, ['Remove']);
    assert.ok(api.runs.get(runId), 'kept without a yes');
    const remove = answerModal('Remove');
    try {
      await executeCommand('crewRuns.removeRun', { runId });
    } finally {
      remove.dispose();
    }
    assert.strictEqual(api.runs.get(runId), undefined, 'removed from the history');
    assert.strictEqual(rowOf(await treeRows(api), runId), undefined, 'and from the tree');
  });
});
