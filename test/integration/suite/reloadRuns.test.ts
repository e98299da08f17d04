// @crew-runs-reload-session — the runner gives this file a VS Code of its own and reloads its window.
//
// Issue #21 "Run state you can trust", Done when: right after a reload with a run waiting for feedback
// the status bar and the tree show it (before any status check could answer: the crew's reads stall
// through the reload, so what shows comes from the history as loaded); and a demo window that
// reloads still finds the demo's runs: under the demo crew in the tree, in Open Run, and ending
// honestly rather than "running" forever. The other reload checks are in reload.test.ts.
import * as assert from 'assert';
import type { CrewConfig } from '../../../src/simulator/server';
import { executeCommand, reload, reloadSuite, selectors, showCrewRunsView, ui, waitFor, kickOffWithoutReview } from '../helpers';
import { type Api, flatRows, testApi, treeRows } from './support/kit';
import { waitForStatusBar } from './support/monitoring';
import { phaseSimulator, type RemoteSimulator } from './support/reloadSim';

const SIM = 'reload-runs';
/** "Right after": the history loads after activation returns; this is generous for a loaded machine. */
const RIGHT_AFTER_MS = 15_000;

const reviewCrew: CrewConfig = {
  id: 'review',
  name: 'Review',
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 500,
  tasks: [
    { name: 'draft_task', agent: 'Writer', durationMs: 1_000, output: 'Draft on {topic}.' },
    { name: 'review_task', agent: 'Editor', durationMs: 1_000, output: 'Reviewed {topic}.', humanInput: true },
    { name: 'publish_task', agent: 'Publisher', durationMs: 1_000, output: 'Published {topic}.' },
  ],
};

interface Before {
  waitingId: string;
  waitingLabel: string;
}

interface DemoBefore {
  demoRunId: string;
  demoCrewName: string;
  /** Events of its trace kept before the reload. */
  eventsKept: number;
}

