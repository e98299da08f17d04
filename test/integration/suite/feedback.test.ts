// Human feedback in a real VS Code against the simulator's human-input crew, in both dialects: the run
// waits for review (tree, status bar, notification), Give Feedback opens the review with its thread,
// approving or requesting changes resumes it, the task id is asked for when hidden and remembered,
// errors keep the draft, and the live service's NOT FOUND while paused reads as "needs feedback".
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { CrewConfig, Dialect, Simulator } from '../../../src/simulator/server';
import { demoCrews, startSimulator } from '../../../src/simulator/server';
import type { ReviewThread } from '../../../src/feedback/feedbackReview';
import { executeCommand, showCrewRunsView, ui, waitFor } from '../helpers';
import { answerModal, quickInputText, typeInQuickInput, waitForQuickInput } from './support/kit';
import {
  type Api,
  MessageSpy,
  addSimulatorCrews,
  cleanUp,
  iconId,
  kickOff,
  runItem,
  testApi,
  waitForNotification,
  waitForRun,
  waitForStatusBar,
} from './support/monitoring';

/** The demo's human-input crew (draft → review_task, which waits for a human → publish) under another id. */
function reviewCrew(id: string, name: string, patch: Partial<CrewConfig> = {}): CrewConfig {
  const crew = demoCrews().find((c) => c.id === 'review-crew');
  assert.ok(crew, 'the simulator has a human-input demo crew');
  return { ...crew, id, name, ...patch };
}

function bodyText(comment: vscode.Comment): string {
  // MarkdownString.appendText keeps spaces as &nbsp;: compare the text as rendered.
  return (typeof comment.body === 'string' ? comment.body : comment.body.value).replace(/&nbsp;/g, ' ');
}

function reviewEditor(runId: string, round: number): vscode.TextEditor | undefined {
  return vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'crew-review' && e.document.uri.path.startsWith(`/${runId}/`) && e.document.uri.path.endsWith(` · review-${round}.md`));
}

async function openReview(api: Api, runId: string, round: number): Promise<ReviewThread> {
  await executeCommand('crewRuns.giveFeedback', { runId });
  const review = api.reviews.openReviewOf(runId);
  assert.ok(review, 'Give Feedback opened a review thread');
  assert.strictEqual(review.round.round, round);
  const editor = await waitFor(() => reviewEditor(runId, round), { message: `the review document of round ${round} visible`, timeoutMs: 20_000 });
  assert.strictEqual(review.thread.uri.toString(), editor.document.uri.toString(), 'the thread is on the review document');
  return review;
}

/**
 * Approves with `text` in the reply box. Typed text asks first what to do with it (it is most often a change
 * request): these tests answer "Approve with Note", which sends it with the approval.
 */
function approveWithNote(thread: vscode.CommentThread, text: string): Promise<boolean> {
  const modal = answerModal('Approve with Note');
  return executeCommand<boolean>('crewRuns.feedback.approve', { thread, text }).finally(() => modal.dispose());
}

/** Waits for the quick input to show `title`, then types `text` and presses Enter. */
async function answerInputBox(title: RegExp, text: string): Promise<void> {
  await waitForQuickInput(title, `an input box titled ${String(title)}`);
  await typeInQuickInput(text, { when: title, enter: true });
}

async function quickInputVisible(): Promise<boolean> {
  return (await quickInputText()) !== undefined;
}

