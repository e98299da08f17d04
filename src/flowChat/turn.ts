// One chat turn, from the message sent to the answer final (flow-chat.md "Recovery rules"): stream the
// answer, resume a dropped stream from the last id seen (frames already seen are dropped), read /history
// after a drop and reattach only while a turn is active, fall back to polling /history, and never send a
// message again once its delivery is uncertain.

import { compareIds, type ChatFrame, SseParser } from './sse';

/** The reference client's cap on a message (the panel and the chat tool both keep to it). */
export const MAX_MESSAGE_CHARS = 32_000;

export interface ChatHistory {
  messages: { role: string; content: string }[];
  activeKickoffId: string | null;
}

/** The routes a turn needs (src/flowChat/chatApi.ts over the crew client; fakes in the unit tests). */
export interface TurnApi {
  /** POST /chat/{id}/message. Throws a ChatSendError. */
  send(message: string, signal: AbortSignal): Promise<{ kickoffId?: string }>;
  history(signal: AbortSignal): Promise<ChatHistory>;
  /** The stream's text as it comes; throws with `status` on a non-2xx answer (409: no active turn). */
  stream(lastEventId: string | undefined, signal: AbortSignal): Promise<AsyncIterable<string>>;
}

export class ChatSendError extends Error {
  /**
   * `busy`: 409, a turn still runs (nothing sent). `notSent`: refused before delivery. `uncertain`: it may have
   * arrived. `needsToken`: refused for the token (none stored, 401, 403).
   */
  constructor(
    readonly kind: 'busy' | 'notSent' | 'uncertain',
    message: string,
    readonly needsToken = false,
  ) {
    super(message);
  }
}

export type TurnUpdate =
  | { kind: 'text'; text: string }
  | { kind: 'step'; id: string; title: string; detail: string }
  /** The flow waits for a human (answered with POST /resume_feedback {flow_id, feedback}); `id` names it once. */
  | { kind: 'question'; id: string; text: string; flowId?: string }
  /** The flow got the human's answer (from this panel or another client). */
  | { kind: 'questionAnswered'; feedback: string }
  | { kind: 'note'; text: string }
  | { kind: 'mode'; mode: 'streaming' | 'reconnecting' | 'polling' };

export type TurnOutcome =
  | { kind: 'completed'; answer: string }
  | { kind: 'failed'; error: string; answer: string }
  | { kind: 'busy'; error: string }
  | { kind: 'notSent'; error: string; needsToken?: boolean }
  | { kind: 'uncertain'; error: string }
  | { kind: 'cancelled'; answer: string };

export interface TurnOptions {
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Stream attempts after the first before polling /history instead; default 3. */
  streamRetries?: number;
  /** Backoff of the reattachments, doubled each time; default 500 ms. */
  retryDelayMs?: number;
  pollIntervalMs?: number;
}

const TERMINAL = new Set(['turn_completed', 'turn_failed']);

/** Sends `message` and follows its turn to the end. `update` gets the answer's new text only, as it comes. */
export async function runTurn(api: TurnApi, message: string, update: (u: TurnUpdate) => void, options: TurnOptions, signal: AbortSignal): Promise<TurnOutcome> {
  const historyBefore = await api.history(signal).catch(() => undefined);
  const known = historyBefore?.messages.length ?? 0;
  try {
    await api.send(message, signal);
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    if (e instanceof ChatSendError && e.kind === 'notSent') {
      return e.needsToken ? { kind: 'notSent', error, needsToken: true } : { kind: 'notSent', error };
    }
    if (e instanceof ChatSendError && e.kind === 'busy') {
      return { kind: 'busy', error };
    }
    // Uncertain (a 5xx, a cut connection): never sent again, but the history tells whether it arrived.
    const after = historyBefore ? await api.history(signal).catch(() => undefined) : undefined;
    if (!after) {
      return { kind: 'uncertain', error };
    }
    const arrived = after.messages.slice(known).some((m) => m.role === 'user' && m.content === message);
    if (arrived) {
      return followTurn(api, update, options, signal, known);
    }
    return after.activeKickoffId === null ? { kind: 'notSent', error } : { kind: 'uncertain', error };
  }
  return followTurn(api, update, options, signal, known);
}

/**
 * Follows the active turn (after a send, or a session reopened while a turn runs). `knownMessages`: how many
 * messages the history had before this turn, so the answer is the assistant message after them.
 */
