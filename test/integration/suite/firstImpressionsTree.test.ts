// Issue 20, the tree part: what a new user sees in the sidebar and the status bar. A kicked-off run is
// revealed and selected under its crew, which says "1 running" instead of "ready"; the status bar leads
// to the run that needs feedback and its tooltip lists what is going on; a run row keeps its state in
// sight at the default sidebar width and is not redrawn while nothing it shows changes; two runs of
// the same inputs read differently. Screenshots of the sidebar in the light and dark themes.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { CrewConfig, Simulator } from '../../../src/simulator/server';
import { demoCrews, startSimulator } from '../../../src/simulator/server';
import { executeCommand, readAllLogs, selectors, showCrewRunsView, ui, waitFor } from '../helpers';
import { type Api as TreeApi, crewRow, inLightAndDark, testApi } from './support/kit';
import { addSimulatorCrews, cleanUp, kickOff, runItem, waitForRun } from './support/monitoring';

const oneTask = (durationMs: number): Pick<CrewConfig, 'kind' | 'inputs' | 'pendingMs' | 'tasks'> => ({
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 500,
  tasks: [{ name: 'research_task', agent: 'Researcher', durationMs, output: 'Notes on {topic}.' }],
});

function reviewCrew(id: string, name: string): CrewConfig {
  const crew = demoCrews().find((c) => c.id === 'review-crew');
  assert.ok(crew, 'the simulator has a human-input demo crew');
  return { ...crew, id, name };
}

const CREWS: CrewConfig[] = [
  // Runs for minutes at timeScale 0.2: stays running with the same progress while the poller asks.
  { id: 'slow', name: 'Slow', ...oneTask(600_000) },
  { id: 'quick', name: 'Quick', ...oneTask(1_000) },
  reviewCrew('review', 'Review'),
];

function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

/** A tooltip's text as shown: Markdown escapes and appendText's non-breaking spaces undone. */
function tooltipOf(tooltip: string | vscode.MarkdownString | undefined): string {
  return (typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? '')).replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
}

/** Selects a run's row and reads what the page draws of it (its action icons showing), once its state is drawn. */
async function selectedRowText(runId: string, state: string): Promise<string> {
  const api = await testApi();
  await api.treeView.reveal(api.tree.runNode(runId), { select: true, focus: true });
  const row = `${selectors.sideBar} .monaco-list-row.selected:has(.actions .action-item):has-text(${JSON.stringify(state)})`;
  const visible = await ui.text(`${row} .monaco-icon-label-container`, { visibleOnly: true, timeoutMs: 20_000 });
  console.log(`      the selected row shows: ${JSON.stringify(visible)}`);
  return visible;
}

function selectedRunId(api: TreeApi): string | undefined {
  const node = api.treeView.selection[0];
  return node?.type === 'run' ? node.runId : undefined;
}

