// First impressions › run view: what a new user reads in the run view, its output tabs and pickers
// (issue 20 items 10 and 11), and that any edit of a run's output reaches the page (issue 16).
// Everything is read as the user sees it: the page's text (the webview frame), editor tab titles,
// the quick input. Runs are driven through the store, so no network is involved.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { normaliseStatus } from '../../../src/api/normalize';
import type { RunRecord } from '../../../src/runTracking/model';
import { executeCommand, ui, waitFor } from '../helpers';
import { closeQuickInput, inLightAndDark, pickInQuickInput, removeRunsOf, SLOW, testApi, typeInQuickInput, waitForQuickInput, type Api } from './support/kit';

const CREW_URL = 'http://127.0.0.1:9';
const CREW_NAME = 'First look crew';

let api: Api;

async function newRun(topic: string): Promise<RunRecord> {
  const run = await api.runs.add({ crewUrl: CREW_URL, crewName: CREW_NAME, kickoffId: `fi-${topic}-${Date.now()}`, inputs: { topic } });
  await api.runs.setWatching(run.id, false, 'user'); // Driven by the test, not polled.
  return api.runs.get(run.id)!;
}

async function apply(run: RunRecord, body: Record<string, unknown>): Promise<void> {
  await api.runs.applyPolled(run.id, undefined, normaliseStatus(body));
}

/** The text of the run view page once it contains `contains` (and `until` holds for it). */
async function pageText(contains: string, until: (text: string) => boolean = () => true, what = contains): Promise<string> {
  let last = '';
  return waitFor(
    async () => {
      const frame = await ui.frameText(contains, { timeoutMs: 2000 }).catch(() => undefined);
      last = frame?.text ?? last;
      return frame && until(frame.text) ? frame.text : undefined;
    },
    { message: `the run view to show ${what}`, intervalMs: 250, ...SLOW },
  ).catch((error: Error) => {
    throw new Error(`${error.message}; it showed ${JSON.stringify(last.slice(0, 600))}`);
  });
}

async function activeTabTitle(): Promise<string> {
  return ui.text('.part.editor .tabs-container .tab.active', { timeoutMs: 5000 });
}

