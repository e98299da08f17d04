// Issue "First impressions", the demo and feedback part: `npm run demo` as a user's first minute
// (its own server configuration, checked in the page: its hello where it stays, toasts drawn, Add Crew's
// answer visible, its runs found again after a reload), and the review documents as a reviewer reads them (the text
// under review first and readable, the thread after it, answered rounds resolved, no picker for a
// single choice).
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Simulator } from '../../../src/simulator/server';
import { demoCrews, startSimulator } from '../../../src/simulator/server';
import { executeCommand, selectors, showCrewRunsView, ui, waitFor } from '../helpers';
import type { QuickInputGuard } from '../helpers/uiBridgeProtocol';
import { type Api, addSimulatorCrews, cleanUp, kickOff, testApi, waitForRun } from './support/monitoring';
import { quickInputText, typeInQuickInput, waitForQuickInput } from './support/kit';

const DEMO = 'demo';
const SLOW_MS = 60_000;

/** A toast drawn in the demo page (not the notification center, not the API): its text. */
function demoToast(contains: string): Promise<string> {
  return ui.text(`${selectors.notifications} .notification-toast:visible:has-text(${JSON.stringify(contains)})`, { window: DEMO, timeoutMs: SLOW_MS });
}

function demoQuickInput(contains: string, activeItem?: string): QuickInputGuard {
  return { contains, activeItem, timeoutMs: SLOW_MS };
}

/**
 * Runs a command from the demo's command palette, as a user does (F1, its title, Enter). A window
 * still restoring itself (just reloaded) may drop the key or take the focus back and close the
 * palette, so F1 is pressed again until the palette is open, as a user would.
 */
async function demoCommand(title: string): Promise<void> {
  let lastProblem = '';
  await waitFor(
    async () => {
      await ui.press('F1', { window: DEMO });
      return ui.text(selectors.openQuickInput, { window: DEMO, timeoutMs: 5_000 }).then(
        () => true,
        (error: Error) => ((lastProblem = error.message), false),
      );
    },
    { message: () => `the command palette opening on F1 (${lastProblem})`, timeoutMs: SLOW_MS },
  );
  await ui.type(title, { window: DEMO, enter: true, quickInput: { ...demoQuickInput(''), activeItem: title } });
}