export async function followTurn(api: TurnApi, update: (u: TurnUpdate) => void, options: TurnOptions, signal: AbortSignal, knownMessages: number): Promise<TurnOutcome> {
  const retries = options.streamRetries ?? 3;
  let delay = options.retryDelayMs ?? 500;
  let lastId: string | undefined;
  const seen = new Set<string>();
  let answer = '';
  let sawToken = false;
  let failure: string | undefined;
  let attempts = 0;

  const apply = (frame: ChatFrame): boolean => {
    if (frame.id !== undefined) {
      const order = lastId === undefined ? 1 : compareIds(frame.id, lastId);
      if (seen.has(frame.id) || (order !== undefined && order <= 0)) {
        return false; // a replay after a reattach
      }
      seen.add(frame.id);
      lastId = frame.id;
    }
    const data = frame.data;
    switch (frame.type) {
      case 'token': {
        const text = typeof data.content === 'string' ? data.content : '';
        sawToken = true;
        answer += text;
        if (text) {
          update({ kind: 'text', text });
        }
        break;
      }
      case 'llm_stream_chunk': {
        const text = typeof data.chunk === 'string' ? data.chunk : '';
        if (!sawToken && text) {
          answer += text;
          update({ kind: 'text', text });
        }
        break;
      }
      case 'event': {
        const eventType = typeof data.event_type === 'string' ? data.event_type : 'event';
        if (/human_feedback_requested|awaiting|pending_human/i.test(eventType)) {
          const text = [data.message, data.question, data.prompt].find((v): v is string => typeof v === 'string' && v.trim() !== '');
          const flowId = typeof data.flow_id === 'string' && data.flow_id !== '' ? data.flow_id : undefined;
          update({ kind: 'question', id: frame.id ?? `q${seen.size}`, text: (text ?? '').slice(0, 4000), flowId });
          break;
        }
        if (/human_feedback_received|feedback_received/i.test(eventType)) {
          update({ kind: 'questionAnswered', feedback: typeof data.feedback === 'string' ? data.feedback.slice(0, 4000) : '' });
          break;
        }
        const tool = typeof data.tool_name === 'string' ? data.tool_name : undefined;
        const detail = [data.tool_args === undefined ? undefined : JSON.stringify(data.tool_args), typeof data.output === 'string' ? data.output : undefined]
          .filter(Boolean)
          .join(' → ');
        update({ kind: 'step', id: frame.id ?? `${seen.size}`, title: tool ? `${eventType}: ${tool}` : eventType, detail: detail.slice(0, 2000) });
        break;
      }
      case 'turn_failed':
      case 'error': {
        const error = data.error ?? data.message ?? data.detail;
        failure = typeof error === 'string' && error ? error : 'The flow reported an error.';
        if (frame.type === 'error') {
          update({ kind: 'note', text: failure });
          failure = undefined;
        }
        break;
      }
    }
    return TERMINAL.has(frame.type);
  };

  /** The authoritative end: the history's assistant message after this turn's user message. */
  const final = (history: ChatHistory): TurnOutcome => {
    // After this turn's user message (the last one; the count from before is a second guard).
    const lastUser = history.messages.map((m) => m.role).lastIndexOf('user');
    const after = history.messages.slice(Math.max(knownMessages, lastUser + 1));
    const reply = after.find((m) => m.role === 'assistant');
    if (failure !== undefined) {
      return { kind: 'failed', error: failure, answer };
    }
    if (reply) {
      return { kind: 'completed', answer: reply.content };
    }
    return { kind: 'failed', error: 'The turn ended without an answer in the history.', answer };
  };

  for (;;) {
    if (signal.aborted) {
      return { kind: 'cancelled', answer };
    }
    if (attempts <= retries) {
      update({ kind: 'mode', mode: attempts === 0 ? 'streaming' : 'reconnecting' });
      let ended = false;
      try {
        const parser = new SseParser();
        const stream = await api.stream(lastId, signal);
        for await (const chunk of stream) {
          for (const item of parser.feed(chunk)) {
            if (item.kind === 'frame' && apply(item.frame)) {
              ended = true;
            } else if (item.kind === 'unreadable') {
              update({ kind: 'note', text: `Skipped a frame that could not be read (${item.text.slice(0, 80)}).` });
            }
          }
          if (ended) {
            break;
          }
        }
        if (!ended) {
          for (const item of parser.end()) {
            ended = (item.kind === 'frame' && apply(item.frame)) || ended;
          }
        }
      } catch (e) {
        if (signal.aborted) {
          return { kind: 'cancelled', answer };
        }
        void e; // Whatever broke the stream, /history says whether a turn is still there to reattach to.
      }
      if (ended && failure !== undefined) {
        return { kind: 'failed', error: failure, answer };
      }
      const history = await api.history(signal).catch(() => undefined);
      if (history && history.activeKickoffId === null) {
        return final(history);
      }
      // The stream said the turn is over: only the history is left to settle (it may lag a moment).
      attempts = ended ? retries + 1 : attempts + 1;
      if (attempts <= retries) {
        await options.sleep(delay, signal).catch(() => undefined);
        delay = Math.min(delay * 2, 8000);
        continue;
      }
      if (!ended) {
        update({ kind: 'mode', mode: 'polling' });
      }
    }
    await options.sleep(options.pollIntervalMs ?? 1000, signal).catch(() => undefined);
    const history = await api.history(signal).catch(() => undefined);
    if (history && history.activeKickoffId === null) {
      return final(history);
    }
  }
}
