// Issue 52, findings 1 and 6: at the default sidebar width a run row keeps its name and its whole state in
// sight, selected and under the pointer (its action icons showing) or not; what would follow them (a batch
// row's number, the age, the progress) is left to the tooltip rather than cut, so nothing in a row is cut by
// VS Code. The same in the Batches view. And ages move on: a row that said "just now" says "1 min ago" a
// minute later, without any change to the run. Read from the drawn page; screenshots in the light and dark themes.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { CrewConfig, Simulator } from '../../../src/simulator/server';
import { demoCrews, startSimulator } from '../../../src/simulator/server';
import { normaliseStatus } from '../../../src/api/normalize';
import type { BatchRow } from '../../../src/batches/core/model';
import { executeCommand, selectors, showCrewRunsView, ui, waitFor } from '../helpers';
import { type Api as TreeApi, inLightAndDark, testApi } from './support/kit';
import { addSimulatorCrews, cleanUp, kickOff, runItem, waitForRun } from './support/monitoring';

const LONG = 'Crew Runs onboarding research for the spring release';

function reviewCrew(id: string, name: string): CrewConfig {
  const crew = demoCrews().find((c) => c.id === 'review-crew');
  assert.ok(crew, 'the simulator has a human-input demo crew');
  return { ...crew, id, name };
}

const CREWS: CrewConfig[] = [
  { id: 'slow', name: 'Slow', kind: 'crew', inputs: ['topic'], pendingMs: 500, tasks: [{ name: 'research_task', agent: 'Researcher', durationMs: 600_000, output: 'Notes.' }] },
  { id: 'quick', name: 'Quick', kind: 'crew', inputs: ['topic'], pendingMs: 200, tasks: [{ name: 'research_task', agent: 'Researcher', durationMs: 500, output: 'Notes on {topic}.' }] },
  reviewCrew('review', 'Review'),
  // Its one run ages alone: no other run of its crew comes or goes to redraw it by the way.
  { id: 'aging', name: 'Aging', kind: 'crew', inputs: ['topic'], pendingMs: 200, tasks: [{ name: 'research_task', agent: 'Researcher', durationMs: 500, output: 'Notes.' }] },
  { id: 'paused', name: 'Paused', kind: 'crew', inputs: ['topic'], pendingMs: 200, tasks: [{ name: 'research_task', agent: 'Researcher', durationMs: 600_000, output: 'Notes.' }] },
];

function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

/** A row's text as drawn when nothing of it is cut: its label, then its description. */
function whole(item: vscode.TreeItem): string {
  return `${labelOf(item)} ${typeof item.description === 'string' ? item.description : ''}`.replace(/\s+/g, ' ').trim();
}

/** How much of the run's name a drawn row shows: its leading characters up to the first one that differs (an ellipsis). */
function nameShown(visible: string, name: string): number {
  let i = 0;
  while (i < visible.length && i < name.length && visible[i] === name[i]) {
    i++;
  }
  return i;
}