for (const dialect of ['live', 'docs'] as Dialect[]) {
  describe(`Feedback (${dialect} dialect)`, function () {
    this.timeout(180_000);
    let api: Api;
    let sim: Simulator;
    let crews: Record<string, { url: string; name: string }>;
    let spy: MessageSpy;
    const runIds = new Set<string>();

    before(async () => {
      api = await testApi();
      spy = new MessageSpy();
      sim = await startSimulator({
        timeScale: 0.2,
        dialect,
        crews: [reviewCrew('review', 'Review'), reviewCrew('hidden', 'Hidden Task', { exposeTaskId: false }), reviewCrew('lagging', 'Lagging', { resumeLagMs: 4000 })],
      });
      crews = await addSimulatorCrews(api, sim, `Fb ${dialect}`);
      await showCrewRunsView();
    });

    afterEach(async () => {
      await executeCommand('notifications.clearAll');
    });

    after(async () => {
      spy?.dispose();
      await cleanUp(api, runIds);
      await executeCommand('workbench.action.closeAllEditors');
      await sim?.close();
    });

    async function startAndWaitForFeedback(crewId: string, topic: string): Promise<string> {
      const runId = await kickOff(crews[crewId].url, { topic });
      runIds.add(runId);
      await waitForRun(api, runId, (r) => r.needsFeedback, `${topic} waiting for feedback`);
      return runId;
    }

    function simResumes(kickoffId: string) {
      const original = sim.getRun(kickoffId)?.id;
      assert.ok(original, 'the simulator knows the run');
      return sim.resumes.filter((r) => r.runId === original);
    }

    it('waits for feedback, opens the review, and an approval lets the run succeed', async () => {
      const topic = `Approve ${dialect}`;
      const runId = await startAndWaitForFeedback('review', topic);
      const waiting = api.runs.get(runId)!;
      const originalKickoffId = waiting.kickoffId;
      assert.strictEqual(waiting.state, 'awaitingFeedback');
      assert.strictEqual(waiting.feedbackInferred, undefined, 'reported by the service, not inferred');
      const item = await runItem(api, runId);
      assert.strictEqual(item.contextValue, 'run state-awaitingFeedback watching needsFeedback');
      assert.strictEqual(iconId(item), 'bell-dot');
      // Waiting, the row says so alone: its progress (2/3) would take the room of its name at the default width (#52).
      // Its time follows only where the whole name fits with it, two action icons showing (#52: nothing cut).
      assert.match(String(item.description), /^needs feedback( · (<1m|\d+m))?$/);
      const bar = await waitForStatusBar((t) => /(^|\s)1 needs feedback\b/.test(t), 'the status bar counting one run that needs feedback');
      assert.doesNotMatch(bar, /running/);
      await waitForNotification(`${topic} on ${crews.review.name} is waiting for your feedback.`);
      assert.deepStrictEqual(
        spy.matching(new RegExp(`^${topic} on .* waiting`)).map((m) => [m.level, m.items]),
        [['warning', ['Give Feedback', 'Open Run']]],
      );

      const review = await openReview(api, runId, 1);
      const text = reviewEditor(runId, 1)!.document.getText();
      assert.match(text, /^# review_task\n/);
      assert.ok(text.includes(`Meet **${topic}**: simpler, faster everyday work.`), text);
      const { thread } = review;
      assert.strictEqual(thread.comments.length, 1);
      assert.ok(bodyText(thread.comments[0]).includes(`is waiting for your review of **review\\_task**`), bodyText(thread.comments[0]));
      assert.strictEqual(thread.label, 'Review: review_task');
      assert.strictEqual(thread.contextValue, 'crewRunsReview');
      assert.strictEqual(thread.canReply, true);
      assert.strictEqual(thread.state, undefined);

      if (dialect === 'live' && ui.available()) {
        await waitFor(async () => (await ui.text('.part.editor')).includes('is waiting for your review'), {
          message: 'the thread drawn in the editor',
          timeoutMs: 20_000,
          intervalMs: 300,
        });
        // Approve is in the thread's title bar, shown before the reply box is ever focused.
        await ui.text('.part.editor .review-widget .head [aria-label*="Approve and Continue"]', { timeoutMs: 10_000 });
        const shot = await ui.screenshot('feedback-thread', { selector: '.part.editor' });
        console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height})`);
        assert.ok(shot.distinctColours > 2, 'the screenshot is not blank');
      }

      const pausedTaskId = sim.getRun(originalKickoffId)!.pausedTaskId;
      assert.ok(pausedTaskId, 'the simulator run is paused');
      const sent = await approveWithNote(thread, 'looks good');
      assert.strictEqual(sent, true);
      assert.strictEqual(thread.state, vscode.CommentThreadState.Resolved);
      assert.strictEqual(thread.canReply, false);
      assert.strictEqual(thread.contextValue, 'crewRunsReviewSent');
      assert.strictEqual(thread.label, 'Answered: review_task', 'an answered review says so');
      assert.strictEqual(thread.comments.length, 2);
      assert.strictEqual(thread.comments[1].author.name, 'You');
      assert.strictEqual(bodyText(thread.comments[1]), '**Approved**\n\nlooks good');
      assert.strictEqual(api.reviews.openReviewOf(runId), undefined, 'no open round left');

      const resumes = simResumes(originalKickoffId);
      if (dialect === 'live') {
        assert.deepStrictEqual(resumes.map((r) => [r.style, r.status]), [['snake', 422], ['camel', 200]]);
        assert.deepStrictEqual(resumes[1].body, { executionId: originalKickoffId, taskId: pausedTaskId, humanFeedback: 'looks good', isApprove: true });
        const continued = api.runs.get(runId)!;
        assert.deepStrictEqual(continued.previousKickoffIds, [originalKickoffId]);
        assert.strictEqual(continued.kickoffId, resumes[1].newKickoffId);
      } else {
        assert.deepStrictEqual(resumes.map((r) => [r.style, r.status, r.action]), [['snake', 200, 'approve']]);
        assert.deepStrictEqual(resumes[0].body, { execution_id: originalKickoffId, task_id: pausedTaskId, human_feedback: 'looks good', is_approve: true });
        assert.deepStrictEqual(api.runs.get(runId)!.previousKickoffIds, []);
      }

      const done = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the approved run succeeded');
      assert.strictEqual(done.needsFeedback, false);
      const details = await api.runs.readDetails(runId);
      assert.strictEqual(details.feedbackRounds.length, 1);
      const [round] = details.feedbackRounds;
      assert.deepStrictEqual([round.approve, round.feedback, round.taskId], [true, 'looks good', pausedTaskId]);
      assert.ok(round.output?.includes(`Meet **${topic}**`), 'the round keeps the reviewed output');
      assert.deepStrictEqual(details.tasks.map((t) => t.name), ['draft_task', 'review_task', 'publish_task']);
      assert.strictEqual(sim.getRun(originalKickoffId)!.phase, 'succeeded');
      await waitForStatusBar((t) => !/needs feedback|running/.test(t), 'the status bar item hidden once the run ended');
    });

    it('with text typed in the reply box, Ctrl+Enter requests changes with it; Approve asks what to do with the text', async function () {
      if (dialect !== 'live' || !ui.available()) {
        this.skip(); // Typed into the drawn reply box (the dialects differ only in the request, tested above).
      }
      const runId = await startAndWaitForFeedback('review', `Typed ${dialect}`);
      const kickoffId = api.runs.get(runId)!.kickoffId;
      const accepted = () => simResumes(kickoffId).filter((r) => r.status === 200);
      await openReview(api, runId, 1);
      await executeCommand('workbench.action.closePanel'); // Room for the reply box and its buttons in the picture.
      // Into the reply box as a user clicks, a change request typed, and VS Code's "submit comment" key.
      await ui.click('.part.editor .review-widget .review-thread-reply-button, .part.editor .review-widget .comment-form .monaco-editor', { timeoutMs: 20_000 });
      await ui.type('Make it shorter');
      // With text in the box the primary button is Request Changes (Ctrl+Enter presses the primary button).
      // The thread's actions, first (the primary button, blue) first: Request Changes once text is typed.
      await waitFor(async () => /^\s*Request Changes\s+Approve and Continue\s*$/.test(await ui.text('.part.editor .review-widget .form-actions .other-actions')) || undefined, {
        message: 'Request Changes first (primary) once text is typed',
        timeoutMs: 10_000,
      });
      const shot = await ui.screenshot('feedback-reply-typed', { selector: '.part.editor' });
      console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height})`);
      await ui.press('Control+Enter');
      await waitFor(() => (accepted().length > 0 ? true : undefined), { message: 'the reply sent', timeoutMs: 30_000 });
      assert.deepStrictEqual(
        accepted().map((r) => [r.action, (r.body as { humanFeedback?: string }).humanFeedback, (r.body as { isApprove?: boolean }).isApprove]),
        [['retry', 'Make it shorter', false]],
        'the typed words went as a change request, not with an approval',
      );

      // The key's send is not awaited here: first its round is recorded, then the redone task waits again.
      await waitFor(async () => ((await api.runs.readDetails(runId)).feedbackRounds.length === 1 ? true : undefined), { message: 'the change request recorded', timeoutMs: 30_000 });
      await waitForRun(api, runId, (r) => r.needsFeedback && r.state === 'awaitingFeedback', 'the redone task waiting again');
      const second = await openReview(api, runId, 2);
      const kept = answerModal(undefined);
      try {
        assert.strictEqual(await executeCommand<boolean>('crewRuns.feedback.approve', { thread: second.thread, text: 'Still too long' }), false);
      } finally {
        kept.dispose();
      }
      assert.deepStrictEqual(kept.calls.map((c) => [c.message, c.items]), [[`Approve "Typed ${dialect}" with the text you typed?`, ['Request Changes', 'Approve with Note', 'Approve, Discard Text']]]);
      assert.strictEqual(accepted().length, 1, 'nothing sent without an answer');
      const discard = answerModal('Approve, Discard Text');
      try {
        assert.strictEqual(await executeCommand<boolean>('crewRuns.feedback.approve', { thread: second.thread, text: 'Still too long' }), true);
      } finally {
        discard.dispose();
      }
      const approval = accepted().at(-1)?.body as { humanFeedback?: string; isApprove?: boolean } | undefined;
      assert.deepStrictEqual([accepted().length, approval?.humanFeedback, approval?.isApprove], [2, '', true], 'approved, the typed text discarded');
      await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the approved run succeeded');
    });

    it('a status that still says PAUSED for a while after the approval brings back no wait and no second notice', async () => {
      const topic = `Lag ${dialect}`;
      const runId = await startAndWaitForFeedback('lagging', topic);
      const waitingNotice = new RegExp(`^${topic} on .* is waiting for your feedback\\.$`);
      await waitFor(() => spy.matching(waitingNotice).length === 1, { message: 'the first "waiting" notice', timeoutMs: 20_000 });
      let approved = false;
      let waitedAgain = false;
      const watch = api.runs.onDidChange(() => (waitedAgain ||= approved && api.runs.get(runId)?.needsFeedback === true));
      try {
        const review = await openReview(api, runId, 1);
        assert.strictEqual(await approveWithNote(review.thread, 'ship it'), true);
        approved = true;
        await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the approved run succeeded');
      } finally {
        watch.dispose();
      }
      assert.strictEqual(waitedAgain, false, 'never waiting again once the feedback was taken');
      assert.strictEqual(spy.matching(waitingNotice).length, 1, 'one "waiting" notice for one round');
      const details = await api.runs.readDetails(runId);
      assert.strictEqual(details.feedbackRounds.length, 1);
    });

    it('Request Changes clicked twice sends one answer, and leaves no draft behind to be sent later', async () => {
      const runId = await startAndWaitForFeedback('review', `Twice ${dialect}`);
      const kickoffId = api.runs.get(runId)!.kickoffId;
      const review = await openReview(api, runId, 1);
      const clicks = await Promise.all([
        executeCommand<boolean>('crewRuns.feedback.requestChanges', { thread: review.thread, text: 'Only once' }),
        executeCommand<boolean>('crewRuns.feedback.requestChanges', { thread: review.thread, text: 'Only once' }),
      ]);
      assert.deepStrictEqual([...clicks].sort(), [false, true], 'one click sends, the other does nothing');
      // The live service's first try is the documented snake_case body (422), then camelCase: one answer either way.
      const taken = simResumes(kickoffId).filter((r) => r.status !== 422);
      assert.deepStrictEqual(taken.map((r) => [r.status, r.action]), [[200, 'retry']], 'one /resume reached the crew');
      assert.strictEqual((await api.runs.readDetails(runId)).feedbackDraft, undefined, 'no draft kept by the click that did nothing');
      await waitForRun(api, runId, (r) => r.needsFeedback && r.kickoffId !== undefined, 'the redone task waits again');
    });

    it('request changes, then approve: the task is redone and reviewed in a second round', async () => {
      const topic = `Revise ${dialect}`;
      const runId = await startAndWaitForFeedback('review', topic);
      const originalKickoffId = api.runs.get(runId)!.kickoffId;
      const first = await openReview(api, runId, 1);
      assert.strictEqual(await executeCommand<boolean>('crewRuns.feedback.requestChanges', { thread: first.thread, text: 'Make it shorter' }), true);
      assert.strictEqual(bodyText(first.thread.comments[1]), '**Requested changes**\n\nMake it shorter');
      assert.strictEqual(first.thread.state, vscode.CommentThreadState.Resolved);

      // The crew redoes the task with the feedback and waits again.
      await waitFor(
        async () => {
          const run = api.runs.get(runId);
          const details = await api.runs.readDetails(runId);
          return run?.needsFeedback && details.lastSnapshot?.feedback?.output?.includes('Revised after feedback: Make it shorter');
        },
        { message: 'the revised task waiting for review', timeoutMs: 60_000, intervalMs: 300 },
      );
      const simRun = sim.getRun(originalKickoffId)!;
      assert.deepStrictEqual(simRun.completedTasks.find((t) => t.name === 'review_task')?.feedback, ['Make it shorter']);
      await waitFor(() => spy.matching(new RegExp(`^${topic} on .* is waiting for your feedback\\.$`)).length === 2, {
        message: `a second "waiting for your feedback" notification (got ${JSON.stringify(spy.matching(new RegExp(topic)).map((m) => m.message))})`,
        timeoutMs: 20_000,
      });

      const second = await openReview(api, runId, 2);
      assert.notStrictEqual(second, first);
      const text = reviewEditor(runId, 2)!.document.getText();
      assert.ok(text.includes('Revised after feedback: Make it shorter'), text);
      assert.strictEqual(second.thread.comments.length, 1);
      assert.strictEqual(await approveWithNote(second.thread, 'better'), true);
      assert.strictEqual(bodyText(second.thread.comments[1]), '**Approved**\n\nbetter');

      const done = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the revised run succeeded');
      const details = await api.runs.readDetails(runId);
      assert.deepStrictEqual(
        details.feedbackRounds.map((r) => [r.approve, r.feedback]),
        [
          [false, 'Make it shorter'],
          [true, 'better'],
        ],
      );
      assert.ok(details.feedbackRounds[1].output?.includes('Revised after feedback: Make it shorter'), 'round 2 reviewed the revised output');
      assert.ok(!details.feedbackRounds[0].output?.includes('Revised after feedback'), 'round 1 reviewed the first output');
      const styles = simResumes(originalKickoffId).map((r) => [r.style, r.status]);
      if (dialect === 'live') {
        assert.deepStrictEqual(styles, [['snake', 422], ['camel', 200], ['snake', 422], ['camel', 200]]);
        assert.strictEqual(done.previousKickoffIds.length, 2);
        assert.strictEqual(done.previousKickoffIds[0], originalKickoffId);
      } else {
        assert.deepStrictEqual(styles, [['snake', 200], ['snake', 200]]);
        assert.deepStrictEqual(done.previousKickoffIds, []);
      }
    });

    it('Give Feedback from a run view beside an editor keeps two editor groups: the review goes next to the run view', async () => {
      await executeCommand('workbench.action.closeAllEditors');
      const runId = await startAndWaitForFeedback('review', `Layout ${dialect}`);
      // An editor on the left, the run view on the right (where Open Run put it), as a user has them.
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ content: 'notes' }), vscode.ViewColumn.One);
      await executeCommand('crewRuns.openRun', { runId });
      await executeCommand('workbench.action.moveEditorToNextGroup');
      await waitFor(() => vscode.window.tabGroups.all.length === 2 && vscode.window.tabGroups.activeTabGroup.viewColumn === vscode.ViewColumn.Two, { message: 'the run view alone in the second group' });
      const review = await openReview(api, runId, 1);
      const groups = vscode.window.tabGroups.all;
      assert.strictEqual(groups.length, 2, `two editor groups, not three: ${groups.map((g) => g.tabs.map((t) => t.label).join(', ')).join(' | ')}`);
      assert.strictEqual(reviewEditor(runId, 1)?.viewColumn, vscode.ViewColumn.One, 'the review goes to the other group');
      const runView = groups.find((g) => g.viewColumn === vscode.ViewColumn.Two)?.activeTab;
      assert.ok(runView?.input instanceof vscode.TabInputWebview, `the run view still shows on the right (${runView?.label})`);
      assert.strictEqual(await executeCommand<boolean>('crewRuns.feedback.approve', { thread: review.thread, text: '' }), true);
      await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the run approved from its review');
      await executeCommand('workbench.action.closeAllEditors');
    });

    it('asks for the task id when the crew does not reveal it, and remembers it', async function () {
      if (!ui.available()) {
        this.skip();
      }
      const topic = `Hidden ${dialect}`;
      const runId = await startAndWaitForFeedback('hidden', topic);
      const run = api.runs.get(runId)!;
      assert.strictEqual(run.taskId, undefined, 'the status did not reveal the task id');
      const taskId = sim.getRun(run.kickoffId)!.pausedTaskId!;
      const first = await openReview(api, runId, 1);
      const sending = executeCommand<boolean>('crewRuns.feedback.requestChanges', { thread: first.thread, text: 'Add a date' });
      await answerInputBox(/Task ID for Hidden/, taskId);
      assert.strictEqual(await sending, true);
      assert.strictEqual(api.runs.get(runId)!.taskId, taskId, 'the typed task id is remembered');

      await waitForRun(api, runId, (r) => r.needsFeedback && r.state === 'awaitingFeedback', 'the retried task waiting again');
      const second = await openReview(api, runId, 2);
      let settled = false;
      const approving = approveWithNote(second.thread, 'ok now').finally(() => (settled = true));
      // Not asked again: the command finishes without an input box.
      await waitFor(async () => settled || ((await quickInputVisible()) ? Promise.reject(new Error('asked for the task id again')) : false), {
        message: 'the approval sent without asking again',
        timeoutMs: 30_000,
        intervalMs: 300,
      }).catch(async (error) => {
        await executeCommand('workbench.action.closeQuickOpen');
        throw error;
      });
      assert.strictEqual(await approving, true);
      await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the hidden-task run succeeded');
      const accepted = simResumes(run.kickoffId).filter((r) => r.status === 200);
      assert.deepStrictEqual(
        accepted.map((r) => (r.body as Record<string, unknown>)[dialect === 'live' ? 'taskId' : 'task_id']),
        [taskId, taskId],
      );
    });
  });
}