describe('First impressions › run view', function () {
  this.timeout(120_000);

  before(async () => {
    api = await testApi();
  });

  afterEach(async () => {
    await closeQuickInput().catch(() => undefined);
    await executeCommand('workbench.action.closeAllEditors');
  });

  // Its runs go with it: one left waiting for feedback would be a second waiting run in the files after it.
  after(async () => {
    await removeRunsOf(api, [CREW_URL]);
  });

  it('shows a same-length edit of the output (not only edits the output identity samples)', async () => {
    // ~45,000 characters: the old identity sampled every 10th character and the last 64.
    const filler = 'Llamas hum to each other when they are worried or curious.\n\n'.repeat(740);
    const text = (marker: string) => `_${marker}_ report\n\n${filler}The end.\n`;
    const run = await newRun('same length');
    await apply(run, { state: 'SUCCESS', status: null, result: text('ALPHA123') });
    await executeCommand('crewRuns.openRun', { runId: run.id });
    await pageText('ALPHA123');
    await apply(run, { state: 'SUCCESS', status: null, result: text('OMEGA456') });
    const after = await pageText('OMEGA456');
    assert.ok(!after.includes('ALPHA123'), 'the old text is gone');
  });

  it('labels the latest step, token usage, task lists, task changes and feedback rounds in plain words', async () => {
    const run = await newRun('plain words');
    await apply(run, {
      state: 'RUNNING',
      status: 'Task is Running',
      progress: { unit: 'task', completed: 0, total: 2, current: 'research_task', current_agent: 'Researcher' },
      last_step: { thought: 'Thought: I should look up llamas', tool: 'search', tool_input: 'llamas' },
    });
    await executeCommand('crewRuns.openRun', { runId: run.id });
    const running = await pageText('I should look up llamas');
    assert.doesNotMatch(running, /Thought\s*:?\s*Thought/, 'the thought is labelled once');
    assert.doesNotMatch(running, /Task is Running/, 'a sentence that only repeats the Running badge is not shown');

    await apply(run, {
      state: 'RUNNING',
      status: 'Task is Running',
      progress: { unit: 'task', completed: 1, total: 2, current: 'Write the report', current_agent: 'Writer' },
      last_executed_task: { name: 'Research llamas', task_id: 'task-7f3a', output: 'Llamas are camelids.', agent: 'Researcher' },
    });
    await api.runs.addFeedbackRound(run.id, { at: Date.now(), approve: false, feedback: 'Add a section on alpacas', taskId: 'task-7f3a' });
    // Request Changes sends the crew back to the reviewed task: the page says so rather than show 0 of 2 again.
    await apply(run, {
      state: 'RUNNING',
      status: 'Task is Running',
      progress: { unit: 'task', completed: 0, total: 2, current: 'Research llamas', current_agent: 'Researcher' },
    });
    const redoing = await pageText('Redoing “Research llamas” with your feedback');
    assert.doesNotMatch(redoing, /0 of 2 tasks done/, 'no step back shown while the task is redone');
    await apply(run, {
      state: 'SUCCESS',
      status: null,
      result: '# Plan\n\n- [ ] Buy hay\n- [x] Feed the llamas\n',
      usage_metrics: { total_tokens: 1234, prompt_tokens: 1000, completion_tokens: 234, successful_requests: 2 },
    });
    const done = await pageText('Buy hay', (t) => t.includes('Add a section on alpacas') && /Total tokens/i.test(t), 'the finished run');
    assert.doesNotMatch(done, /total_tokens|prompt_tokens|successful_requests/, 'no raw snake_case usage keys');
    assert.match(done, /Prompt tokens/i);
    assert.ok(!done.includes('[ ]') && !done.includes('[x]'), `task list items are checkboxes, not brackets: ${done.slice(0, 300)}`);
    assert.match(done, /Feed the llamas/);
    assert.match(done, /Research llamas/, 'the feedback round names its task');
    assert.ok(!/task-7f3a/.test(done.slice(done.indexOf('Add a section on alpacas') - 200)), 'the feedback round does not name the task by id');
    const timeline = done.slice(done.lastIndexOf('Timeline'));
    assert.match(timeline, /Write the report/, `the timeline shows the task change: ${timeline.slice(0, 400)}`);
  });

  it('compares with the run picked first on the left', async () => {
    const first = await newRun('compare first');
    const second = await newRun('compare second');
    await apply(first, { state: 'SUCCESS', status: null, result: 'Output of the FIRST run.' });
    await apply(second, { state: 'SUCCESS', status: null, result: 'Output of the SECOND run.' });
    const compared = executeCommand('crewRuns.compareOutput', { runId: first.id });
    await waitForQuickInput('compare second');
    await pickInQuickInput('compare second');
    await compared;
    const original = await waitFor(async () => (await ui.text('.monaco-diff-editor .editor.original', { timeoutMs: 2000 }).catch(() => '')) || undefined, { message: 'the diff editor', ...SLOW });
    assert.match(original, /FIRST/, 'the left side is the run picked first');
    const title = await activeTabTitle();
    assert.ok(title.indexOf('compare first') < title.indexOf('compare second'), `the title names the first run first: ${title}`);
  });

  it('offers only runs with output to Copy Output and Save Output As', async () => {
    const withOutput = await newRun('fi-pick-has');
    await newRun('fi-pick-none');
    await apply(withOutput, { state: 'SUCCESS', status: null, result: 'Something to copy.' });
    for (const command of ['crewRuns.copyOutput', 'crewRuns.saveOutputAs']) {
      const pending = executeCommand(command);
      await typeInQuickInput('fi-pick'); // Other suites' runs may fill the list: only these two match.
      const text = await waitForQuickInput('fi-pick-has');
      assert.ok(!text.includes('fi-pick-none'), `${command} offers no run without output: ${text}`);
      await closeQuickInput();
      await pending;
    }
  });

  it('names the run in output and task output tabs', async () => {
    const run = await newRun('tab names');
    await apply(run, { state: 'SUCCESS', status: null, result: { raw: 'Final words.', tasks_output: [{ name: 'Research', raw: 'Task words.' }] } });
    await executeCommand('crewRuns.openOutputInEditor', { runId: run.id });
    const outputTab = await waitFor(async () => ((await activeTabTitle().catch(() => '')).includes('output') ? activeTabTitle() : undefined), { message: 'the output tab', ...SLOW });
    assert.match(outputTab, /tab names/, `the output tab names the run: ${outputTab}`);
    await executeCommand('crewRuns.openTaskOutput', { runId: run.id, index: 0 });
    const taskTab = await waitFor(async () => ((await activeTabTitle().catch(() => '')).includes('task') ? activeTabTitle() : undefined), { message: 'the task tab', ...SLOW });
    assert.match(taskTab, /tab names/, `the task output tab names the run: ${taskTab}`);
    const doc = vscode.window.activeTextEditor?.document.getText();
    assert.strictEqual(doc, 'Task words.');
  });

  it('a run without output shows no output buttons; waiting for feedback is said once; a failed run promises no output (#52, finding 12)', async () => {
    const outputButtons = /Copy Output|Save Output As|Open Output in Editor|Compare with Another Run/;
    const waiting = await newRun('waits once');
    await apply(waiting, {
      state: 'PENDING_HUMAN_INPUT',
      status: "Waiting for human input on task 'review_task'",
      current_task: 'review_task',
      progress: { unit: 'task', completed: 1, total: 2, current: 'review_task' },
    });
    await executeCommand('crewRuns.openRun', { runId: waiting.id });
    const asked = await pageText('waits once', (text) => /Give Feedback/.test(text), 'the waiting run with Give Feedback');
    assert.doesNotMatch(asked, outputButtons, `no output to act on, no buttons for it: ${asked.slice(0, 600)}`);
    const head = asked.slice(0, asked.indexOf('Progress')); // Above the sections (the timeline below keeps its history).
    assert.strictEqual(head.match(/waiting|Waiting/g)?.length ?? 0, 1, `the wait said once: ${head}`);
    await executeCommand('workbench.action.closeAllEditors');

    const failed = await newRun('fails bare');
    await apply(failed, { state: 'FAILURE', status: 'failed', result: null, error: 'The model refused the prompt.' });
    await executeCommand('crewRuns.openRun', { runId: failed.id });
    const ended = await pageText('The model refused the prompt.');
    assert.doesNotMatch(ended, /No output yet/, `a failed run will not produce output: ${ended.slice(0, 600)}`);
    assert.doesNotMatch(ended, outputButtons, `no output buttons on a failed run without output: ${ended.slice(0, 600)}`);
  });

  it('pictures: a run at 0 % in the light and dark themes (test-results/first-look-run-view-*.png)', async () => {
    const run = await newRun('pictures');
    await apply(run, {
      state: 'RUNNING',
      status: 'Task is Running',
      progress: { unit: 'task', completed: 0, total: 3, current: 'Research llamas', current_agent: 'Researcher' },
      last_step: { thought: 'Thought: I should look up llamas', tool: 'search', tool_input: 'llamas' },
      usage_metrics: { total_tokens: 1234, prompt_tokens: 1000, completion_tokens: 234, successful_requests: 2 },
    });
    await executeCommand('crewRuns.openRun', { runId: run.id });
    await inLightAndDark(async (name) => {
      const text = await pageText('0 of 3 tasks done');
      assert.match(text, /Total tokens/);
      const shot = await ui.screenshot(`first-look-run-view-${name}`, { selector: '.part.editor' });
      assert.ok(shot.width > 0 && shot.height > 0, `the ${name} picture was taken`);
    });
  });
});
