import * as vscode from 'vscode';
import { classifySendFailure } from '../runTracking/sendOnce';
import { CrewApiError } from '../api/errors';
import { isFinished, type RunRecord } from '../runTracking/model';
import type { Services } from '../services';
import { describeError } from '../ui/errorMessages';
import { type FeedbackReviews, type ReviewRound, type ReviewThread } from './feedbackReview';
import type { RunPanelManager } from '../runView/runPanel';
import { setTokenInteractively } from '../crews/crewCommands';
import { distinctRunLabel } from '../sidebar/runRows';
import { pickRun, runFromArgument } from '../runs/pickRun';
import { draftOfRound, forgetUncertainAnswer, isAnswerAlreadyGiven, isAnswerUncertain, roundOf, sendResume } from '../runTracking/sendResume';
import { showError, showInfo, showStatusMessage, showWarning } from '../ui/notify';
import { inertLine } from '../util/inertText';
import { errorText } from '../util/errorText';

const waiting = (run: RunRecord) => run.needsFeedback;

/** The run named, else the one waiting for feedback (no question when only one waits: the box that follows names it). */
function waitingRun(services: Services, arg: unknown, placeholder: string): Promise<RunRecord | undefined> {
  const runId = (arg as { runId?: unknown } | undefined)?.runId;
  return typeof runId === 'string' ? runFromArgument(services, arg, placeholder, waiting) : pickRun(services.runs, placeholder, { filter: waiting, skipWhenOne: true });
}

export function registerFeedbackCommands(services: Services, reviews: FeedbackReviews, panels: RunPanelManager): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('crewRuns.giveFeedback', async (arg?: unknown) => {
      // One run waiting: no question to ask (the review itself is the confirmation).
      const runId = (arg as { runId?: unknown } | undefined)?.runId;
      const run = typeof runId === 'string' ? services.runs.get(runId) : await pickRun(services.runs, vscode.l10n.t('Give feedback to which run?'), { filter: waiting, skipWhenOne: true });
      return run ? openReview(services, reviews, run, panels) : undefined;
    }),
    // A round answered anywhere (the palette, the chat, another window) or a run that ended is resolved in its review.
    services.runs.onDidChange(({ runIds }) => {
      for (const runId of runIds) {
        const review = reviews.openReviewOf(runId);
        if (review) {
          void resolveIfAnswered(services, reviews, review);
        }
      }
    }),
    vscode.commands.registerCommand('crewRuns.feedback.approve', (reply: vscode.CommentReply | vscode.CommentThread) => sendFromThread(services, reviews, reply, true)),
    vscode.commands.registerCommand('crewRuns.feedback.requestChanges', (reply: vscode.CommentReply | vscode.CommentThread) => sendFromThread(services, reviews, reply, false)),
    vscode.commands.registerCommand('crewRuns.approveRun', async (arg?: unknown) => {
      const run = await waitingRun(services, arg, vscode.l10n.t('Approve which run?'));
      if (!run) {
        return false;
      }
      const asked = await roundAndDraft(services, run);
      const feedback = await vscode.window.showInputBox({
        title: inertLine(vscode.l10n.t('Approve and Continue: {0}', run.label)),
        prompt: vscode.l10n.t('Optional feedback for the crew, sent with the approval.'),
        value: asked.draft,
        ignoreFocusOut: true,
      });
      return feedback === undefined ? false : send(services, run, asked.round, true, feedback);
    }),
    vscode.commands.registerCommand('crewRuns.requestChanges', async (arg?: unknown) => {
      const run = await waitingRun(services, arg, vscode.l10n.t('Request changes to which run?'));
      if (!run) {
        return false;
      }
      const asked = await roundAndDraft(services, run);
      const feedback = await vscode.window.showInputBox({
        title: inertLine(vscode.l10n.t('Request Changes: {0}', run.label)),
        prompt: vscode.l10n.t('What should the task do differently? The crew redoes it with this feedback.'),
        value: asked.draft,
        ignoreFocusOut: true,
        validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('Say what should change.')),
      });
      return feedback === undefined ? false : send(services, run, asked.round, false, feedback.trim());
    }),
  ];
}