describe('Feedback (errors and the NOT FOUND pause)', function () {
  this.timeout(180_000);
  let api: Api;
  let spy: MessageSpy;
  const runIds = new Set<string>();
  const sims: Simulator[] = [];

  before(async () => {
    api = await testApi();
    spy = new MessageSpy();
  });

  afterEach(async () => {
    await executeCommand('notifications.clearAll');
    // Each test has its own run: none may still count in the status bar for the next one.
    await cleanUp(api, runIds);
    runIds.clear();
  });

  after(async () => {
    spy?.dispose();
    await executeCommand('workbench.action.closeAllEditors');
    for (const sim of sims) {
      await sim.close();
    }
  });

  it('keeps the draft and says so when the feedback cannot be sent', async function () {
    if (!ui.available()) {
      this.skip();
    }
    const sim = await startSimulator({ timeScale: 0.2, dialect: 'live', crews: [reviewCrew('review', 'Review')] });
    sims.push(sim);
    const crews = await addSimulatorCrews(api, sim, 'Fb gone');
    const runId = await kickOff(crews.review.url, { topic: 'Unsent' });
    runIds.add(runId);
    await waitForRun(api, runId, (r) => r.needsFeedback, 'the run waiting for feedback');
    await executeCommand('crewRuns.giveFeedback', { runId });
    const review = api.reviews.openReviewOf(runId)!;
    assert.ok(review, 'a review is open');
    await sim.close(); // The crew is unreachable from now on.

    let result: boolean | undefined;
    const sending = approveWithNote(review.thread, 'keep this text').then((r) => (result = r));
    const draft = await waitFor(() => review.thread.comments.find((c) => c.contextValue === 'draft'), { message: 'a draft comment in the thread', timeoutMs: 60_000 });
    assert.strictEqual(draft.author.name, 'Draft');
    assert.strictEqual(draft.label, 'draft');
    // Markdown source: the one escaper escapes ':' (no autolinks), which renders as a plain colon.
    assert.match(bodyText(draft), /^\*Not sent\\?: network\*\n\nkeep this text$/);
    assert.strictEqual(review.draft, 'keep this text');
    assert.strictEqual(review.sent, false);
    assert.strictEqual(review.thread.canReply, true, 'the thread still takes a reply');
    assert.strictEqual(api.reviews.openReviewOf(runId), review, 'the round stays open');
    // A refused connection sent nothing: "not sent", with Retry. A connection the crew cut while it was in use (the
    // keep-alive socket of a closed server) may have delivered it: "cannot tell", with no Retry that could resume the
    // run twice. Which one happens depends on whether the client noticed the closed socket first; either way once.
    const center = await waitForNotification(/Your feedback was not sent and is kept\.|cannot tell whether your feedback reached/);
    assert.match(center, /Unsent|Fb gone Review/);
    const said = spy.matching(/Your feedback was not sent and is kept\.$|cannot tell whether your feedback reached/);
    assert.strictEqual(said.length, 1, JSON.stringify(said.map((m) => m.message)));
    assert.deepStrictEqual(said[0].items, /not sent and is kept/.test(said[0].message) ? ['Retry'] : []);

    await executeCommand('notifications.clearAll'); // Dismissing the error ends the command.
    await sending;
    assert.strictEqual(result, false);
    const run = api.runs.get(runId)!;
    assert.strictEqual(run.needsFeedback, true, 'still waiting for feedback');
    assert.strictEqual((await api.runs.readDetails(runId)).feedbackRounds.length, 0, 'no round recorded');
  });

  it('shows a running run that turns NOT FOUND (the live pause) as needing feedback, and resumes it', async function () {
    if (!ui.available()) {
      this.skip();
    }
    // Slow tasks, so the run is seen running, and the draft seen done, before it pauses.
    const crew = reviewCrew('review', 'Review');
    crew.tasks[0].durationMs = 40_000;
    crew.tasks[1].durationMs = 40_000;
    const sim = await startSimulator({ timeScale: 0.2, dialect: 'live', livePausedState: 'NOT FOUND', crews: [crew] });
    sims.push(sim);
    const crews = await addSimulatorCrews(api, sim, 'Fb nf');
    const runId = await kickOff(crews.review.url, { topic: 'Quiet pause' });
    runIds.add(runId);
    await waitForRun(api, runId, (r) => r.state === 'running', 'the run seen running');
    const run = await waitForRun(api, runId, (r) => r.needsFeedback, 'the NOT FOUND run shown as needing feedback');
    assert.strictEqual(sim.getRun(run.kickoffId)!.phase, 'paused');
    assert.strictEqual(run.state, 'awaitingFeedback');
    assert.strictEqual(run.feedbackInferred, true);
    assert.strictEqual(run.watching, true);
    assert.strictEqual(run.message, 'The service no longer lists this run; it is probably waiting for human feedback.');
    const item = await runItem(api, runId);
    assert.strictEqual(item.contextValue, 'run state-awaitingFeedback watching needsFeedback');
    assert.strictEqual(iconId(item), 'bell-dot');
    await waitForStatusBar((t) => /(^|\s)1 needs feedback\b/.test(t), 'the status bar counting the run');
    await waitForNotification('Quiet pause on Fb nf Review is waiting for your feedback.');

    await executeCommand('crewRuns.giveFeedback', { runId });
    const review = api.reviews.openReviewOf(runId)!;
    assert.ok(review, 'a review is open');
    // The NOT FOUND body carries nothing: the last output seen is offered.
    assert.strictEqual(review.round.taskName, 'draft_task');
    assert.ok(review.round.output.includes('We are excited to share **Quiet pause**'), review.round.output);

    const taskId = sim.getRun(run.kickoffId)!.pausedTaskId!;
    const sending = approveWithNote(review.thread, 'fine');
    await answerInputBox(/Task ID for Quiet pause/, taskId);
    assert.strictEqual(await sending, true);
    const done = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the run succeeded after the approval');
    assert.strictEqual(done.taskId, taskId);
    assert.strictEqual(done.previousKickoffIds.length, 1);
    assert.deepStrictEqual(sim.resumes.map((r) => [r.style, r.status]), [['snake', 422], ['camel', 200]]);
  });
});
