import * as vscode from 'vscode';
import type { RunRecord } from '../runTracking/model';
import { runDocumentName } from '../util/fileName';
import { inertLine } from '../util/inertText';
import { escapeMarkdown, markdownText } from '../util/markdownText';

export const REVIEW_SCHEME = 'crew-review';

/** What one review round shows: the output a paused task asks a human to check. */
export interface ReviewRound {
  runId: string;
  round: number;
  crewName: string;
  /** The run's label as the crews tree shows it: with its "#2" when an older run of the crew has the same label. */
  runLabel: string;
  taskName?: string;
  output: string;
  /** Shown above the output when it may not be the output under review. */
  note?: string;
}

export interface ReviewThread {
  thread: vscode.CommentThread;
  round: ReviewRound;
  /** Set once feedback went out: the thread is then read-only. */
  sent: boolean;
  /** Feedback that could not be sent yet; kept so nothing typed is lost. */
  draft?: string;
}

class ReviewComment implements vscode.Comment {
  constructor(
    public body: string | vscode.MarkdownString,
    public author: vscode.CommentAuthorInformation,
    public label?: string,
    public contextValue?: string,
  ) {}
  mode = vscode.CommentMode.Preview;
  timestamp = new Date();
}

/**
 * The review documents (read-only Markdown, one per round) and their comment threads: the thread
 * says which crew, run and task waits; its reply box takes the feedback; the thread's buttons
 * (contributed to `comments/commentThread/context`) send it.
 */