/** Opens the output to review in a read-only document with a comment thread for the feedback. */
/** An editor group other than `column` (the first one), or a new one beside. */
function otherGroup(column: vscode.ViewColumn): vscode.ViewColumn {
  return vscode.window.tabGroups.all.find((group) => group.viewColumn !== column)?.viewColumn ?? vscode.ViewColumn.Beside;
}

async function openReview(services: Services, reviews: FeedbackReviews, run: RunRecord, panels: RunPanelManager): Promise<ReviewThread | undefined> {
  if (!run.needsFeedback) {
    void showInfo(vscode.l10n.t('{0} is not waiting for feedback.', run.label));
    return undefined;
  }
  const details = await services.runs.readDetails(run.id);
  const request = details.lastSnapshot?.feedback;
  const lastTask = details.tasks[details.tasks.length - 1];
  const round: ReviewRound = {
    runId: run.id,
    round: roundOf(details),
    crewName: run.crewName,
    // As the tree names it: a second run of the same inputs is "#2" in the review's tab and text too.
    runLabel: distinctRunLabel(run, services.runs.list(run.crewUrl)),
    // Docs bodies name the paused task only in current_task.
    taskName: request?.taskName ?? (run.feedbackInferred ? undefined : details.lastSnapshot?.currentTask) ?? lastTask?.name,
    output:
      request?.output ??
      lastTask?.output ??
      vscode.l10n.t('(The crew did not send the output to review. Open the run to see what it has produced so far.)'),
    // The live service hides a paused run entirely: what we show is the last output it did reveal.
    note: run.feedbackInferred
      ? vscode.l10n.t('The crew stopped reporting this run, which is how it shows a task waiting for review. It did not send the waiting task\'s output; below is the last output it did send. The crew\'s dashboard shows the task itself.')
      : undefined,
  };
  // The review document is Markdown source (VS Code's preview would render a crew's raw HTML): the run
  // view beside it shows the same output rendered safely, and the review keeps the focus for typing.
  // Two groups, never three: a run view already showing stays where it is, and the review goes next to it.
  const viewColumn = panels.visibleColumn(run.id);
  const reviewColumn = viewColumn === undefined ? vscode.ViewColumn.Active : otherGroup(viewColumn);
  const review = await reviews.open(run, round, reviewColumn);
  if (viewColumn === undefined) {
    panels.open(run.id, vscode.ViewColumn.Beside, true);
  }
  // Feedback that failed to go out in this round (maybe before a reload) is shown again, not lost.
  const draft = draftOfRound(details);
  if (draft && !review.draft && !review.sent) {
    reviews.keepDraft(review, draft.text, draft.problem ?? vscode.l10n.t('error'));
  }
  return review;
}

async function resolveIfAnswered(services: Services, reviews: FeedbackReviews, review: ReviewThread): Promise<void> {
  const run = services.runs.get(review.round.runId);
  if (!run) {
    reviews.markNoLongerWaiting(review);
    return;
  }
  const details = await services.runs.readDetails(run.id).catch(() => undefined);
  const answer = details?.feedbackRounds[review.round.round - 1];
  if (answer) {
    reviews.markSent(review, answer.approve, answer.feedback);
  } else if (isFinished(run)) {
    reviews.markNoLongerWaiting(review);
  }
}

/** The round the user is asked to answer, and text typed for it that could not be sent, to start the input box from. */
async function roundAndDraft(services: Services, run: RunRecord): Promise<{ round: number; draft?: string }> {
  const details = await services.runs.readDetails(run.id);
  return { round: roundOf(details), draft: draftOfRound(details)?.text };
}

/** From the reply box's buttons a reply (thread and text); from the thread's title bar (always shown) the thread alone. */
async function sendFromThread(services: Services, reviews: FeedbackReviews, arg: vscode.CommentReply | vscode.CommentThread, approve: boolean): Promise<boolean> {
  const reply = 'thread' in arg ? arg : { thread: arg, text: '' };
  const review = reviews.reviewOf(reply.thread);
  const run = review && services.runs.get(review.round.runId);
  if (!review || !run) {
    void showError(vscode.l10n.t('This review belongs to a run that is no longer in the history.'));
    return false;
  }
  if (review.sent) {
    void showInfo(vscode.l10n.t('This round was already answered.'));
    return false;
  }
  const typed = reply.text.trim();
  if (approve && typed) {
    // Typed words are most often a change request: Approve (a click on the second button) must not lose them unasked.
    const choice = await askApproveWithText(run);
    if (choice === undefined) {
      return false; // The text stays in the box.
    }
    if (choice === 'requestChanges') {
      return send(services, run, review.round.round, false, typed, review, reviews);
    }
    return send(services, run, review.round.round, true, choice === 'note' ? typed : '', review, reviews);
  }
  const feedback = (typed || review.draft || '').trim();
  if (!approve && !feedback) {
    void showWarning(vscode.l10n.t('Write in the reply box what should change, then choose Request Changes.'));
    return false;
  }
  return send(services, run, review.round.round, approve, feedback, review, reviews);
}

