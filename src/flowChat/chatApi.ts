// The chat routes of one crew over the extension's crew client (same transport, token only in the header), as
// the turn state machine needs them; errors turned into what a chat must tell apart (busy, not sent, uncertain).

import { CrewApiError } from '../api/errors';
import { classifySendFailure } from '../runTracking/sendOnce';
import { describeError } from '../ui/errorMessages';
import type { CrewApi } from '../api/client';
import { ChatSendError, ChatSessionGone, readTurnError, type ChatHistory, type TurnApi } from './turn';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** GET /inspect: whether the deployment chats (404, no `chat`, anything else: it does not). Nothing else is kept. */
export async function inspectChats(client: CrewApi, crewUrl: string, signal?: AbortSignal): Promise<boolean> {
  try {
    const body = await client.chatCall(crewUrl, ['inspect'], 'GET', undefined, { signal });
    const chat = isObject(body) && isObject(body.flow) ? body.flow.chat : undefined;
    return isObject(chat) && (chat.conversational === true || chat.handle_turn === true);
  } catch (e) {
    if (e instanceof CrewApiError && (e.status === 404 || e.status === 405)) {
      return false;
    }
    throw e;
  }
}

export async function startSession(client: CrewApi, crewUrl: string): Promise<string> {
  const body = await client.chatCall(crewUrl, ['chat', 'start'], 'POST', {});
  const id = isObject(body) ? body.session_id : undefined;
  if (typeof id !== 'string' || !/^[A-Za-z0-9._:-]{1,200}$/.test(id)) {
    throw new Error('The flow started a chat but named no usable session id.');
  }
  return id;
}

export function readHistory(body: unknown): ChatHistory {
  const messages = isObject(body) && Array.isArray(body.messages) ? body.messages : [];
  const active = isObject(body) ? body.active_kickoff_id : undefined;
  return {
    messages: messages.filter(isObject).map((m) => ({ role: typeof m.role === 'string' ? m.role : 'assistant', content: typeof m.content === 'string' ? m.content : '' })),
    activeKickoffId: typeof active === 'string' && active !== '' ? active : null,
  };
}

/** A 404 on a session's routes: the flow no longer knows the session (it restarted, or was redeployed). */
const isGone = (e: unknown): boolean => e instanceof CrewApiError && e.status === 404;

export function sessionApi(client: CrewApi, crewUrl: string, crewName: string, sessionId: string): TurnApi {
  return {
    sessionId,
    async send(message, signal) {
      try {
        const body = await client.chatCall(crewUrl, ['chat', sessionId, 'message'], 'POST', { message, stream: true }, { signal });
        const kickoffId = isObject(body) && typeof body.kickoff_id === 'string' ? body.kickoff_id : undefined;
        return { kickoffId };
      } catch (e) {
        if (e instanceof CrewApiError && e.status === 409) {
          throw new ChatSendError('busy', 'The flow is still answering the previous message.');
        }
        // In plain words, with the server's own (describeError quotes them).
        const words = e instanceof CrewApiError ? describeError(e, crewName) : e instanceof Error ? e.message : String(e);
        if (isGone(e)) {
          throw new ChatSessionGone(words);
        }
        if (e instanceof CrewApiError && (e.kind === 'unauthorized' || e.kind === 'noToken')) {
          throw new ChatSendError('notSent', words, true);
        }
        // The send-once rule's reading of a failure: refused, or never left, means not sent; anything that may have
        // reached the flow stays uncertain.
        throw new ChatSendError(classifySendFailure(e) === 'mayHaveActed' ? 'uncertain' : 'notSent', words);
      }
    },
    async history(signal) {
      try {
        return readHistory(await client.chatCall(crewUrl, ['chat', sessionId, 'history'], 'GET', undefined, { signal }));
      } catch (e) {
        throw isGone(e) ? new ChatSessionGone(describeError(e, crewName)) : e;
      }
    },
    // A turn that failed before its stream attached left its words only in its status.
    async turnError(kickoffId, signal) {
      return readTurnError(await client.chatCall(crewUrl, ['status', kickoffId], 'GET', undefined, { signal }));
    },
    stream(lastEventId, signal) {
      return client.chatStream(crewUrl, sessionId, lastEventId, signal);
    },
  };
}

/**
 * POST /resume_feedback {flow_id, feedback}: the human's answer to a turn paused for approval (`approved`, or
 * text). Throws a ChatSendError: `notSent` when the flow refused it (4xx: nothing pending), else `uncertain`.
 */
export async function sendFeedback(client: CrewApi, crewUrl: string, flowId: string, feedback: string, signal?: AbortSignal): Promise<void> {
  try {
    await client.chatCall(crewUrl, ['resume_feedback'], 'POST', { flow_id: flowId, feedback }, { signal });
  } catch (e) {
    throw new ChatSendError(classifySendFailure(e) === 'mayHaveActed' ? 'uncertain' : 'notSent', e instanceof Error ? e.message : String(e));
  }
}
