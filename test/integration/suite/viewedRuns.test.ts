// Detection while watching (#19): a run whose view is visible, or whose tree item is selected in the
// visible Crew Runs view, is the poller's "viewed" run (polled at the fast pace: see pollPace.test.ts);
// hiding the view, closing the panel or selecting something else gives it back the normal pace.
import type { CrewConfig, Simulator } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import type { CrewRunsTestApi } from '../../../src/testApi';
import { executeCommand, getExtensionApi, showCrewRunsView, waitFor } from '../helpers';
import { addSimulatorCrews, cleanUp, kickOff, waitForRun } from './support/monitoring';

const crew: CrewConfig = {
  id: 'long',
  name: 'Long',
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 300,
  tasks: [{ name: 'research_task', agent: 'Researcher', durationMs: 120_000, output: 'Notes on {topic}.' }],
};

describe('Viewed runs', function () {
  this.timeout(120_000);
  let api: CrewRunsTestApi;
  let sim: Simulator;
  let crewUrl: string;
  const runIds = new Set<string>();

  const viewed = (runId: string) => api.inspection.poller.viewedRunIds().includes(runId);
  const waitViewed = (runId: string, expected: boolean, message: string) =>
    waitFor(() => viewed(runId) === expected, { message, timeoutMs: 15_000, intervalMs: 100 });

  before(async () => {
    api = await getExtensionApi<CrewRunsTestApi>();
    sim = await startSimulator({ timeScale: 1, dialect: 'live', crews: [crew] });
    crewUrl = (await addSimulatorCrews(api, sim, 'Viewed')).long.url;
    await showCrewRunsView();
  });

  after(async () => {
    await executeCommand('workbench.action.closeAllEditors');
    await cleanUp(api, runIds);
    await sim?.close();
  });

  it('a visible run view makes its run viewed; closing it ends that', async () => {
    const runId = await kickOff(crewUrl, { topic: 'seen in its view' });
    runIds.add(runId);
    await waitForRun(api, runId, (r) => r.state === 'running', 'the run is running');
    // A kickoff reveals and selects its run in the tree, which counts as looking at it: only the run view should here.
    await executeCommand('workbench.view.explorer');
    await waitViewed(runId, false, 'not viewed while nobody looks (the Crew Runs view hidden, no run view)');
    await executeCommand('crewRuns.openRun', { runId });
    await waitViewed(runId, true, 'the open run view makes the run viewed');
    api.panels.close(runId);
    await waitViewed(runId, false, 'closing the view ends it');
  });

  it('a run selected in the visible Crew Runs view is viewed; hiding the view or another selection ends that', async () => {
    const first = await kickOff(crewUrl, { topic: 'selected in the tree' });
    const second = await kickOff(crewUrl, { topic: 'selected next' });
    runIds.add(first).add(second);
    await showCrewRunsView();
    // Each kickoff reveals and selects its run itself, a moment later (or fails to, while the tree is still
    // fetching it): once those reveals are over, the selections below are the test's.
    await api.inspection.revealer.whenIdle();
    await api.treeView.reveal(api.tree.runNode(first), { select: true, focus: true });
    await waitViewed(first, true, 'the selected run is viewed');
    await api.treeView.reveal(api.tree.runNode(second), { select: true, focus: true });
    await waitViewed(second, true, 'the newly selected run is viewed');
    await waitViewed(first, false, 'the run no longer selected is not');
    await executeCommand('workbench.view.explorer');
    await waitViewed(second, false, 'a hidden Crew Runs view shows nobody anything');
    await showCrewRunsView();
    await waitViewed(second, true, 'shown again, its selection counts again');
  });
});
