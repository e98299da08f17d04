// The chat panel's messages: what the host (chatPanel.ts) sends its page, and what the page (page/chatPage.ts)
// sends back. Types only.

import type { TurnOutcome, TurnUpdate } from './turn';

/** What the host sends the page. */
export type ChatHostMessage =
  | { type: 'strings'; strings: Record<string, string> }
  | { type: 'user'; text: string }
  /** A reopened session's conversation so far (GET /chat/{id}/history), before anything else. */
  | { type: 'history'; messages: { role: 'user' | 'assistant'; text: string; notShown?: number }[]; note?: string }
  /** `again`: the answer of the message whose send was uncertain, found by Check: in that message's place. */
  | { type: 'answerStart'; again?: boolean }
  | { type: 'update'; update: TurnUpdate }
  /**
   * `restore`: the message the flow did not take, back in the composer to send again or not. `check`: the send is
   * uncertain: the page offers Check (the history read for it), never the text back.
   */
  | { type: 'answerEnd'; outcome: TurnOutcome; note?: string; restore?: string; check?: boolean }
  /** What Check found where it did not find the message: said under it, Check offered again. */
  | { type: 'checkResult'; note: string }
  /** Tests only: as if the user pressed Check. */
  | { type: 'check' }
  | { type: 'busy'; reason?: string }
  | { type: 'submit'; text: string }
  /**
   * The answer to a flow's question was sent; or refused (`note` says why; it can be answered again); or its
   * delivery is uncertain (not sent again: the stream shows whether it arrived).
   */
  | { type: 'feedbackResult'; questionId: string; state: 'sent' | 'refused' | 'uncertain'; note?: string }
  /**
   * The flow no longer knows this session (it restarted, or was redeployed): the page says so, closes the
   * composer for good, and offers Start a New Chat and Forget This Chat.
   */
  | { type: 'gone' }
  /** A message to put in the composer (one the chat this one replaces could not send). */
  | { type: 'draft'; text: string };

/** What the page sends the host. */
export type ChatPageMessage =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'copy'; text: string }
  /** Approve (`approved`) or feedback text for the flow's question `questionId`. */
  | { type: 'feedback'; questionId: string; feedback: string }
  | { type: 'openMarkdown' }
  /** Check: read the history for the message whose send was uncertain. */
  | { type: 'check' }
  /** Start a New Chat with the same flow, `draft` (the composer's text) in its composer. */
  | { type: 'newChat'; draft: string }
  /** Forget This Chat: off the crew's list, the panel closed. */
  | { type: 'forget' }
  | { type: 'report'; report: ChatPageReport };

/** What the page shows: reported after every render only where the test API is (see FlowChatInspection). */
export interface ChatPageReport {
  transcript: string[];
  busy: boolean;
  busyReason: string;
  steps: number;
  /** The flow's questions: their text and state (`open`, `sending`, `answered`), as shown. */
  questions: { text: string; state: string }[];
  /** The notes shown in plain words (a failed turn, a message not sent), oldest first. */
  notes: string[];
  /** Every status the page showed about the stream (reconnecting, following the history), oldest first. */
  connectionShown: string[];
  /** What the composer holds. */
  composer: string;
  /** Check is offered (and not under way) for a message whose send was uncertain. */
  checkOffered: boolean;
  /** The class of the focused element of the page. */
  focused: string;
  /** The titles of the steps shown, oldest first. */
  stepTitles: string[];
  /** The words shown where the flow no longer knows this chat ('' when not), and the buttons under them. */
  gone: string;
  goneActions: string[];
  /** The last question's Send Feedback button as drawn (computed colours), and the background behind it. */
  feedbackButton?: { background: string; border: string; behind: string };
  /** The name of the theme the page is drawn in ("Dark Modern"). */
  theme: string;
}