async function askApproveWithText(run: RunRecord): Promise<'requestChanges' | 'note' | 'discard' | undefined> {
  const requestChanges = vscode.l10n.t('Request Changes');
  const note = vscode.l10n.t('Approve with Note');
  const discard = vscode.l10n.t('Approve, Discard Text');
  const answer = await showWarning(
    vscode.l10n.t('Approve "{0}" with the text you typed?', run.label),
    {
      modal: true,
      detail: vscode.l10n.t('Approving lets the run go on: the task is not redone. Request Changes sends your text for the crew to redo the task; Approve with Note sends it with the approval; Approve, Discard Text sends none of it.'),
    },
    requestChanges,
    note,
    discard,
  );
  return answer === requestChanges ? 'requestChanges' : answer === note ? 'note' : answer === discard ? 'discard' : undefined;
}

/** POST /resume with everything the notes ask for; errors keep the reviewer's text. */
async function send(services: Services, run: RunRecord, round: number, approve: boolean, feedback: string, review?: ReviewThread, reviews?: FeedbackReviews): Promise<boolean> {
  const details = await services.runs.readDetails(run.id);
  const taskId = run.taskId ?? details.lastSnapshot?.feedback?.taskId ?? (await askTaskId(services, run));
  if (!taskId) {
    if (review) {
      reviews?.keepDraft(review, feedback, vscode.l10n.t('no task ID'));
    }
    return false;
  }
  const output = review?.round.output ?? details.lastSnapshot?.feedback?.output;
  try {
    const { notSaved } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: inertLine(approve ? vscode.l10n.t('Approving {0}…', run.label) : vscode.l10n.t('Sending feedback on {0}…', run.label)) },
      () => sendResume(services, run, { approve, feedback, taskId, output, round }),
    );
    if (notSaved) {
      void showWarning(
        vscode.l10n.t('Your feedback on {0} was sent, but Crew Runs could not save it to the run history ({1}). This window keeps it; it is not sent again.', run.label, notSaved),
      );
    }
    if (review && reviews) {
      reviews.markSent(review, approve, feedback);
    }
    showStatusMessage(approve ? vscode.l10n.t('Approved: {0} goes on', run.label) : vscode.l10n.t('Changes requested: the crew redoes the task of {0}', run.label), 5000);
    return true;
  } catch (error) {
    if (isAnswerAlreadyGiven(error)) {
      // The other answer is the one that counts: this one keeps no draft (it would be sent again later).
      showStatusMessage(vscode.l10n.t('Your answer on {0} is already on its way.', run.label), 5000);
      return false;
    }
    if (isAnswerUncertain(error)) {
      return sendAnywayIfAsked(services, run, error.sentAt, () => send(services, services.runs.get(run.id) ?? run, round, approve, feedback, review, reviews));
    }
    services.log.warn(`[${run.crewName} · ${run.label}] Feedback not sent: ${errorText(error)}`);
    const problem = error instanceof CrewApiError ? error.kind : vscode.l10n.t('error');
    if (review) {
      reviews?.keepDraft(review, feedback, problem);
    }
    if (feedback) {
      // Kept with the run, so the text is offered again from any review or input box, also after a reload.
      await services.runs.setFeedbackDraft(run.id, { text: feedback, at: Date.now(), problem, round }).catch((e: unknown) => services.log.warn(`Could not keep the unsent feedback: ${String(e)}`));
    }
    return handleSendError(services, run, round, error, approve, feedback, review, reviews);
  }
}

