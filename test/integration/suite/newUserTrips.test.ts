// Issue #52 ("What a new user still trips over"), findings 2, 13 and part of 12, in a real VS Code: the
// review without the Comments panel over it, a second run's "#2" in its review, answered reviews closed,
// the words (plurals, one colon, the step help, the integer hint, the feedback placeholder), and the
// notices that are noise (a "succeeded" toast for the run in front, the demo's hello after every start, its
// port forwarded as an app). A second run's "#2" in its run view's title too.
// Pictures in both themes: test-results/trips-*-light.png and -dark.png.
import * as assert from 'assert';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { CrewConfig, Simulator } from '../../../src/simulator/server';
import { demoCrews, startSimulator } from '../../../src/simulator/server';
import type { DemoCrews } from '../../../src/crews/demoCommands';
import type { BatchFeature } from '../../../src/batches/batchFeature';
import { executeCommand, getExtensionApi, selectors, showCrewRunsView, ui, waitFor } from '../helpers';
import { closeQuickInput, testApi as fullTestApi, inLightAndDark, pressInQuickInput, replaceValue, typeInQuickInput, waitForQuickInput, waitForQuickInputClosed } from './support/kit';
import { type Api, MessageSpy, addSimulatorCrews, cleanUp, kickOff, runLogLines, testApi, waitForRun } from './support/monitoring';

const SLOW = { timeoutMs: 30_000 } as const;

function crew(id: string, name: string, patch: Partial<CrewConfig> = {}): CrewConfig {
  const found = demoCrews().find((c) => c.id === id);
  assert.ok(found, `the simulator has the demo crew ${id}`);
  return { ...structuredClone(found), id: `${id}-t52`, name, ...patch };
}

function bodyText(comment: vscode.Comment): string {
  return (typeof comment.body === 'string' ? comment.body : comment.body.value).replace(/&nbsp;/g, ' ');
}

function reviewEditor(runId: string): vscode.TextEditor | undefined {
  return vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'crew-review' && e.document.uri.path.startsWith(`/${runId}/`));
}

function reviewTabOpen(runId: string): boolean {
  return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'crew-review' && t.input.uri.path.startsWith(`/${runId}/`)));
}