describe('First impressions › tree', function () {
  this.timeout(240_000);
  let api: TreeApi;
  let sim: Simulator;
  let crews: Record<string, { url: string; name: string }>;
  const runIds = new Set<string>();

  async function start(crewId: string, topic: string): Promise<string> {
    const id = await kickOff(crews[crewId].url, { topic });
    runIds.add(id);
    return id;
  }

  before(async () => {
    api = await testApi();
    assert.ok(api.treeView && api.inspection.statusBar, 'the test API has the tree view and the status bar');
    sim = await startSimulator({ timeScale: 0.2, dialect: 'live', crews: CREWS, seed: 20 });
    crews = await addSimulatorCrews(api, sim, 'Tree');
    await showCrewRunsView();
  });

  after(async () => {
    await cleanUp(api, runIds);
    await executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration().update('workbench.colorTheme', undefined, vscode.ConfigurationTarget.Global);
    await sim?.close();
  });

  it('a kicked-off run is revealed and selected under its crew, which says "1 running" instead of "ready"', async () => {
    const runId = await start('slow', 'Llamas of the Andes');
    await waitFor(() => selectedRunId(api) === runId || undefined, { message: () => `the new run selected in the tree (selection: ${JSON.stringify(api.treeView.selection)})`, timeoutMs: 20_000 });
    const row = await waitFor(
      async () => {
        const r = await crewRow(api, crews.slow.url);
        return r && /^1 running\b/.test(r.description) ? r : undefined;
      },
      { message: 'the crew described as "1 running"', timeoutMs: 20_000 },
    );
    assert.doesNotMatch(row.description, /ready/, 'the crew does not say "ready" while its run is running');
    // The crew is expanded: the run's row is drawn in the sidebar.
    await waitFor(async () => (await ui.text(selectors.sideBar)).includes('Llamas of the Andes') || undefined, { message: 'the run row drawn in the sidebar', timeoutMs: 20_000 });
  });

  it('a running row keeps its state in sight at the default sidebar width; its tooltip waits for a hover', async () => {
    const runId = await start('slow', 'An uncommonly long topic that would push the state of the run out of sight');
    await waitForRun(api, runId, (r) => r.state === 'running', 'the run running');
    const item = await runItem(api, runId);
    assert.match(String(item.description), /^running\b/, 'the description leads with the state');
    // About 30 characters of a run row show in a 300-pixel sidebar (see the screenshots).
    const shown = `${labelOf(item)} ${String(item.description)}`;
    assert.ok(shown.indexOf('running') + 'running'.length <= 30, `the state is within the first 30 characters: ${JSON.stringify(shown)}`);
    assert.strictEqual(item.tooltip, undefined, 'the tooltip is left to resolveTreeItem (built when hovered)');
    const resolved = await api.tree.resolveTreeItem(item, api.tree.runNode(runId));
    assert.match(tooltipOf(resolved.tooltip), /An uncommonly long topic that would push the state/, 'the hover has the whole label');
  });

  it('selected, with its action icons showing, a row still shows its whole state word (checked in the drawn page)', async () => {
    const runId = api.runs.list(crews.slow.url).find((r) => r.label.startsWith('An uncommonly long topic'))?.id;
    assert.ok(runId, 'the long-label run of the previous test');
    const visible = await selectedRowText(runId, 'running');
    assert.match(visible, /\brunning\b/, `the state is whole in the selected row: ${JSON.stringify(visible)}`);
    await ui.screenshot('tree-row-selected-running', { selector: selectors.sideBar });
  });

  it('a running row is not redrawn while nothing it shows changes (so its tooltip stays open)', async () => {
    const runId = await start('slow', 'Quiet run');
    await waitForRun(api, runId, (r) => r.state === 'running' && r.currentTask !== undefined, 'the run running its task');
    await runItem(api, runId); // Drawn once, as the tree would.
    let redraws = 0;
    const node = api.tree.runNode(runId);
    const subscription = api.tree.onDidChangeTreeData((e) => {
      if (e === undefined || e === node || (Array.isArray(e) && e.includes(node))) {
        redraws++;
      }
    });
    try {
      const polledBefore = sim.requestLog.counts('slow').status;
      await waitFor(() => sim.requestLog.counts('slow').status >= polledBefore + 5 || undefined, { message: 'five more status checks of the slow crew', timeoutMs: 120_000 });
    } finally {
      subscription.dispose();
    }
    assert.ok(api.runs.get(runId)?.state === 'running', 'still running');
    assert.ok(redraws <= 1, `the row was redrawn ${redraws} times in five status checks that changed nothing it shows`);
  });

  it('a new run redraws its own crew, not every crew (a batch does not rebuild other crews\' long histories)', async () => {
    const before = await start('quick', 'Before the others');
    await waitForRun(api, before, (r) => r.state === 'succeeded', 'the first quick run done');
    const root = await api.tree.getChildren();
    const crewNodeOf = (url: string) => root.find((n) => n.type === 'crew' && n.crew.url === url);
    const [quick, slow] = [crewNodeOf(crews.quick.url), crewNodeOf(crews.slow.url)];
    assert.ok(quick && slow, 'both crews are in the tree');
    const events: (string | undefined)[][] = [];
    const name = (n: unknown) => (n === quick ? 'quick' : n === slow ? 'slow' : (n as { type?: string } | undefined)?.type);
    const subscription = api.tree.onDidChangeTreeData((e) => events.push(e === undefined ? ['(all)'] : (Array.isArray(e) ? e : [e]).map(name)));
    try {
      const runId = await start('quick', 'One more');
      await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the new quick run done');
    } finally {
      subscription.dispose();
    }
    const all = events.flat();
    assert.ok(all.includes('quick'), `the quick crew was redrawn: ${JSON.stringify(events)}`);
    assert.ok(!all.includes('(all)') && !all.includes('slow'), `nothing but the quick crew and its runs was redrawn: ${JSON.stringify(events)}`);
  });

  it('two runs of the same inputs read differently in the tree', async () => {
    const first = await start('quick', 'Same topic');
    const second = await start('quick', 'Same topic');
    await waitForRun(api, first, (r) => r.state === 'succeeded', 'the first run done');
    await waitForRun(api, second, (r) => r.state === 'succeeded', 'the second run done');
    const [a, b] = [await runItem(api, first), await runItem(api, second)];
    const shown = [a, b].map((item) => `${labelOf(item)} · ${String(item.description)}`);
    assert.notStrictEqual(shown[0], shown[1], `the two rows differ: ${JSON.stringify(shown)}`);
  });

  it('the status bar lists what is going on and its click lands on the run that needs feedback', async () => {
    const waiting = await start('review', 'Spring launch');
    await waitForRun(api, waiting, (r) => r.needsFeedback, 'the review run waiting for feedback');
    const crew = await waitFor(
      async () => {
        const r = await crewRow(api, crews.review.url);
        return r && /^1 needs feedback\b/.test(r.description) ? r : undefined;
      },
      { message: 'the review crew described as "1 needs feedback"', timeoutMs: 20_000 },
    );
    assert.doesNotMatch(crew.description, /ready/);

    const tooltip = tooltipOf(api.inspection.statusBar.tooltip());
    assert.match(tooltip, /Spring launch/, `the tooltip names the run that needs feedback: ${tooltip}`);
    assert.match(tooltip, /Tree Review/, 'and its crew');
    assert.match(tooltip, /Llamas of the Andes/, 'and the runs still running');

    // Exactly one run needs feedback: the click opens Give Feedback on it.
    const one = api.inspection.statusBar.command();
    assert.ok(one, 'the status bar item has a command');
    await vscode.commands.executeCommand(one.command, ...(one.arguments ?? []));
    await waitFor(
      () => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'crew-review' && e.document.uri.path.startsWith(`/${waiting}/`)),
      {
        message: () => {
          const run = api.runs.get(waiting);
          const lines = readAllLogs().split('\n').filter((line) => line.includes('Spring launch')).slice(-12).join('\n');
          return `the review of the waiting run opened (status bar command ${JSON.stringify(one)}; the run now ${run?.state}, needsFeedback ${run?.needsFeedback}, watching ${run?.watching}; its log:\n${lines})`;
        },
        timeoutMs: 20_000,
      },
    );
    await executeCommand('workbench.action.closeAllEditors');

    // Two need feedback: the click selects the one waiting longest in the tree.
    const second = await start('review', 'Autumn launch');
    await waitForRun(api, second, (r) => r.needsFeedback, 'a second run waiting for feedback');
    await executeCommand('workbench.view.explorer');
    const several = api.inspection.statusBar.command();
    assert.ok(several, 'the status bar item has a command');
    await vscode.commands.executeCommand(several.command, ...(several.arguments ?? []));
    await waitFor(() => selectedRunId(api) === waiting || undefined, { message: () => `the run waiting longest selected (selection: ${JSON.stringify(api.treeView.selection)})`, timeoutMs: 20_000 });
    await waitFor(() => api.treeView.visible || undefined, { message: 'the Crew Runs view shown', timeoutMs: 10_000 });
  });

  it('selected, a run that needs feedback (two action icons) still shows "needs feedback" whole', async () => {
    const waiting = api.runs.list(crews.review.url).find((r) => r.needsFeedback);
    assert.ok(waiting, 'the run of the previous test waits for feedback');
    const visible = await selectedRowText(waiting.id, 'needs feedback');
    assert.match(visible, /\bneeds feedback\b/, `the state is whole in the selected row: ${JSON.stringify(visible)}`);
    await ui.screenshot('tree-row-selected-feedback', { selector: selectors.sideBar });
  });

  it('screenshots of the sidebar at the default width, light and dark', async () => {
    await showCrewRunsView();
    await inLightAndDark(async (name) => {
      const shot = await ui.screenshot(`first-impressions-tree-${name}`, { selector: selectors.sideBar });
      assert.ok(shot.distinctColours > 1, `the ${name} screenshot is not blank`);
      await ui.screenshot(`first-impressions-statusbar-${name}`, { selector: selectors.statusBar });
    });
  });

  it('a long history opens with the newest runs, the older ones behind "Older runs"', async () => {
    const crew = api.crews.get(crews.quick.url)!;
    for (let i = 0; i < 105; i++) {
      // Recorded, not kicked off: a history, as a reload would find it (never polled).
      const run = await api.runs.add({ crewUrl: crew.url, crewName: crew.name, kickoffId: `history-${i}`, inputs: { topic: `History ${i}` }, startedAt: Date.UTC(2025, 0, 1) + i * 60_000 });
      runIds.add(run.id);
      await api.runs.setWatching(run.id, false);
    }
    const children = await api.tree.getChildren({ type: 'crew', crew });
    assert.strictEqual(children.length, 101, 'the newest 100 runs and one more row');
    const older = children[100];
    assert.strictEqual(older.type, 'olderRuns');
    const item = await api.tree.getTreeItem(older);
    assert.deepStrictEqual([labelOf(item), item.description], ['Older runs', String(api.runs.list(crew.url).length - 100)]);
    const rest = await api.tree.getChildren(older);
    assert.strictEqual(rest.length, api.runs.list(crew.url).length - 100, 'the older runs, all on its first page');
    assert.ok(rest.every((n) => n.type === 'run'));
    const oldest = rest.at(-1)!;
    assert.strictEqual(api.tree.getParent(oldest), older, 'an older run is found under "Older runs" (for reveal)');
  });
});