describe('First impressions › demo and feedback', function () {
  this.timeout(240_000);

  describe('npm run demo, as its user sees it', function () {
    before(async function () {
      if (!ui.available()) {
        this.skip(); // Needs the browser runner, which starts the demo's own server.
      }
      await ui.demo('open', DEMO, { timeoutMs: SLOW_MS });
    });

    after(async () => {
      if (ui.available()) {
        await ui.demo('close', DEMO).catch(() => undefined);
      }
    });

    // A toast goes by itself within seconds (#52): the hello stays atop the view until a run is kicked off.
    it('the demo crews say hello atop the Crew Runs view, where it stays', async () => {
      // Its own words: the welcome shown before any crew is there also says "The demo crews run on this machine".
      const side = await ui.text(`${selectors.sideBar}:has-text("Kick one off to see a run")`, { window: DEMO, timeoutMs: SLOW_MS });
      assert.match(side, /The demo crews run on this machine; nothing leaves it\. Kick one off to see a run/, side);
      const shot = await ui.screenshot('first-impressions-demo-toast', { window: DEMO });
      assert.ok(shot.distinctColours > 10, 'the screenshot shows the workbench');
    });

    it('Add Crew with an unreachable host answers in a toast: Save Anyway or Edit URL', async () => {
      await demoCommand('Crew Runs: Add Crew');
      await ui.type('https://no-such-crew.invalid', { window: DEMO, quickInput: { ...demoQuickInput('Add Crew (1/4)'), replace: true }, enter: true });
      await ui.press('Enter', { window: DEMO, quickInput: demoQuickInput('Add Crew (2/4)') });
      await ui.press('Enter', { window: DEMO, quickInput: demoQuickInput('Add Crew (3/4)', 'Organization Bearer Token') });
      await ui.type('first-impressions-token-0123456789', { window: DEMO, quickInput: demoQuickInput('Add Crew (4/4)'), enter: true });
      const toast = await demoToast('Save Anyway');
      assert.match(toast, /no-such-crew|reach/i, `the toast says what went wrong: ${toast}`);
      assert.match(toast, /Edit URL/, toast);
    });

    it('a reload of the demo window finds the run kicked off before it (Open Run lists it)', async () => {
      await demoCommand('Crew Runs: Kick Off Crew');
      await ui.type('Research Crew', { window: DEMO, enter: true, quickInput: demoQuickInput('demo crew on this machine', 'Research Crew') });
      // Then whatever the flow asks, as a user answers it: the start (new values), each input, the review's Kick Off.
      for (let step = 0; ; step++) {
        assert.ok(step < 8, 'the kickoff flow reached its review step');
        // Every step of the wizard is titled "Kick Off Research Crew…"; the crew pick, the same quick input, stays
        // on screen (busy) until the crew's inputs are read.
        const shown = await waitFor(
          async () => {
            const text = await ui.text(selectors.openQuickInput, { window: DEMO, timeoutMs: SLOW_MS });
            return /Kick Off Research Crew/.test(text) ? text : undefined;
          },
          { message: 'a step of the kickoff flow', timeoutMs: SLOW_MS },
        );
        const input = /Kick Off Research Crew: (\w+)/.exec(shown)?.[1];
        if (input === 'review') {
          await ui.press('Enter', { window: DEMO, quickInput: demoQuickInput('Kick Off Research Crew: review', 'Kick Off') });
          break;
        }
        if (!input) {
          await ui.press('Enter', { window: DEMO, quickInput: demoQuickInput('Enter new values', 'Enter new values') });
        } else {
          const title = `Kick Off Research Crew: ${input}`;
          await ui.type(input === 'topic' ? 'Reload check' : 'testers', { window: DEMO, enter: true, quickInput: { ...demoQuickInput(title), replace: true } });
        }
        // The next step open (between two steps none is: that is not a step yet).
        await waitFor(async () => {
          const now = await ui.text(selectors.openQuickInput, { window: DEMO, timeoutMs: 300 }).catch(() => '');
          return now !== '' && now !== shown;
        }, {
          message: 'the kickoff flow moved on',
          timeoutMs: SLOW_MS,
        });
      }
      // "Started Reload check on Research Crew." passes in the status bar; the run is selected in the tree.
      await ui.text(`${selectors.sideBar} .monaco-list-row:has-text("Reload check")`, { window: DEMO, timeoutMs: SLOW_MS });
      // As a user's F5 right away: the run's record is a file on the server, written before the row showed
      // (nothing of it waits in the page's storage, which VS Code for the Web writes a moment later).
      await ui.demo('reload', DEMO, { timeoutMs: SLOW_MS });
      await ui.text(`${selectors.sideBar} .monaco-list-row:has-text("Research Crew")`, { window: DEMO, timeoutMs: SLOW_MS });
      // The same demo, reloaded: no hello again.
      assert.doesNotMatch(await ui.text(selectors.sideBar, { window: DEMO }), /The demo crews run on this machine/, 'no hello after a reload');
      // Open Run lists it, or (the only run) opens its run view at once.
      await demoCommand('Crew Runs: Open Run');
      let picker = '';
      await waitFor(
        async () =>
          (picker = await ui.text(selectors.openQuickInput, { window: DEMO, timeoutMs: 1000 }).catch(() => '')).includes('Reload check') ||
          (await ui.frameText('Reload check', { window: DEMO, timeoutMs: 1000 }).then(() => true, () => false)),
        { message: 'Open Run finding the run kicked off before the reload', timeoutMs: SLOW_MS },
      ).catch(async (error: Error) => {
        // What the demo window showed instead: its side bar (is the run in the tree?) and a picture.
        const sideBar = await ui.text(selectors.sideBar, { window: DEMO, timeoutMs: 2000 }).catch(() => '(no side bar)');
        const shot = await ui.screenshot('failed-demo-window-after-reload', { window: DEMO }).then((s) => s.path, () => '(no screenshot)');
        assert.fail(`${error.message}; the picker showed ${JSON.stringify(picker.slice(0, 300))}; the side bar showed ${JSON.stringify(sideBar.slice(0, 400))}; screenshot ${shot}`);
      });
      await ui.press('Escape', { window: DEMO });
    });
  });

  describe('review documents', function () {
    let api: Api;
    let sim: Simulator;
    let crewUrl: string;
    const runIds = new Set<string>();

    before(async () => {
      api = await testApi();
      const review = demoCrews().find((c) => c.id === 'review-crew');
      assert.ok(review, 'the simulator has a human-input demo crew');
      sim = await startSimulator({ timeScale: 0.05, crews: [{ ...review, id: 'fi-review', name: 'Review' }] });
      crewUrl = (await addSimulatorCrews(api, sim, 'FI'))['fi-review'].url;
      await showCrewRunsView();
    });

    afterEach(async () => {
      await executeCommand('workbench.action.closeAllEditors');
      await executeCommand('notifications.clearAll');
    });

    after(async () => {
      await cleanUp(api, runIds);
      await sim?.close();
    });

    async function waitingRun(topic: string): Promise<string> {
      const runId = await kickOff(crewUrl, { topic, audience: 'reviewers' });
      runIds.add(runId);
      await waitForRun(api, runId, (r) => r.needsFeedback, `${topic} waiting for feedback`);
      return runId;
    }

    function reviewEditor(runId: string): Promise<vscode.TextEditor> {
      return waitFor(() => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'crew-review' && e.document.uri.path.startsWith(`/${runId}/`)), {
        message: 'the review document visible',
        timeoutMs: 20_000,
      });
    }

    it('Give Feedback with one run waiting opens its review without a picker; the text comes first, readable, the thread after it', async () => {
      const runId = await waitingRun('Release 1.0 (beta)');
      const waiting = api.runs.list().filter((r) => r.needsFeedback);
      assert.deepStrictEqual(waiting.map((r) => r.id), [runId], 'exactly one run waits for feedback');
      const opened = executeCommand('crewRuns.giveFeedback');
      await waitFor(async () => (api.reviews.openReviewOf(runId) ? true : (await quickInputText()) !== undefined ? 'picker' : undefined), {
        message: 'a review or a picker',
        timeoutMs: 20_000,
      }).then((what) => assert.strictEqual(what, true, 'Give Feedback asked which run although only one waits'));
      await opened;
      const editor = await reviewEditor(runId);
      const text = editor.document.getText();
      assert.ok(!/\\[.()[\]*_#-]/.test(text.split('\n').slice(0, 4).join('\n')), `the heading lines carry no Markdown escapes:\n${text.slice(0, 300)}`);
      assert.ok(text.includes('Release 1.0 (beta)'), 'the run is named as typed');
      assert.strictEqual(path.posix.basename(editor.document.uri.path), 'Release 1.0 (beta) · review-1.md', 'the tab names the run');
      const review = api.reviews.openReviewOf(runId)!;
      const lastLine = editor.document.lineCount - 1;
      assert.ok(review.thread.range, 'the thread sits on a line');
      assert.ok(review.thread.range.start.line >= lastLine - 1, `the thread is after the text (line ${review.thread.range.start.line} of ${lastLine})`);
      // The output under review is shown rendered too: the run view opens beside the review, which keeps the focus.
      await waitFor(() => (api.panels.inspect(runId)?.visible ? true : undefined), { message: 'the run view beside the review', timeoutMs: 20_000 });
      assert.strictEqual(vscode.window.activeTextEditor?.document.uri.toString(), editor.document.uri.toString(), 'the review keeps the focus');
      // The tab model reaches the extension host in its own message, after the panel's visibility.
      await waitFor(() => (vscode.window.tabGroups.all.length > 1 ? true : undefined), { message: 'the run view in a group beside the review', timeoutMs: 10_000 });
      if (ui.available()) {
        const page = await waitFor(async () => {
          const shown = await ui.text('.part.editor');
          return shown.includes('is waiting for your review') ? shown : undefined;
        }, { message: 'the thread drawn in the editor', timeoutMs: 20_000 });
        const heading = page.indexOf('review_task');
        assert.ok(heading >= 0 && heading < page.indexOf('is waiting for your review'), 'the text under review is drawn above the thread');
        const shot = await ui.screenshot('first-impressions-review', { selector: '.part.editor' });
        assert.ok(shot.distinctColours > 10);
      }
    });

    it('a round answered from the palette is resolved in its review, not left "waiting for your review"', async () => {
      const runId = await waitingRun('Answered elsewhere');
      await executeCommand('crewRuns.giveFeedback', { runId });
      const review = api.reviews.openReviewOf(runId);
      assert.ok(review, 'the review is open');
      const approved = executeCommand<boolean>('crewRuns.approveRun', { runId });
      await waitForQuickInput(/Approve and Continue/);
      await typeInQuickInput('Fine as it is', { when: /Approve and Continue/, enter: true });
      assert.strictEqual(await approved, true, 'the approval went out');
      await waitFor(() => review.thread.state === vscode.CommentThreadState.Resolved, { message: 'the thread resolved', timeoutMs: 20_000 });
      assert.strictEqual(review.thread.canReply, false, 'no reply box on an answered round');
      assert.strictEqual(review.thread.collapsibleState, vscode.CommentThreadCollapsibleState.Collapsed);
      const last = review.thread.comments[review.thread.comments.length - 1];
      const body = typeof last.body === 'string' ? last.body : last.body.value;
      assert.match(body, /Approved/);
      assert.strictEqual(api.reviews.openReviewOf(runId), undefined, 'no open review left for the run');
    });
  });
});