describe('Tree labels at the default width', function () {
  this.timeout(300_000);
  let api: TreeApi;
  let sim: Simulator;
  let crews: Record<string, { url: string; name: string }>;
  const runIds = new Set<string>();
  /** A run that ended at the start of the suite: its age is checked at the end, a minute or more later. */
  let aged: string;

  async function start(crewId: string, topic: string): Promise<string> {
    const id = await kickOff(crews[crewId].url, { topic });
    runIds.add(id);
    return id;
  }

  /** A batch row's run, recorded as a batch records it, ended with `state`. */
  async function batchRun(row: number, topic: string, body: Record<string, unknown>): Promise<string> {
    const crew = api.crews.get(crews.quick.url)!;
    const run = await api.runs.add({ crewUrl: crew.url, crewName: crew.name, kickoffId: `batch-${row}-${Date.now()}`, inputs: { topic }, batch: { source: 'edge-cases.csv', row } });
    runIds.add(run.id);
    await api.runs.applyPolled(run.id, undefined, normaliseStatus(body));
    return run.id;
  }

  /**
   * What the page draws of a run's row: selected with the pointer over it (its action icons showing), or as it
   * is; and the whole row, label and description, as it would read if nothing were cut.
   */
  async function drawnRow(runId: string, state: string, select: boolean): Promise<{ visible: string; whole: string }> {
    await api.treeView.reveal(api.tree.runNode(runId), { select, focus: select });
    const item = await runItem(api, runId);
    const label = labelOf(item).slice(0, 6);
    const row = `${selectors.sideBar} .monaco-list-row${select ? '.selected:has(.actions .action-item)' : ''}:has-text(${JSON.stringify(label)}):has-text(${JSON.stringify(state.slice(0, 4))})`;
    const visible = await ui.text(`${row} .monaco-icon-label-container`, { visibleOnly: true, hover: select, timeoutMs: 20_000 });
    console.log(`      ${select ? 'selected' : 'drawn'}: ${JSON.stringify(visible)}`);
    return { visible, whole: whole(item) };
  }

  before(async () => {
    api = await testApi();
    sim = await startSimulator({ timeScale: 0.2, dialect: 'live', crews: CREWS, seed: 52 });
    crews = await addSimulatorCrews(api, sim, 'Labels');
    await showCrewRunsView();
    aged = await start('aging', 'Aged'); // Short: its age fits after its state.
  });

  after(async () => {
    await cleanUp(api, runIds);
    await executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration().update('workbench.colorTheme', undefined, vscode.ConfigurationTarget.Global);
    await sim?.close();
  });

  // At 300 px a row shows about 29 characters; two action icons (a run that needs feedback: Give Feedback and
// Stop Run) take six of them, and "needs feedback" fourteen: its name keeps what is left.
const cases: { what: string; state: string; make: () => Promise<string>; name: string; minName?: number }[] = [
    { what: 'a running run', state: 'running', name: LONG, make: async () => {
      const id = await start('slow', LONG);
      await waitForRun(api, id, (r) => r.state === 'running', 'the run running');
      return id;
    } },
    { what: 'a run that needs feedback (two action icons)', state: 'needs feedback', name: LONG, minName: 8, make: async () => {
      const id = await start('review', LONG);
      await waitForRun(api, id, (r) => r.needsFeedback, 'the run waiting for feedback');
      return id;
    } },
    { what: 'the second run of the same inputs ("#2")', state: 'succeeded', name: LONG, make: async () => {
      const first = await start('quick', LONG);
      await waitForRun(api, first, (r) => r.state === 'succeeded', 'the first run done');
      const second = await start('quick', LONG);
      await waitForRun(api, second, (r) => r.state === 'succeeded', 'the second run done');
      return second;
    } },
    { what: 'a batch row\'s run that succeeded', state: 'succeeded', name: 'Edge cases of the importer', make: () => batchRun(1, 'Edge cases of the importer', { state: 'SUCCESS', status: 'done', result: 'ok' }) },
    { what: 'a batch row\'s run that failed', state: 'failed', name: 'Edge cases of the importer, part two', make: () => batchRun(3, 'Edge cases of the importer, part two', { state: 'FAILED', status: 'Tool failed' }) },
    // "Stopped in A  running · not watch…": a run no longer watched says so whole (Resume Watching and Stop Run showing).
    { what: 'a run no longer watched (two action icons)', state: 'not watching', name: 'Stopped in window A while it ran', minName: 8, make: async () => {
      const id = await start('paused', 'Stopped in window A while it ran');
      await waitForRun(api, id, (r) => r.state === 'running', 'the run running');
      await api.stopWatching(id);
      await waitForRun(api, id, (r) => !r.watching, 'the run no longer watched');
      return id;
    } },
  ];

  for (const c of cases) {
    it(`${c.what}: the name and the whole state word in sight, selected or not, and nothing cut`, async () => {
      const runId = await c.make();
      for (const select of [false, true]) {
        const { visible, whole: text } = await drawnRow(runId, c.state, select);
        assert.match(visible, new RegExp(`\\b${c.state}\\b`), `the state is whole (${select ? 'selected' : 'not selected'}): ${JSON.stringify(visible)}`);
        const shown = nameShown(visible, c.name);
        const wanted = Math.min(c.minName ?? 12, c.name.length);
        assert.ok(shown >= wanted, `at least ${wanted} characters of the name show (${select ? 'selected' : 'not selected'}), not ${shown}: ${JSON.stringify(visible)}`);
        // What follows the state is shown whole or not at all ("running 0/1 ·", "succeeded · ro" were cut).
        assert.strictEqual(visible, text, `the row is drawn whole (${select ? 'selected, under the pointer' : 'not selected'})`);
      }
    });
  }

  it('the Batches view: a batch and its rows keep their state (and the failed count) whole, nothing cut', async () => {
    const topic = (part: string) => ({ topic: `Edge cases of the importer, part ${part}` });
    const rows: BatchRow[] = [
      { index: 0, inputs: topic('one'), status: 'unknown', note: 'The window closed while its kickoff was in flight.' },
      { index: 1, inputs: topic('two'), status: 'skipped', note: 'Missing: audience' },
      { index: 2, inputs: topic('three'), status: 'sent', kickoffId: 'k-3', result: { state: 'failed', finishedAt: Date.now(), error: 'ValueError: the importer broke' } },
      { index: 3, inputs: topic('four'), status: 'cancelled' },
    ];
    const batch = await api.batches.store.create({ crewUrl: crews.quick.url, crewName: crews.quick.name, source: 'edge-cases-of-the-importer-spring.csv', inputNames: ['topic'], concurrency: 1, rows });
    try {
      await executeCommand('crewRuns.batches.focus');
      const tree = api.batches.tree;
      const node = tree.getChildren().find((n) => n.type === 'batch' && n.batchId === batch.id)!;
      const batchRow = `${selectors.sideBar} .monaco-list-row:has-text(${JSON.stringify(labelOf(tree.getTreeItem(node)).slice(0, 16))})`;
      await ui.text(`${selectors.sideBar} .pane-header:has-text("Batches")`, { hover: true }); // Away from the last row's tooltip.
      await ui.click(`${batchRow} .monaco-tl-twistie`, { timeoutMs: 20_000 });
      const drawn = [node, ...tree.getChildren(node)].map((n) => ({ node: n, item: tree.getTreeItem(n) }));
      for (const { node: n, item } of drawn) {
        const description = String(item.description);
        const selector = n.type === 'batch' ? batchRow : `${selectors.sideBar} .monaco-list-row:has-text(${JSON.stringify(labelOf(item).slice(0, 4))}):has-text(${JSON.stringify(description.slice(0, 4))})`;
        for (const hover of [false, true]) {
          const visible = await ui.text(`${selector} .monaco-icon-label-container`, { visibleOnly: true, hover, timeoutMs: 20_000 });
          console.log(`      ${hover ? 'hovered' : 'drawn'}: ${JSON.stringify(visible)}`);
          assert.strictEqual(visible, whole(item), `the row is drawn whole (${hover ? 'under the pointer' : 'as it is'})`);
        }
      }
      const [batchItem, ...rowItems] = drawn.map((d) => d.item);
      assert.match(String(batchItem.description), /^3\/3 · 1 failed\b/, 'the batch says its progress and failures first');
      assert.deepStrictEqual(rowItems.map((i) => String(i.description).split(' · ')[0]), ['skipped', 'unknown', 'failed', 'cancelled'], 'each row its state in a word (skipped rows first)');
      assert.match(String(rowItems[1].tooltip), /check before re-running/, 'what to do about an unknown row is in its tooltip');
      await ui.screenshot('tree-labels-batches', { selector: selectors.sideBar });
    } finally {
      await api.batches.store.remove(batch.id);
      await showCrewRunsView();
    }
  });

  it('the two runs of the same inputs still read differently, and the batch row says which row it is', async () => {
    const same = api.runs.list(crews.quick.url).filter((r) => LONG.startsWith(r.label.replace(/…$/, '')));
    assert.strictEqual(same.length, 2);
    const shown = await Promise.all(same.map(async (r) => { const item = await runItem(api, r.id); return `${labelOf(item)} ${String(item.description)}`; }));
    assert.notStrictEqual(shown[0], shown[1], `the two rows differ: ${JSON.stringify(shown)}`);
    const batch = api.runs.list(crews.quick.url).find((r) => r.batch?.row === 3);
    assert.ok(batch);
    const item = await runItem(api, batch.id);
    // Its name is long: the row's number is in the tooltip rather than cut after the state.
    const resolved = await api.tree.resolveTreeItem(item, api.tree.runNode(batch.id));
    const tooltip = typeof resolved.tooltip === 'string' ? resolved.tooltip : (resolved.tooltip?.value ?? '');
    assert.match(`${labelOf(item)} ${String(item.description)} ${tooltip}`, /[Rr]ow 3\b/);
  });

  it('screenshots of the sidebar at the default width, light and dark', async () => {
    await showCrewRunsView();
    await inLightAndDark(async (name) => {
      const shot = await ui.screenshot(`tree-labels-${name}`, { selector: selectors.sideBar });
      assert.ok(shot.distinctColours > 1, `the ${name} screenshot is not blank`);
    });
  });

  it('an age moves on by itself: "just now" becomes "N min ago" with no change to the run', async () => {
    const run = await waitForRun(api, aged, (r) => r.state === 'succeeded', 'the aging run done');
    const endedAt = run.finishedAt ?? run.updatedAt;
    await api.treeView.reveal(api.tree.runNode(aged), { select: false, focus: false });
    const row = `${selectors.sideBar} .monaco-list-row:has-text("Aged")`;
    let last = '';
    let wanted = '';
    await waitFor(
      async () => {
        const minutes = Math.floor((Date.now() - endedAt) / 60_000);
        last = (await ui.textIfPresent(row)) ?? '';
        wanted = `${minutes} min ago`;
        return (minutes >= 1 && last.includes(wanted)) || undefined;
      },
      { message: () => `the drawn row saying ${JSON.stringify(wanted)} (it says ${JSON.stringify(last)}, ${Math.round((Date.now() - endedAt) / 1000)} s after the run ended)`, timeoutMs: Math.max(20_000, endedAt + 60_000 - Date.now() + 20_000), intervalMs: 1000 },
    );
  });
});