reloadSuite('Reload (run state)', function (s) {
  this.timeout(180_000);
  let api: Api;
  let sim: RemoteSimulator;

  before(async () => {
    api = await testApi();
    sim = await phaseSimulator(s.phase, SIM, { timeScale: 1, seed: 21, crews: [reviewCrew] }, 'Reload');
    await showCrewRunsView();
  });

  after(async () => {
    await sim?.setFaults({}).catch(() => undefined);
    await executeCommand('workbench.action.closeAllEditors');
    for (const run of api?.runs.list() ?? []) {
      await api.poller.stopWatching(run.id).catch(() => undefined);
      await api.runs.remove(run.id);
    }
    await api?.demo.dispose();
    await sim?.close();
  });

  s.step('has a run waiting for feedback, and its crew stops answering', async function () {
    if (!ui.available()) {
      this.skip();
    }
    const waitingId = await kickOffWithoutReview<string>({ crew: sim.crew('review').url, inputs: { topic: 'Reload feedback' } });
    assert.ok(waitingId, 'the kickoff returned a run id');
    await waitFor(() => api.runs.get(waitingId)?.needsFeedback, { message: 'the run waiting for feedback', timeoutMs: 60_000 });
    await waitForStatusBar((text) => /\b1 needs feedback\b/.test(text), 'the status bar counting it before the reload');
    // From here every status check of the crew hangs, and no other run is in flight: after the
    // reload, only the loaded history can tell the status bar and the tree that the run waits.
    await sim.setFaults({ readFaultRate: 1, readFaultKinds: ['stall'], stallMs: 120_000 });
    await api.runs.flush();
    // The label as the tree draws it (a long one is cut to keep the state in sight).
    const drawn = flatRows(await treeRows(api)).find((r) => r.id === waitingId);
    assert.ok(drawn, 'the waiting run has a row');
    const before: Before = { waitingId, waitingLabel: drawn.label };
    reload.set('before', before);
  });

  s.reload('reloads the window');

  s.step('right after the reload, the status bar and the tree show the run waiting for feedback', async function () {
    if (!ui.available()) {
      this.skip();
    }
    const before = reload.get<Before>('before')!;
    await waitForStatusBar((text) => /\b1 needs feedback\b/.test(text), `the status bar counting the run that needs feedback within ${RIGHT_AFTER_MS / 1000} s`, RIGHT_AFTER_MS);
    let side = '';
    await waitFor(
      async () => {
        side = await ui.text(selectors.sideBar);
        return side.includes(before.waitingLabel) && /needs feedback/.test(side);
      },
      { message: `the tree in the side bar showing ${before.waitingLabel} waiting for feedback`, timeoutMs: RIGHT_AFTER_MS, intervalMs: 300 },
    ).catch((error: Error) => {
      throw new Error(`${error.message} (side bar: ${JSON.stringify(side.slice(0, 400))})`);
    });
    const row = flatRows(await treeRows(api)).find((r) => r.id === before.waitingId);
    assert.match(row?.contextValue ?? '', /\bneedsFeedback\b/, JSON.stringify(row));
  });

  s.step('has a demo run in flight', async () => {
    const urls = await executeCommand<string[]>('crewRuns.tryDemoCrew');
    const research = urls.find((url) => url.endsWith('/research-crew'));
    assert.ok(research, 'the demo has a research crew');
    const demoRunId = await kickOffWithoutReview<string>({ crew: research, inputs: { topic: 'Reload demo', audience: 'testers' } });
    assert.ok(demoRunId, 'the demo kickoff returned a run id');
    await waitFor(() => api.runs.get(demoRunId)?.state === 'running', { message: 'the demo run running', timeoutMs: 30_000 });
    const kept = await waitFor(async () => (await api.runs.readDetails(demoRunId)).events?.kept, { message: 'the demo run\'s first events kept', timeoutMs: 30_000 });
    await api.runs.flush();
    const before: DemoBefore = { demoRunId, demoCrewName: api.crews.get(research)!.name, eventsKept: kept };
    reload.set('demo', before);
  });

  s.reload('reloads the demo window');

  s.step('finds the demo run again under the demo crew, in Open Run, and it ends honestly', async () => {
    const before = reload.get<DemoBefore>('demo')!;
    assert.ok(api.runs.get(before.demoRunId), 'the demo run is in the history');
    if (!api.crews.list().some((crew) => crew.source === 'demo')) {
      await executeCommand('crewRuns.tryDemoCrew'); // As the user does (npm run demo starts them by itself).
    }
    const row = await waitFor(async () => flatRows(await treeRows(api)).find((r) => r.type === 'run' && r.id === before.demoRunId), {
      message: 'the demo run in the tree',
      timeoutMs: 10_000,
    }).catch((error: Error) => {
      throw new Error(`${error.message}; its crew is ${api.runs.get(before.demoRunId)?.crewUrl}, the demo crews are ${JSON.stringify(api.crews.list().filter((c) => c.source === 'demo').map((c) => c.url))}`);
    });
    assert.deepStrictEqual(row.path, [before.demoCrewName], 'under the demo crew');
    const crewUrl = api.runs.get(before.demoRunId)!.crewUrl;
    assert.strictEqual(api.crews.get(crewUrl)?.source, 'demo', 'its crew is a demo crew of this window');
    await executeCommand('crewRuns.openRun', { runId: before.demoRunId });
    const report = await waitFor(() => api.panels.inspect(before.demoRunId)?.pageReport, { message: 'the run view of the demo run', timeoutMs: 30_000 });
    assert.ok(report.stateText, 'the run view shows the run');
    // Its trace survived the reload: read back from the run's event file, not from a new status.
    await waitFor(() => (api.panels.inspect(before.demoRunId)?.pageReport?.traceSpans ?? 0) > 0, {
      message: () => `the trace drawn after the reload (${before.eventsKept} events kept before it; report: ${JSON.stringify(api.panels.inspect(before.demoRunId)?.pageReport?.traceRows)})`,
      timeoutMs: 30_000,
    });
    // The demo's simulator restarted with the window: its run finishes, or ends saying why.
    const ended = await waitFor(
      () => {
        const run = api.runs.get(before.demoRunId);
        return run && (run.state === 'succeeded' || run.state === 'failed' || (!run.watching && Boolean(run.message ?? run.warning))) ? run : undefined;
      },
      { message: `the demo run ending honestly (now ${JSON.stringify(api.runs.get(before.demoRunId)?.state)})`, timeoutMs: 90_000, intervalMs: 500 },
    );
    console.log(`      the demo run after the reload: ${ended.state}${ended.message ? ` (${ended.message})` : ''}`);
  });
});
