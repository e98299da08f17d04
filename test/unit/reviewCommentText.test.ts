// Issue #47: a review's comment thread shows the user's feedback (sent, or kept as a draft) as text: no link
// of any scheme, no image, no formatting. VS Code's appendText leaves `<command:…>` autolinks and bare URLs live.
import * as assert from 'node:assert/strict';
import type * as FeedbackReviewModule from '../../src/feedback/feedbackReview';
import { requireWithFakeVscode, type FakeMarkdownString } from './helpers/fakeVscode';
import { assertInert, HOSTILE } from './helpers/inertMarkdown';

describe('a review thread shows feedback as text (#47)', () => {
  const { FeedbackReviews } = requireWithFakeVscode<typeof FeedbackReviewModule>(require.resolve('../../src/feedback/feedbackReview'));

  function thread() {
    const comments: { body: FakeMarkdownString | string; contextValue?: string }[] = [];
    const review = {
      thread: { comments, canReply: true } as never,
      round: { runId: 'r', round: 1, crewName: 'Writers', runLabel: 'Q3', output: 'text' },
      sent: false,
    };
    return review as FeedbackReviewModule.ReviewThread;
  }

  const lastBody = (review: FeedbackReviewModule.ReviewThread) => {
    const comments = review.thread.comments as unknown as { body: FakeMarkdownString }[];
    return comments[comments.length - 1].body.value;
  };

  it('sent feedback: 11 hostile texts render with no link, image or formatting', () => {
    const reviews = new FeedbackReviews();
    for (const text of HOSTILE) {
      const review = thread();
      reviews.markSent(review, false, text);
      assertInert(lastBody(review), [text], `sent: ${text}`);
    }
  });

  it('a kept draft: the same', () => {
    const reviews = new FeedbackReviews();
    for (const text of HOSTILE) {
      const review = thread();
      reviews.keepDraft(review, text, 'network');
      assert.equal(review.draft, text);
      assertInert(lastBody(review), [text], `draft: ${text}`);
    }
  });
});
