// A flow-chat message sent once, machine-wide (runTracking/sendOnce.ts; ARCHITECTURE.md "Sending once"): its mark
// `chatMessage:<id>` is claimed before POST /chat/{id}/message and settled by what that POST did. A message's id is
// its crew, session and words (hashed: no words in the shared marks), so the same pending message is known wherever
// it would go again: typed again in the panel, in a session reopened after a reload, from another window, or the
// chat tool called again. Plain Node: the panel and the chat tool share it. The answer to a flow's question
// (POST /resume_feedback) holds a mark of its own, `chatAnswer:<id>`: one answer per question, whichever window sends.

import { createHash } from 'node:crypto';
import * as l10n from '@vscode/l10n';
import { isBlocked, type SendOnce } from '../runTracking/sendOnce';
import { ChatSendError, ChatSessionGone, runTurn, type TurnApi, type TurnOptions, type TurnOutcome, type TurnUpdate } from './turn';

/** The machine-wide marks (Services.sends). */
export type ChatSends = Pick<SendOnce, 'claim' | 'forget'>;

/** The same words (as a flow stores them: trimmed) to the same session of the same crew are one message while pending. */
export function chatMessageKey(crewUrl: string, sessionId: string, message: string): string {
  return `chatMessage:${createHash('sha256').update(`${crewUrl}\n${sessionId}\n${message.trim()}`).digest('hex').slice(0, 32)}`;
}

/** What a failed POST of a message means for its mark: refused (or the session gone) frees it; anything else may have arrived. */
function afterFailure(error: unknown): 'notSent' | 'uncertain' {
  return error instanceof ChatSessionGone || (error instanceof ChatSendError && error.kind !== 'uncertain') ? 'notSent' : 'uncertain';
}

/**
 * Sends `message` and follows its turn (turn.ts runTurn) under the message's mark. Not sent where a send of it is
 * under way (`busy`, `sending`) or may have reached the flow (`uncertain`, `earlier`): Check, never a resend. A mark
 * that says it went is a message whose turn was taken: the same words again are a new message.
 */
export async function runTurnOnce(
  sends: ChatSends,
  key: string,
  api: TurnApi,
  message: string,
  update: (u: TurnUpdate) => void,
  options: TurnOptions,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  let claim = await sends.claim(key);
  if (isBlocked(claim) && claim.kind === 'sent') {
    await sends.forget(key);
    claim = await sends.claim(key);
  }
  if (isBlocked(claim)) {
    return claim.kind === 'uncertain'
      ? { kind: 'uncertain', error: l10n.t('an earlier send of this message may have reached the flow'), earlier: true }
      : { kind: 'busy', error: l10n.t('This message is being sent already.'), sending: true };
  }
  const held = claim;
  let settled: 'sent' | 'notSent' | 'uncertain' | undefined;
  const settle = async (outcome: 'sent' | 'notSent' | 'uncertain', kickoffId?: string) => {
    settled = outcome;
    await held.settle(outcome, kickoffId === undefined ? undefined : { kickoffId }).catch(() => undefined);
  };
  // The mark is settled as the POST ends, not the turn: a window closed while the flow answers leaves it `sent`.
  const once: TurnApi = {
    sessionId: api.sessionId,
    send: async (text, s) => {
      try {
        const sent = await api.send(text, s);
        await settle('sent', sent.kickoffId);
        return sent;
      } catch (e) {
        await settle(afterFailure(e));
        throw e;
      }
    },
    history: (s) => api.history(s),
    stream: (lastEventId, s) => api.stream(lastEventId, s),
    ...(api.turnError ? { turnError: (kickoffId: string, s: AbortSignal) => api.turnError!(kickoffId, s) } : {}),
  };
  try {
    const outcome = await runTurn(once, message, update, options, signal);
    if (settled === 'uncertain' && outcome.kind !== 'uncertain') {
      await sends.forget(key); // The history showed it arrived: its truth is known, the words free again.
    }
    return outcome;
  } finally {
    if (settled === undefined) {
      await settle('notSent'); // Never posted (the turn threw first).
    }
  }
}

/** A flow's question (its flow id and the question's id in the turn) of a crew's session: answered once, machine-wide. */
export function chatAnswerKey(crewUrl: string, sessionId: string, flowId: string, questionId: string): string {
  return `chatAnswer:${createHash('sha256').update(`${crewUrl}\n${sessionId}\n${flowId}\n${questionId}`).digest('hex').slice(0, 32)}`;
}

export type AnswerOutcome =
  | { kind: 'sent' }
  /** The flow refused it (a 4xx, or never sent): it can be answered again. */
  | { kind: 'refused'; error: unknown }
  /** It may have arrived: never sent again. */
  | { kind: 'uncertain'; error: unknown }
  /** Answered, or being answered, elsewhere (another window, or a panel before a reload): nothing sent. */
  | { kind: 'answeredElsewhere'; uncertain: boolean };

/** Sends the answer under the question's mark: once, whichever windows show the question. */
export async function answerOnce(sends: Pick<SendOnce, 'claim'>, key: string, send: () => Promise<void>): Promise<AnswerOutcome> {
  const claim = await sends.claim(key);
  if (isBlocked(claim)) {
    return { kind: 'answeredElsewhere', uncertain: claim.kind === 'uncertain' };
  }
  try {
    await send();
  } catch (error) {
    const refused = error instanceof ChatSessionGone || (error instanceof ChatSendError && error.kind === 'notSent');
    await claim.settle(refused ? 'notSent' : 'uncertain').catch(() => undefined);
    return refused ? { kind: 'refused', error } : { kind: 'uncertain', error };
  }
  await claim.settle('sent').catch(() => undefined);
  return { kind: 'sent' };
}