/** Pictures of the page in the light and the dark theme, each once `ready` holds in it. */
async function pictures(name: string, ready: () => Promise<unknown>, selector?: string): Promise<void> {
  await inLightAndDark(async (kind) => {
    await ready();
    const shot = await ui.screenshot(`trips-${name}-${kind}`, { selector });
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height})`);
    assert.ok(shot.distinctColours > 10, `the ${kind} picture shows the workbench`);
  });
}

describe('New user trips (#52)', function () {
  this.timeout(240_000);
  let api: Api;
  let sim: Simulator;
  let crews: Record<string, { url: string; name: string }>;
  let spy: MessageSpy;
  const runIds = new Set<string>();

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Reads and pictures the page through the browser runner.
    }
    api = await testApi();
    spy = new MessageSpy();
    sim = await startSimulator({
      timeScale: 0.05,
      crews: [crew('review-crew', 'Review'), crew('research-crew', 'Research'), crew('interview-crew', 'Interview')],
    });
    crews = await addSimulatorCrews(api, sim, 'T52');
    await showCrewRunsView();
  });

  afterEach(async () => {
    await closeQuickInput().catch(() => undefined);
    await executeCommand('notifications.clearAll');
  });

  after(async () => {
    spy?.dispose();
    await executeCommand('workbench.action.closeAllEditors');
    await cleanUp(api, runIds);
    await sim?.close();
  });

  async function waitingRun(topic: string): Promise<string> {
    const runId = await kickOff(crews['review-crew-t52'].url, { topic });
    runIds.add(runId);
    await waitForRun(api, runId, (r) => r.needsFeedback, `${topic} waiting for feedback`);
    return runId;
  }

  async function threadDrawn(): Promise<void> {
    await waitFor(async () => (await ui.text('.part.editor')).includes('is waiting for your review'), { message: 'the thread drawn in the editor', ...SLOW, intervalMs: 300 });
    await ui.text('.part.editor .review-widget .review-thread-reply-button, .part.editor .review-widget .comment-form', { timeoutMs: 10_000 });
  }

  it('Give Feedback shows the review with no Comments panel over its reply box (light and dark)', async () => {
    await executeCommand('workbench.action.closeAllEditors');
    await executeCommand('workbench.action.closePanel');
    const runId = await waitingRun('Panel check');
    await executeCommand('crewRuns.giveFeedback', { runId });
    await waitFor(() => reviewEditor(runId), { message: 'the review document visible', ...SLOW });
    await waitFor(() => (api.panels.inspect(runId)?.visible ? true : undefined), { message: 'the run view beside the review', ...SLOW });
    // The log says the wait once: not "Working on review_task" and then "waiting for human feedback on review_task".
    const waitingLine = 'info: Run is waiting for human feedback on review_task';
    const lines = await waitFor(async () => ((await runLogLines(api.runs.get(runId)!)).includes(waitingLine) ? runLogLines(api.runs.get(runId)!) : undefined), { message: 'the wait logged', ...SLOW });
    assert.ok(!lines.some((l) => l.startsWith('info: Working on review_task')), `the waiting task named once: ${JSON.stringify(lines)}`);
    await pictures('review', threadDrawn);
    const panel = await ui.textIfPresent('.part.panel:visible');
    assert.strictEqual(panel, undefined, `no panel opened over the review: ${JSON.stringify(panel?.slice(0, 200))}`);
    // The reply box's hint shows whole in the box beside the run view (it was cut off).
    await ui.click('.part.editor .review-widget .review-thread-reply-button', { timeoutMs: 10_000 });
    const hint = 'Feedback for the crew';
    const form = '.part.editor .review-widget .comment-form';
    await ui.text(`${form} .form-actions, .part.editor .review-widget .form-actions`, { timeoutMs: 10_000 });
    await pictures('reply-box', async () => ui.text(form), '.part.editor');
    const full = await ui.text(form);
    const visible = await ui.text(form, { visibleOnly: true });
    console.log(`      reply box text: ${JSON.stringify(full)} | visible: ${JSON.stringify(visible)}`);
    // The empty box's text is its hint: all of it is drawn, no character cut off at the box's edge.
    assert.ok(visible.replace(/\s+/g, ' ').includes(full.trim()), `the hint shows whole: ${JSON.stringify(full)} drawn as ${JSON.stringify(visible)}`);
    assert.strictEqual(full.trim(), hint);
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('a second run of the same topic is "#2" in its review\'s tab, text and thread; an answered review closes', async () => {
    const topic = 'Same topic';
    const first = await waitingRun(topic);
    const second = await waitingRun(topic);
    await executeCommand('crewRuns.giveFeedback', { runId: second });
    const editor = await waitFor(() => reviewEditor(second), { message: 'the second run\'s review visible', ...SLOW });
    assert.strictEqual(path.posix.basename(editor.document.uri.path), `${topic} #2 · review-1.md`, 'the tab says "#2", as the tree does');
    assert.ok(editor.document.getText().includes(`${topic} #2`), `the review's text names the run as the tree does:\n${editor.document.getText().slice(0, 300)}`);
    const review = api.reviews.openReviewOf(second)!;
    assert.ok(bodyText(review.thread.comments[0]).replace(/\\/g, '').includes(`run "${topic} #2"`), bodyText(review.thread.comments[0]));

    await executeCommand('crewRuns.giveFeedback', { runId: first });
    const firstEditor = await waitFor(() => reviewEditor(first), { message: 'the first run\'s review visible', ...SLOW });
    assert.strictEqual(path.posix.basename(firstEditor.document.uri.path), `${topic} · review-1.md`, 'the oldest keeps its label');

    assert.strictEqual(await executeCommand<boolean>('crewRuns.feedback.requestChanges', { thread: review.thread, text: 'Shorter' }), true);
    const said = spy.statusMessages.filter((m) => m.includes(topic));
    assert.ok(!said.some((m) => /^Sent back:/.test(m)), `the status bar says plainly what happens: ${JSON.stringify(said)}`);
    assert.ok(said.some((m) => m.startsWith('Changes requested: the crew redoes the task of')), JSON.stringify(said));
    await waitFor(() => !reviewTabOpen(second), { message: 'the answered review closed', timeoutMs: 10_000 });
    assert.ok(reviewTabOpen(first), 'the review still waiting stays open');
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('a kickoff step says what Enter does once (in VS Code\'s own words), and an integer step speaks of numbers only', async () => {
    const research = executeCommand<string | undefined>('crewRuns.kickOff', { url: crews['research-crew-t52'].url });
    const step1 = await waitForQuickInput(/Kick Off .*Research: topic[\s\S]*Escape/); // Its message drawn.
    // VS Code adds "(Press 'Enter' to confirm or 'Escape' to cancel)" under every input box: a step of ours saying it too is noise.
    const enters = (text: string) => text.match(/Enter/g)?.length ?? 0;
    assert.strictEqual(enters(step1), 1, `the first step says what Enter does, once: ${step1}`);
    await typeInQuickInput('llamas', { enter: true });
    const step2 = await waitForQuickInput(/Kick Off .*Research: audience[\s\S]*Escape/);
    assert.strictEqual(enters(step2), 1, `said once is enough: ${step2}`);
    await pressInQuickInput('Escape');
    await waitForQuickInputClosed();
    await research;

    const interview = executeCommand<string | undefined>('crewRuns.kickOff', { url: crews['interview-crew-t52'].url });
    await waitForQuickInput(/Kick Off .*Interview: interview_data/);
    await replaceValue('{"topic": "t", "questions_and_answers": []}', { when: /interview_data/, enter: true });
    const integer = await waitForQuickInput(/Kick Off .*Interview: max_score/);
    const shot = await ui.screenshot('trips-integer-step', { selector: '.quick-input-widget' });
    console.log(`      screenshot: ${shot.path}; the step: ${JSON.stringify(integer)}`);
    assert.doesNotMatch(integer, /object|a list/, `an integer step speaks of numbers: ${integer}`);
    assert.match(integer, /whole number/);
    await pressInQuickInput('Escape');
    await waitForQuickInputClosed();
    await interview;
  });

  it('a one-row batch says "Kick Off 1 Row", and its end notice has one colon', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trips-'));
    const file = path.join(dir, 'one.csv');
    fs.writeFileSync(file, 'topic,audience\nllamas,farmers\n');
    const started = executeCommand<string | undefined>('crewRuns.kickOffBatch', { crew: crews['research-crew-t52'].url, file });
    const preview = await waitForQuickInput('Kick Off 1 Row');
    assert.doesNotMatch(preview, /Kick Off 1 Rows/, 'one row is a row');
    await pressInQuickInput('Enter', { when: 'Kick Off 1 Row', activeItem: 'Kick Off 1 Row' });
    await waitForQuickInputClosed();
    const batchId = await started;
    assert.ok(batchId);
    const batches = (await getExtensionApi<{ batches: BatchFeature }>()).batches;
    const notice = await waitFor(() => spy.shown.find((m) => m.message.includes('one.csv') && / ended/.test(m.message)), {
      message: () => `the batch's end notice (shown: ${JSON.stringify(spy.shown.map((m) => m.message))})`,
      timeoutMs: 90_000,
    });
    assert.strictEqual(notice.message, `Batch one.csv on ${crews['research-crew-t52'].name} ended: 1 succeeded.`);
    for (const b of batches.store.list().filter((x) => x.id === batchId)) {
      for (const row of b.rows) {
        if (row.runId) {
          runIds.add(row.runId);
        }
      }
    }
  });

  // After the kickoff steps' test: its runs' inputs would be offered there as "Last used inputs" first.
  it('a second run of the same topic is "#2" in its run view\'s title, as in the tree', async () => {
    const url = crews['research-crew-t52'].url;
    const topic = 'Twice told';
    const first = await kickOff(url, { topic, audience: 'readers' });
    runIds.add(first);
    const second = await kickOff(url, { topic, audience: 'readers' });
    runIds.add(second);
    const titleOf = async (runId: string) => {
      await executeCommand('workbench.action.closeAllEditors');
      await executeCommand('crewRuns.openRun', { runId });
      await waitFor(() => (api.panels.inspect(runId)?.visible ? true : undefined), { message: `the run view of ${runId} shown`, ...SLOW });
      const views = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview);
      const [view] = await waitFor(() => (views().length === 1 ? views() : undefined), { message: () => `one run view's tab (tabs: ${JSON.stringify(views().map((t) => t.label))})`, ...SLOW });
      return view.label;
    };
    const crewName = api.runs.get(first)!.crewName;
    assert.strictEqual(await titleOf(second), `${crewName}: ${topic} #2`, 'the second run\'s view says "#2", as its row does');
    const heading = await waitFor(async () => (await ui.frameText(`${crewName}: ${topic}`, { timeoutMs: 2000 }).catch(() => undefined))?.text, { message: 'the run view page drawn', ...SLOW });
    assert.ok(heading.startsWith(`${crewName}: ${topic} #2`), `the page's heading says "#2" too: ${heading.slice(0, 120)}`);
    await pictures('run-view-title', async () => ui.text('.part.editor .tabs-container'), '.part.editor');
    assert.strictEqual(await titleOf(first), `${crewName}: ${topic}`, 'the oldest keeps its label');
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('a run whose view is in front ends with no "succeeded" toast offering Open Run', async () => {
    const url = crews['research-crew-t52'].url;
    const inFront = await kickOff(url, { topic: 'In front', audience: 'readers' });
    runIds.add(inFront);
    await executeCommand('crewRuns.openRun', { runId: inFront });
    await waitFor(() => (api.panels.inspect(inFront)?.visible ? true : undefined), { message: 'the run view in front', ...SLOW });
    await waitForRun(api, inFront, (r) => r.state === 'succeeded', 'the run in front succeeded');
    // A run ended after it, not in front: once its notice is shown, the first one's was decided long before.
    await executeCommand('workbench.action.closeAllEditors');
    const behind = await kickOff(url, { topic: 'Behind', audience: 'readers' });
    runIds.add(behind);
    await waitFor(() => spy.shown.find((m) => m.message.startsWith('Behind on ')), { message: 'the notice of the run not in front', timeoutMs: 90_000 });
    const shown = spy.shown.filter((m) => m.message.startsWith('In front on '));
    assert.deepStrictEqual(shown.map((m) => [m.message, m.items]), [], 'nothing said of the run the user is looking at');
    assert.deepStrictEqual(spy.shown.find((m) => m.message.startsWith('Behind on '))?.items, ['Open Run', 'Show Output'], 'a run not in front still offers Open Run');
  });

  it('the demo says hello once per demo start, not at every reload, and whenever the user asks for it', async () => {
    const demo = (await getExtensionApi<{ demo: DemoCrews }>()).demo;
    const view = (await fullTestApi()).treeView;
    const hello = /^The demo crews run on this machine/;
    const startOnce = (demoStart: string) => demo.start({ welcome: 'once', demoStart });
    try {
      await startOnce('trips-1');
      const toasts = spy.matching(hello).length;
      assert.match(view.message ?? '', hello, 'said where it stays: atop the Crew Runs view, not in a toast that goes by itself');
      await waitFor(async () => ((await ui.text(selectors.sideBar)).includes('The demo crews run on this machine') ? true : undefined), { message: 'the hello drawn in the view', ...SLOW });
      await pictures('demo-hello', async () => ui.text(selectors.sideBar), selectors.sideBar);
      view.message = undefined; // As a kickoff clears it.
      await startOnce('trips-1'); // A reload: the same demo start.
      assert.strictEqual(view.message, undefined, 'not again after a reload of the same demo');
      await startOnce('trips-2'); // `npm run demo` again.
      assert.match(view.message ?? '', hello, 'said again when the demo starts anew');
      assert.strictEqual(spy.matching(hello).length, toasts, 'and not in a toast besides');
      await executeCommand('crewRuns.tryDemoCrew');
      assert.strictEqual(spy.matching(hello).length, toasts + 1, 'Try the Demo Crews, asked for, says it');
    } finally {
      await demo.dispose();
    }
    assert.strictEqual(view.message, undefined, 'gone with the demo crews');
  });

  // Where VS Code runs remotely (code-server, Remote-SSH, Codespaces), it forwards every new port a process
  // listens on at localhost, the extension host included: the demo crews' port is not an app to open.
  it('the demo crews\' port is not forwarded as an app (the Ports counter does not climb)', async () => {
    const demo = (await getExtensionApi<{ demo: DemoCrews }>()).demo;
    const remote = vscode.workspace.getConfiguration('remote');
    const before = remote.inspect<boolean>('autoForwardPorts')?.globalValue;
    await remote.update('autoForwardPorts', true, vscode.ConfigurationTarget.Global);
    const control = net.createServer();
    try {
      const [url] = await demo.start({ welcome: 'always' });
      const demoPort = new URL(url).port;
      // A port VS Code does forward, opened after the demo's: once it is listed, the demo's was looked at too.
      await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
      const controlPort = String((control.address() as net.AddressInfo).port);
      await executeCommand('~remote.forwardedPorts.focus');
      let listed = '';
      await waitFor(async () => ((listed = (await ui.textIfPresent(selectors.panel)) ?? '').includes(controlPort) ? true : undefined), {
        message: () => `port ${controlPort} forwarded (the Ports view: ${JSON.stringify(listed.slice(0, 300))})`,
        timeoutMs: 60_000,
        intervalMs: 500,
      });
      const forwarded = listed.split('\n').filter((line) => /^\d+$/.test(line.trim()));
      assert.ok(!forwarded.includes(demoPort), `the demo's port ${demoPort} is not forwarded: ${JSON.stringify(forwarded)}`);
    } finally {
      control.close();
      await demo.dispose();
      await remote.update('autoForwardPorts', before, vscode.ConfigurationTarget.Global);
      await executeCommand('workbench.action.closePanel');
    }
  });
});
