// @crew-runs-reload-session — the runner gives this file a VS Code of its own and reloads its window.
//
// A window reload with runs in flight (issues "Run monitoring" and "Live run view"): before the
// reload a run is running with its run view open and a second run is queued; after it the same runs
// are in the store with everything they had, polling resumed by itself (the simulator sees new
// status checks), both end in their true states, the panel is restored showing its run, and the
// crew's token survived. The simulator runs in a process of its own (support/reloadSim.ts).
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { RunRecord } from '../../../src/runTracking/model';
import type { CrewConfig } from '../../../src/simulator/server';
import { executeCommand, reload, reloadSuite, selectors, showCrewRunsView, ui, waitFor, kickOffWithoutReview } from '../helpers';
import { type Api, crewRow, testApi } from './support/kit';
import { stateChanges, waitForStatusBar } from './support/monitoring';
import { phaseSimulator, type RemoteSimulator } from './support/reloadSim';

const SIM = 'reload';

const crew = (id: string, name: string, taskMs: number, scenario?: CrewConfig['scenario']): CrewConfig => ({
  id,
  name,
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 1000,
  scenario,
  tasks: [
    { name: 'research_task', agent: 'Researcher', durationMs: taskMs, output: 'Notes on {topic}.' },
    { name: 'writing_task', agent: 'Writer', durationMs: taskMs, output: '# Report on {topic}\n\nDone after a reload.' },
  ],
});

/** What phase 0 saw, for the phases after the reload. */
interface Before {
  steadyId: string;
  doomedId: string;
  steady: RunRecord;
  doomed: RunRecord;
  steadyHistory: string[];
  statusChecks: number;
  at: number;
}

/** The runs phase 0 adds to see what a reload does to a demo run and to a run waiting for feedback. */
interface Others {
  demoId: string;
  demoUrl: string;
  reviewId: string;
  reviewLabel: string;
}