export class FeedbackReviews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private commentController?: vscode.CommentController;
  private readonly rounds = new Map<string, ReviewRound>();
  private readonly threads = new Map<string, ReviewThread>();
  private readonly disposables: vscode.Disposable[] = [];
  private commentsViewRendered = false;

  /** Serves the `crew-review` scheme. */
  register(): vscode.Disposable {
    const registration = vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, this);
    this.disposables.push(registration);
    return registration;
  }

  /** Created on the first review, not at activation. */
  private get controller(): vscode.CommentController {
    if (!this.commentController) {
      this.commentController = vscode.comments.createCommentController('crewRuns.feedback', vscode.l10n.t('Crew Runs Feedback'));
      this.commentController.options = {
        // Short: the reply box is narrow beside the run view, and a cut-off hint reads as a bug.
        placeHolder: vscode.l10n.t('Feedback for the crew'),
        prompt: vscode.l10n.t('Write feedback…'),
      };
      this.disposables.push(this.commentController);
    }
    return this.commentController;
  }

  /** The tab names the run: several reviews open at once look alike otherwise. */
  static uriFor(runId: string, round: number, runLabel: string): vscode.Uri {
    return vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${runId}/${runDocumentName(runLabel, `review-${round}.md`)}` });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const round = this.rounds.get(uri.toString());
    if (!round) {
      return vscode.l10n.t('This review is no longer open. Use "Crew Runs: Give Feedback…" to review the run again.');
    }
    return reviewText(round);
  }

  /** Opens (or reveals) the review of a round, with its thread, in the given editor group. */
  async open(run: RunRecord, round: ReviewRound, viewColumn: vscode.ViewColumn = vscode.ViewColumn.Active): Promise<ReviewThread> {
    const uri = FeedbackReviews.uriFor(run.id, round.round, round.runLabel);
    this.rounds.set(uri.toString(), round);
    let review = this.threads.get(uri.toString());
    if (!review) {
      // After the text under review (its last line), where a reader arrives once done reading.
      const lastLine = reviewText(round).split('\n').length - 1;
      const thread = this.controller.createCommentThread(uri, new vscode.Range(lastLine, 0, lastLine, 0), [
        new ReviewComment(
          new vscode.MarkdownString(
            vscode.l10n.t(
              '**{0}** is waiting for your review of **{1}** (run "{2}", round {3}). Approve to continue the run, or request changes to have the task redone with your feedback.',
              escape(round.crewName),
              escape(round.taskName ?? vscode.l10n.t('the last task')),
              escape(round.runLabel),
              round.round,
            ),
          ),
          { name: 'Crew Runs' },
        ),
      ]);
      thread.label = vscode.l10n.t('Review: {0}', round.taskName ?? round.runLabel);
      thread.contextValue = 'crewRunsReview';
      thread.canReply = true;
      thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
      review = { thread, round, sent: false };
      this.threads.set(uri.toString(), review);
    }
    await this.renderCommentsViewOnce();
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, 'markdown');
    await vscode.window.showTextDocument(document, { preview: false, viewColumn });
    return review;
  }

  /**
   * VS Code opens its Comments view, over the reply box, the first time a window shows a file with comments
   * (`comments.openView`: "firstFile", the default), and never again once the view has been drawn. Drawn here
   * first, then its panel closed: the review shows without a panel. Once per window, and only with that setting.
   */
  private async renderCommentsViewOnce(): Promise<void> {
    if (this.commentsViewRendered || vscode.workspace.getConfiguration('comments').get<string>('openView') !== 'firstFile') {
      return;
    }
    this.commentsViewRendered = true;
    try {
      await vscode.commands.executeCommand('workbench.action.focusCommentsPanel');
      await vscode.commands.executeCommand('workbench.action.closePanel');
    } catch {
      // An editor without these commands: the Comments view may open, as before.
    }
  }

  /** The review a comment command was run on. */
  reviewOf(thread: vscode.CommentThread): ReviewThread | undefined {
    return [...this.threads.values()].find((r) => r.thread === thread);
  }

  /** The open, unsent review of a run, if any (for tests and the run view). */
  openReviewOf(runId: string): ReviewThread | undefined {
    return [...this.threads.values()].find((r) => r.round.runId === runId && !r.sent);
  }

  /**
   * Shows what was sent, and closes the round (once: the thread's own buttons and the run's
   * recorded round, from the palette, the chat or another window, both lead here).
   */
  markSent(review: ReviewThread, approve: boolean, feedback: string): void {
    if (review.sent) {
      return;
    }
    const verdict = approve ? vscode.l10n.t('Approved') : vscode.l10n.t('Requested changes');
    const body = new vscode.MarkdownString();
    body.appendMarkdown(`**${verdict}**`);
    if (feedback) {
      body.appendMarkdown('\n\n');
      body.appendMarkdown(markdownText(feedback));
    }
    this.close(review, body, vscode.l10n.t('You'));
  }

  /** The run stopped waiting without an answer recorded here (answered in the crew's dashboard, or it ended). */
  markNoLongerWaiting(review: ReviewThread): void {
    if (review.sent) {
      return;
    }
    this.close(review, new vscode.MarkdownString(vscode.l10n.t('The run is no longer waiting for this review.')), 'Crew Runs');
  }

  private close(review: ReviewThread, body: vscode.MarkdownString, author: string): void {
    review.sent = true;
    // An answered round needs no document open: its tabs close (the thread keeps the answer, for a reopened review).
    void closeTabsOf(review.thread.uri);
    review.thread.comments = [...review.thread.comments.filter((c) => c.contextValue !== 'draft'), new ReviewComment(body, { name: author })];
    review.thread.canReply = false;
    review.thread.contextValue = 'crewRunsReviewSent';
    review.thread.label = vscode.l10n.t('Answered: {0}', review.round.taskName ?? review.round.runLabel);
    review.thread.state = vscode.CommentThreadState.Resolved;
    review.thread.collapsibleState = vscode.CommentThreadCollapsibleState.Collapsed;
  }

  /** Keeps text that could not be sent visible in the thread, so nothing typed is lost. */
  keepDraft(review: ReviewThread, feedback: string, problem: string): void {
    if (!feedback) {
      return;
    }
    review.draft = feedback;
    const body = new vscode.MarkdownString();
    body.appendMarkdown(`*${escape(vscode.l10n.t('Not sent: {0}', problem))}*\n\n`);
    body.appendMarkdown(markdownText(feedback));
    const others = review.thread.comments.filter((c) => c.contextValue !== 'draft');
    review.thread.comments = [...others, new ReviewComment(body, { name: vscode.l10n.t('Draft') }, vscode.l10n.t('draft'), 'draft')];
  }

  dispose(): void {
    for (const review of this.threads.values()) {
      review.thread.dispose();
    }
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

/**
 * The review document: what is under review, readable as it stands. The heading line is plain text
 * (no Markdown escapes to read around); names are made inert, the output is the crew's own text.
 */
function reviewText(round: ReviewRound): string {
  const title = inertLine(round.taskName ?? vscode.l10n.t('Task output'));
  const note = round.note ? `> ${round.note}\n\n` : '';
  const context = `${inertLine(round.crewName)} · ${inertLine(round.runLabel)} · ${vscode.l10n.t('review round {0}', round.round)}`;
  return `# ${title}\n\n${context}\n\n${note}${round.output}\n`;
}

/** Closes every tab showing `uri` (a review is read-only: nothing to save). */
async function closeTabsOf(uri: vscode.Uri): Promise<void> {
  const key = uri.toString();
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === key);
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
  }
}

function escape(text: string): string {
  return escapeMarkdown(inertLine(text));
}