async function handleSendError(
  services: Services,
  run: RunRecord,
  round: number,
  error: unknown,
  approve: boolean,
  feedback: string,
  review?: ReviewThread,
  reviews?: FeedbackReviews,
): Promise<boolean> {
  const retry = vscode.l10n.t('Retry');
  const resend = () => send(services, services.runs.get(run.id) ?? run, round, approve, feedback, review, reviews);
  if (!(error instanceof CrewApiError)) {
    if ((await showError(describeError(error, run.crewName), retry)) === retry) {
      return resend();
    }
    return false;
  }
  switch (error.kind) {
    case 'badRequest':
      // Typically "not in pending human input state": someone answered already, or the run moved on.
      services.poller.pokeRun(run.id);
      void showWarning(
        vscode.l10n.t('{0} is not waiting for feedback anymore (someone may have answered already). Crew Runs checks its status again; your text is kept in the review.', run.label) +
          (error.serverMessage ? ` (${error.serverMessage})` : ''),
      );
      return false;
    case 'notFound': {
      const enter = vscode.l10n.t('Enter Task ID…');
      const choice = await showError(
        vscode.l10n.t('{0} does not know this run or task (404). If the task ID was typed, check it.', run.crewName),
        enter,
      );
      if (choice === enter && (await askTaskId(services, run, true))) {
        return resend();
      }
      return false;
    }
    case 'noToken':
    case 'unauthorized': {
      const setToken = vscode.l10n.t('Set Token…');
      const crew = services.crews.get(run.crewUrl);
      if ((await showError(describeError(error, run.crewName), setToken)) === setToken && crew && (await setTokenInteractively(services, crew))) {
        return resend();
      }
      return false;
    }
    default:
      if (classifySendFailure(error) === 'mayHaveActed') {
        // The crew may have taken it (a fault, a 5xx, an unreadable reply): a Retry could resume the run twice.
        // The status tells: if the run still waits for feedback, the kept text can be sent again from the review.
        services.poller.pokeRun(run.id);
        void showWarning(
          vscode.l10n.t('{0} Crew Runs cannot tell whether your feedback reached the crew, so it does not send it again; it checks the run\'s status. If {1} still waits for feedback, send it again from the review (your text is kept).', describeError(error, run.crewName), run.label),
        );
        return false;
      }
      if ((await showError(vscode.l10n.t('{0} Your feedback was not sent and is kept.', describeError(error, run.crewName)), retry)) === retry) {
        return resend();
      }
      return false;
  }
}

/**
 * An earlier answer to this round went out and may have reached the crew (its reply was lost, or its window
 * closed mid-send). Nothing goes again unless the user, told so, chooses to; the status check comes first.
 */
async function sendAnywayIfAsked(services: Services, run: RunRecord, sentAt: number, sendAgain: () => Promise<boolean>): Promise<boolean> {
  services.poller.pokeRun(run.id);
  const sendAnyway = vscode.l10n.t('Send Anyway');
  const choice = await showWarning(
    vscode.l10n.t('An answer to this round of {0} went out at {1} and may have reached the crew: Crew Runs cannot tell.', run.label, new Date(sentAt).toLocaleTimeString()),
    {
      modal: true,
      detail: vscode.l10n.t('Crew Runs checks the run\'s status. If the crew took that answer, the run goes on and sending again would answer twice. Send Anyway only if the run still waits for this round.'),
    },
    sendAnyway,
  );
  if (choice !== sendAnyway) {
    return false;
  }
  await forgetUncertainAnswer(services, run);
  return sendAgain();
}

/** The service did not reveal the task id: ask for it, say where to find it, and remember it. */
async function askTaskId(services: Services, run: RunRecord, again = false): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: inertLine(vscode.l10n.t('Task ID for {0}', run.label)),
    prompt: vscode.l10n.t(
      'The crew did not say which task waits. Find its ID in the CrewAI dashboard (open the execution; the paused task shows its ID) or in the human-input webhook payload (task_id).',
    ),
    value: again ? run.taskId : undefined,
    ignoreFocusOut: true,
    validateInput: (text) => (/^[\w.:-]{1,200}$/.test(text.trim()) ? undefined : vscode.l10n.t('Paste the task ID (letters, digits and dashes).')),
  });
  const taskId = value?.trim();
  if (taskId) {
    await services.runs.setTaskId(run.id, taskId);
  }
  return taskId;
}