reloadSuite('Reload', function (s) {
  this.timeout(180_000);
  let api: Api;
  let sim: RemoteSimulator;

  before(async () => {
    api = await testApi();
    sim = await phaseSimulator(s.phase, SIM, {
      timeScale: 1,
      seed: 11,
      // Long enough to be in flight through the reload; ends some 10-20 s after it.
      crews: [
        crew('steady', 'Steady', 12_000),
        crew('doomed', 'Doomed', 8_000, 'failAtTask:1'),
        { ...crew('review', 'Review', 1_000), tasks: [{ name: 'draft_task', agent: 'Writer', durationMs: 1_000, output: 'A draft on {topic}.', humanInput: true }] },
      ],
    }, 'Reload');
    if (s.phase === 0) {
      await showCrewRunsView();
    }
  });

  after(async () => {
    await executeCommand('workbench.action.closeAllEditors');
    for (const run of api?.runs.list() ?? []) {
      await api.poller.stopWatching(run.id).catch(() => undefined);
      await api.runs.remove(run.id);
    }
    await sim?.close();
  });

  s.step('has a run in flight with its run view open, and a second run', async () => {
    const steadyId = await kickOffWithoutReview<string>({ crew: sim.crew('steady').url, inputs: { topic: 'Reloads' } });
    const doomedId = await kickOffWithoutReview<string>({ crew: sim.crew('doomed').url, inputs: { topic: 'Doom' } });
    assert.ok(steadyId && doomedId, 'both kickoffs returned run ids');
    await waitFor(() => api.runs.get(steadyId)?.state === 'running', { message: 'the steady run running', timeoutMs: 30_000 });
    await executeCommand('crewRuns.openRun', { runId: steadyId });
    await waitFor(() => api.panels.inspect(steadyId)?.pageReport?.stateText, { message: 'the run view rendering', timeoutMs: 30_000 });
    const steady = api.runs.get(steadyId)!;
    const doomed = api.runs.get(doomedId)!;
    assert.ok(steady.watching && doomed.watching, 'both runs watched');
    assert.notStrictEqual((await sim.getRun(steady.kickoffId))?.phase, 'succeeded', 'the steady run is still going at the crew');
    assert.strictEqual(await api.crews.hasToken(sim.crew('steady').url), true);
    const details = await api.runs.readDetails(steadyId);
    await api.runs.flush();
    const record: Before = {
      steadyId,
      doomedId,
      steady,
      doomed,
      steadyHistory: stateChanges(details.history),
      statusChecks: (await sim.requests()).filter((r) => r.endpoint === 'status').length,
      at: Date.now(),
    };
    reload.set('before', record);
  });

  s.step('has a demo run in flight and a run waiting for feedback', async () => {
    const demoUrls = await executeCommand<string[]>('crewRuns.tryDemoCrew');
    const demoId = await kickOffWithoutReview<string>({ crew: demoUrls[0], inputs: { topic: 'Demo reloads', audience: 'testers' } });
    const reviewId = await kickOffWithoutReview<string>({ crew: sim.crew('review').url, inputs: { topic: 'Waiting review' } });
    assert.ok(demoId && reviewId, 'both kickoffs returned run ids');
    await waitFor(() => api.runs.get(reviewId)?.needsFeedback, { message: 'the review run waiting for feedback', timeoutMs: 30_000 });
    await waitFor(() => api.runs.get(demoId)?.state === 'running', { message: 'the demo run running', timeoutMs: 30_000 });
    await api.runs.flush();
    reload.set('others', { demoId, demoUrl: demoUrls[0], reviewId, reviewLabel: api.runs.get(reviewId)!.label } satisfies Others);
  });

  s.reload('reloads the window with both runs in flight');

  s.step('keeps both runs in the store with everything they had', async () => {
    const before = reload.get<Before>('before')!;
    assert.ok(before, 'phase 0 recorded its runs');
    // The store loads after activation returns.
    await waitFor(() => api.runs.get(before.steadyId) && api.runs.get(before.doomedId), { message: 'both runs in the store', timeoutMs: 20_000 });
    const others = reload.get<Others>('others')!;
    const ids = api.runs.list().map((r) => r.id);
    assert.deepStrictEqual(ids.sort(), [before.steadyId, before.doomedId, others.demoId, others.reviewId].sort(), 'the same runs, no more');
    for (const [id, was] of [
      [before.steadyId, before.steady],
      [before.doomedId, before.doomed],
    ] as const) {
      const now = api.runs.get(id)!;
      for (const key of ['id', 'crewUrl', 'crewName', 'kickoffId', 'label', 'startedAt', 'previousKickoffIds'] as const) {
        assert.deepStrictEqual(now[key], was[key], `${key} of ${was.label} survived the reload`);
      }
    }
    const details = await api.runs.readDetails(before.steadyId);
    assert.deepStrictEqual(stateChanges(details.history).slice(0, before.steadyHistory.length), before.steadyHistory, 'the history kept');
    assert.deepStrictEqual(details.inputs, { topic: 'Reloads' }, 'the inputs kept (in the run\'s file)');
  });

  s.step('resumes polling by itself: the simulator sees new status checks', async () => {
    const before = reload.get<Before>('before')!;
    const after = await waitFor(
      async () => {
        const checks = (await sim.requests()).filter((r) => r.endpoint === 'status' && r.time > before.at);
        return checks.length >= 2 ? checks : undefined;
      },
      { message: 'status checks after the reload', timeoutMs: 60_000, intervalMs: 500 },
    );
    const firstAfter = Math.min(...after.map((r) => r.time));
    console.log(`      first status check ${((firstAfter - before.at) / 1000).toFixed(1)} s after the reload request`);
    assert.ok(api.inspection.poller.scheduledRunIds().length > 0 || api.runs.list().every((r) => !r.watching), 'the poller follows the unfinished runs');
  });

  s.step('ends both runs in their true states', async () => {
    const before = reload.get<Before>('before')!;
    const ended = (id: string) => {
      const state = api.runs.get(id)?.state;
      return state === 'succeeded' || state === 'failed';
    };
    await waitFor(() => ended(before.steadyId) && ended(before.doomedId), {
      message: `both runs ended (${JSON.stringify(api.runs.list().map((r) => r.state))})`,
      timeoutMs: 90_000,
      intervalMs: 300,
    });
    for (const id of [before.steadyId, before.doomedId]) {
      const run = api.runs.get(id)!;
      const truth = await sim.getRun(run.kickoffId);
      assert.strictEqual(run.state, truth?.phase, `${run.label} ends as the crew says`);
      assert.strictEqual(run.watching, false);
    }
    assert.strictEqual(api.runs.get(before.steadyId)!.state, 'succeeded');
    assert.strictEqual(api.runs.get(before.doomedId)!.state, 'failed');
    const details = await api.runs.readDetails(before.steadyId);
    assert.strictEqual(details.finalOutput?.text, '# Report on Reloads\n\nDone after a reload.');
    assert.deepStrictEqual(stateChanges(details.history), ['queued', 'running', 'succeeded'], 'no state twice');
    const doomed = await api.runs.readDetails(before.doomedId);
    assert.strictEqual(doomed.error, "ValueError: Simulated failure in task 'writing_task'");
  });

  s.step('restores the run view showing that run', async () => {
    const before = reload.get<Before>('before')!;
    const inspection = await waitFor(() => api.panels.inspect(before.steadyId), { message: 'the restored panel of the steady run', timeoutMs: 30_000 });
    assert.ok(!api.panels.inspect(before.doomedId), 'no panel for the run that had none');
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview);
    assert.strictEqual(tabs.length, 1, `one run view tab (${tabs.map((t) => t.label).join(', ')})`);
    const report = await waitFor(() => api.panels.inspect(before.steadyId)?.pageReport?.hasFinalOutput && api.panels.inspect(before.steadyId)?.pageReport, {
      message: 'the restored panel showing the final output',
      timeoutMs: 30_000,
    });
    assert.ok(inspection.html.includes('nonce-'), 'the restored panel got the real page, not the "no longer in the history" one');
    assert.ok(report.timelineEntries >= 3, 'its timeline');
    if (ui.available()) {
      const frame = await ui.frameText('Report on Reloads', { timeoutMs: 15_000 });
      assert.match(frame.text, /Reload Steady: Reloads/, 'the page names the run');
    }
  });

  s.step('keeps the crew token: Check Connection finds the crew ready', async () => {
    const url = sim.crew('steady').url;
    assert.strictEqual(await api.crews.hasToken(url), true, 'the token survived in SecretStorage');
    assert.match((await crewRow(api, url))?.contextValue ?? '', /\bhasToken\b/);
    assert.strictEqual(await executeCommand<boolean>('crewRuns.checkConnection', url), true, 'the stored token is accepted');
    const row = await crewRow(api, url);
    assert.strictEqual(row?.description, 'ready', JSON.stringify(row));
    const checks = (await sim.requests()).filter((r) => r.endpoint === 'inputs' && r.crewId === 'steady');
    assert.strictEqual(checks.at(-1)?.tokenKind, 'org', 'the check sent the org token it was given before the reload');
  });

  s.step('brings the demo back at the same address: its run is found, and ended with the demo, not running', async () => {
    const others = reload.get<Others>('others')!;
    const urls = await executeCommand<string[]>('crewRuns.tryDemoCrew');
    assert.ok(urls.includes(others.demoUrl), `the demo crews came back at ${others.demoUrl} (now ${urls.join(', ')})`);
    const run = await waitFor(() => (api.runs.get(others.demoId)?.stopReason === 'expired' ? api.runs.get(others.demoId) : undefined), {
      message: `the demo run ended with the demo (${JSON.stringify(api.runs.get(others.demoId))})`,
      timeoutMs: 30_000,
    });
    assert.strictEqual(run.watching, false);
    assert.match(run.message ?? '', /Ended with the demo/);
    const crewNode = (await api.tree.getChildren())?.find((n) => n.type === 'crew' && n.crew.url === others.demoUrl);
    assert.ok(crewNode, 'the demo crew is in the tree');
    const children = (await api.tree.getChildren(crewNode)) ?? [];
    assert.ok(children.some((n) => n.type === 'run' && n.runId === others.demoId), 'the demo run is under its crew again');
    await waitFor(() => !api.inspection.poller.scheduledRunIds().includes(others.demoId), { message: 'the ended demo run is not polled', timeoutMs: 10_000 });
  });

  s.step('stops watching the run waiting for feedback, so that after the next reload only loading can show it', async () => {
    const others = reload.get<Others>('others')!;
    // No run is polled after the reload (a poll's change would refresh the views and hide the point).
    for (const run of api.runs.list().filter((r) => r.watching)) {
      await api.poller.stopWatching(run.id);
    }
    assert.strictEqual(api.runs.get(others.reviewId)?.needsFeedback, true);
    await api.runs.flush();
  });

  s.reload('reloads again with only a run waiting for feedback');

  s.step('shows the run waiting for feedback in the status bar and the tree right after the reload', async () => {
    const others = reload.get<Others>('others')!;
    await waitFor(() => api.runs.get(others.reviewId), { message: 'the review run in the store', timeoutMs: 20_000 });
    assert.strictEqual(api.runs.get(others.reviewId)?.needsFeedback, true, 'still waiting for feedback');
    assert.deepStrictEqual(api.runs.list().filter((r) => r.watching), [], 'no run polled: nothing but loading changes the views');
    if (!ui.available()) {
      return;
    }
    await waitForStatusBar((text) => /1 needs feedback/.test(text), 'the status bar counting the run waiting for feedback', 20_000);
    // The start of its label: a row that needs feedback cuts its label to keep the state in sight.
    const shown = others.reviewLabel.slice(0, 6);
    await waitFor(async () => (await ui.text(selectors.sideBar)).includes(shown), {
      message: `the tree showing "${shown}…"`,
      timeoutMs: 20_000,
      intervalMs: 500,
    });
  });
});
