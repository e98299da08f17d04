// Issue 52, finding 14: the defaults a new user meets. Run Again from the palette with a run view in front
// runs that run again (no "which run?"); Compare offers a run with output before one that failed; the
// walkthrough ticks each step once it is done, and its pictures are cut to what they show, light and dark.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { demoCrews, startSimulator, type CrewConfig, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, kickOffWithoutReview, selectors, ui, waitFor } from '../helpers';
import { type Api, closeQuickInput, inLightAndDark, pressInQuickInput, removeAllCrews, removeRunsOf, SLOW, testApi, waitForQuickInput, waitForQuickInputClosed } from './support/kit';

const WALKTHROUGH = 'crew-runs.crew-runs#crewRuns.gettingStarted';

describe('Defaults a new user meets', function () {
  this.timeout(240_000);
  let api: Api;
  let sim: Simulator;
  const url = (id: string) => sim.crewUrl(id);

  async function run(crew: string, topic: string, state: string): Promise<string> {
    const id = await kickOffWithoutReview<string>({ crew: url(crew), inputs: { topic } });
    assert.ok(id, 'the kickoff returned a run id');
    await waitFor(() => api.runs.get(id)?.state === state || (state === 'needsFeedback' && api.runs.get(id)?.needsFeedback), { message: `the run ${topic} ${state}`, ...SLOW, timeoutMs: 90_000 });
    return id;
  }

  /** Runs a command from the palette, as a user does: the workbench sees it (a walkthrough step's completion event). */
  async function fromPalette(title: string): Promise<void> {
    await executeCommand('workbench.action.quickOpen', `>${title}`);
    await pressInQuickInput('Enter', { activeItem: title });
  }

  before(async function () {
    if (!ui.available()) {
      this.skip();
    }
    api = await testApi();
    // The walkthrough counts what happens once VS Code has it loaded (its page opened once, or the Welcome page at
    // startup): opened first here, as a user who looks at it before trying.
    await executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitFor(async () => (await ui.textIfPresent('[data-done-step-id$="#addCrew"]')) !== undefined || undefined, { message: 'the walkthrough drawn', ...SLOW });
    await executeCommand('workbench.action.closeAllEditors');
    const review = demoCrews().find((c) => c.id === 'review-crew');
    assert.ok(review);
    const quick: CrewConfig = { id: 'quick', name: 'Defaults Quick', kind: 'crew', inputs: ['topic'], pendingMs: 100, failWhenInputContains: '#fail', tasks: [{ name: 'research_task', agent: 'Researcher', durationMs: 300, output: '# Notes\n\nNotes on {topic}.' }] };
    sim = await startSimulator({ timeScale: 0.05, crews: [quick, { ...review, id: 'review', name: 'Defaults Review' }] });
    for (const crew of sim.crews) {
      await addCrewWithToken({ url: crew.url, name: crew.name, token: crew.orgToken });
    }
  });

  after(async () => {
    await closeQuickInput();
    await executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration().update('workbench.colorTheme', undefined, vscode.ConfigurationTarget.Global);
    if (api && sim) {
      await removeRunsOf(api, sim.crews.map((c) => c.url));
      await removeAllCrews(api);
    }
    await sim?.close();
  });

  it('Run Again from the palette, with a run view in front, runs that run again without asking which', async () => {
    const shown = await run('quick', 'The run in front', 'succeeded');
    await run('quick', 'A newer run', 'succeeded');
    await executeCommand('workbench.action.closeAllEditors');
    await executeCommand('crewRuns.openRun', { runId: shown });
    await waitFor(() => api.panels.activeRunId() === shown || undefined, { message: 'the run view in front', ...SLOW });
    const done = executeCommand<string | undefined>('crewRuns.runAgain');
    const first = await waitForQuickInput(/ · started |review \(/);
    assert.doesNotMatch(first, / · started /, 'no "which run?" picker: the run view in front says which run');
    assert.match(first, /The run in front/, 'the review of the run in front');
    await closeQuickInput();
    assert.strictEqual(await done, undefined);
  });

  it('Compare Output offers a run with output first, not the newest run that failed', async () => {
    await run('quick', 'Broken on purpose #fail', 'failed');
    await executeCommand('workbench.action.closeAllEditors');
    await waitFor(() => api.panels.activeRunId() === undefined || undefined, { message: 'no run view in front', ...SLOW });
    const done = executeCommand('crewRuns.compareOutput');
    await waitForQuickInput(/ · started /); // The run picker (its question is the box's placeholder).
    const top = await ui.text(`${selectors.openQuickInput} .monaco-list-row[data-index="0"]`);
    console.log(`      first offered: ${JSON.stringify(top)}`);
    assert.doesNotMatch(top, /#fail/, 'the failed run is not the first offered');
    assert.match(top, /A newer run/, 'the newest run with output is');
    await closeQuickInput();
    await waitForQuickInputClosed();
    await done;
  });

  it('the walkthrough ticks every step once it is done', async () => {
    // VS Code counts a walkthrough's completion events only once it has loaded that walkthrough: open it first.
    await executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitFor(async () => (await ui.textIfPresent('[data-done-step-id$="#addCrew"]')) !== undefined || undefined, { message: 'the walkthrough drawn', ...SLOW });
    await executeCommand('workbench.action.closeAllEditors');
    const waiting = await run('review', 'Spring launch', 'needsFeedback');
    // The commands from the palette, as a user runs them (from the extension host the workbench would not see them).
    await fromPalette('Crew Runs: Kick Off Crew…');
    await waitForQuickInput(/Defaults Quick/); // Which crew? Not this time.
    await closeQuickInput();
    const row = `${selectors.sideBar} .monaco-list-row:has-text("Spring l")`;
    await ui.click(row); // Its command (Open Run) runs in the workbench, as a user's click does.
    await waitFor(() => api.panels.activeRunId() !== undefined || undefined, { message: 'the run view opened from the tree', ...SLOW });
    await executeCommand('workbench.action.closeAllEditors');
    await fromPalette('Crew Runs: Give Feedback…');
    await waitFor(() => api.reviews.openReviewOf(waiting), { message: 'the review open', ...SLOW });
    // Give Feedback also opens the run view beside the review: closed before it came, it would come over the walkthrough.
    await waitFor(() => api.panels.isOpen(waiting) || undefined, { message: 'the run view beside the review', ...SLOW });
    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).length;
    await waitFor(async () => { await executeCommand('workbench.action.closeAllEditors'); return tabs() === 0 || undefined; }, { message: () => `every editor closed (${tabs()} open)`, ...SLOW });
    await executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitFor(async () => (await ui.textIfPresent('[data-done-step-id$="#addCrew"]')) !== undefined || undefined, { message: 'the walkthrough drawn', ...SLOW });
    const done: Record<string, boolean> = {};
    await waitFor(
      async () => {
        // In front each time: a review or run view that comes back over it would hide its ticks.
        await executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
        for (const step of ['addCrew', 'kickOff', 'watch', 'feedback']) {
          done[step] = (await ui.textIfPresent(`.codicon.complete[data-done-step-id$="#${step}"]`)) !== undefined;
        }
        return Object.values(done).every(Boolean) || undefined;
      },
      { message: () => `every step ticked (${JSON.stringify(done)})`, ...SLOW },
    );
    await ui.screenshot('walkthrough-ticked', { selector: '.part.editor' });
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('the walkthrough\'s pictures, cut to what they show, light and dark', async () => {
    const finished = api.runs.list(url('quick')).find((r) => r.state === 'succeeded');
    assert.ok(finished);
    await inLightAndDark(async (name) => {
      await executeCommand('workbench.action.closeAllEditors');
      await executeCommand('workbench.view.extension.crewRuns');
      await waitFor(async () => (await ui.text(selectors.sideBar)).includes('Defaults Review') || undefined, { message: 'the runs drawn', ...SLOW });
      const shots = [await ui.screenshot(`walkthrough-crews-${name}`, { selector: selectors.sideBar })];

      const kickoff = executeCommand('crewRuns.kickOff', url('quick'));
      await waitForQuickInput(/Kick Off Defaults Quick/);
      shots.push(await ui.screenshot(`walkthrough-kick-off-${name}`, { selector: selectors.openQuickInput }));
      await closeQuickInput();
      await kickoff;

      await executeCommand('crewRuns.openRun', { runId: finished.id });
      await waitFor(() => api.panels.inspect(finished.id)?.pageReport?.hasFinalOutput, { message: 'the run view rendering the output', ...SLOW });
      shots.push(await ui.screenshot(`walkthrough-watch-${name}`, { selector: '.part.editor' }));
      await executeCommand('workbench.action.closeAllEditors');

      const waiting = api.runs.list(url('review')).find((r) => r.needsFeedback);
      assert.ok(waiting, 'the run of the previous test still waits for feedback');
      await executeCommand('crewRuns.giveFeedback', { runId: waiting.id });
      await waitFor(() => api.reviews.openReviewOf(waiting.id), { message: 'the review open', ...SLOW });
      await waitFor(async () => (await ui.text('.part.editor')).includes('Approve') || undefined, { message: 'the comment thread drawn', ...SLOW });
      shots.push(await ui.screenshot(`walkthrough-feedback-${name}`, { selector: '.part.editor' }));
      await executeCommand('workbench.action.closeAllEditors');
      for (const shot of shots) {
        assert.ok(shot.distinctColours > 10, `${shot.path} is not blank`);
        assert.ok(shot.width < 1280, `${shot.path} is cut to what it shows (${shot.width} px wide)`);
      }
    });
  });
});
