// One chat turn, from the message sent to the answer final (flow-chat.md "Recovery rules"): stream the
// answer, resume a dropped stream from the last id seen (frames already seen are dropped), read /history
// after a drop and reattach only while a turn is active, fall back to polling /history, and never send a
// message again once its delivery is uncertain.

import * as l10n from '@vscode/l10n';
import { type ChatFrame, FrameIds, SseParser, type SseItem } from './sse';

/** The reference client's cap on a message (the panel and the chat tool both keep to it). */
export const MAX_MESSAGE_CHARS = 32_000;

export interface ChatHistory {
  messages: { role: string; content: string }[];
  activeKickoffId: string | null;
}

/** The routes a turn needs (src/flowChat/chatApi.ts over the crew client; fakes in the unit tests). */
export interface TurnApi {
  /** The session the turn belongs to: a frame naming another (`session_id`) is not taken. */
  readonly sessionId?: string;
  /** POST /chat/{id}/message. Throws a ChatSendError. */
  send(message: string, signal: AbortSignal): Promise<{ kickoffId?: string }>;
  history(signal: AbortSignal): Promise<ChatHistory>;
  /**
   * The stream's text as it comes; throws with `status` on a non-2xx answer (409: no active turn). Its
   * `pieceRedactor`, where it has one, redacts the token out of text the frames spell across each other.
   */
  stream(lastEventId: string | undefined, signal: AbortSignal): Promise<AsyncIterable<string> & { pieceRedactor?(): PieceRedactor }>;
  /** GET /status/{kickoff_id} of a chat turn: the failure's words, where the turn failed and says why. */
  turnError?(kickoffId: string, signal: AbortSignal): Promise<string | undefined>;
}

/** Redacts text that comes in pieces (api/redact.ts PieceRedactor). */
export interface PieceRedactor {
  push(piece: string): string;
  flush(): string;
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

/**
 * The flow no longer knows the session (a 404 on its routes: the deployment restarted or was redeployed, and its
 * sessions with it). Nothing sent to it can arrive; only a new session can go on.
 */
export class ChatSessionGone extends Error {}

export type TurnUpdate =
  | { kind: 'text'; text: string }
  /** `title`: the event's name and its tool, as the flow sent them; `event` and `tool` for words (page/stepTitle.ts). */
  | { kind: 'step'; id: string; title: string; detail: string; event?: string; tool?: string }
  /** The flow waits for a human (answered with POST /resume_feedback {flow_id, feedback}); `id` names it once. */
  | { kind: 'question'; id: string; text: string; flowId?: string }
  /** The flow got the human's answer (from this panel or another client). */
  | { kind: 'questionAnswered'; feedback: string }
  | { kind: 'note'; text: string }
  /** How the turn is followed: `streaming` once at the start, `reconnecting` when the stream broke (before each wait
   *  to reattach), `polling` once the stream is given up and /history is read instead. */
  | { kind: 'mode'; mode: 'streaming' | 'reconnecting' | 'polling' };

export type TurnOutcome =
  | { kind: 'completed'; answer: string }
  /** `sessionGone`: the flow forgot the session while the turn ran (ChatSessionGone). */
  | { kind: 'failed'; error: string; answer: string; sessionGone?: boolean }
  /** `sending`: the same message is being sent already (another window, another call: messageOnce.ts). */
  | { kind: 'busy'; error: string; sending?: boolean }
  /** `sessionGone`: the flow no longer knows the session (ChatSessionGone). */
  | { kind: 'notSent'; error: string; needsToken?: boolean; sessionGone?: boolean }
  /**
   * It may have reached the flow: never sent again. `knownMessages`: the history's length before it, for Check.
   * `earlier`: not sent now, as an earlier send of the same message may have reached the flow (messageOnce.ts).
   */
  | { kind: 'uncertain'; error: string; knownMessages?: number; earlier?: boolean }
  | { kind: 'cancelled'; answer: string };

export interface TurnOptions {
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Stream attempts after the first before polling /history instead; default 3. */
  streamRetries?: number;
  /** Backoff of the reattachments, doubled each time; default 500 ms. */
  retryDelayMs?: number;
  pollIntervalMs?: number;
  /** A stream that sends this many keepalives in a row and no frame has stalled; default 3. */
  stallKeepalives?: number;
  /** A stream that sends nothing at all for this long has stalled; default 60 s. */
  stallMs?: number;
  /** Stop waiting for a turn that shows no progress (no frame, no new message in /history) for this long; default 10 min. */
  maxWaitMs?: number;
  now?(): number;
}

/** Characters of one answer kept and shown; the rest is counted ("… N characters not shown"). */
export const MAX_ANSWER_CHARS = 2_000_000;
/** Characters of stream a turn reads at most; then it stops following the turn. */
export const MAX_TURN_STREAM_CHARS = 256 * 1024 * 1024;
/** Characters of a tool step's title. */
export const MAX_STEP_TITLE_CHARS = 200;
/**
 * Steps and notes of the flow shown per turn; the rest are counted in one note at its end. Never its questions
 * (nor their answers): the flow waits on each, so a question not shown would leave it waiting for ever.
 */
export const MAX_SHOWN_PER_TURN = 1_000;

/** Unreadable frames said one by one in a turn; the rest are counted in one note at its end. */
export const UNREADABLE_FRAMES_SAID = 3;

const TERMINAL = new Set(['turn_completed', 'turn_failed']);

/** An answer as it is kept and shown: its first MAX_ANSWER_CHARS characters. */
export const clipAnswer = (text: string): string => clip(text, MAX_ANSWER_CHARS);

/** The first `max` characters of `text`, never half of a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Sends `message` and follows its turn to the end. `update` gets the answer's new text only, as it comes. */
export async function runTurn(api: TurnApi, message: string, update: (u: TurnUpdate) => void, options: TurnOptions, signal: AbortSignal): Promise<TurnOutcome> {
  const historyBefore = await api.history(signal).catch(() => undefined);
  const known = historyBefore?.messages.length ?? 0;
  let kickoffId: string | undefined;
  try {
    kickoffId = (await api.send(message, signal)).kickoffId;
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    if (e instanceof ChatSessionGone) {
      return { kind: 'notSent', error, sessionGone: true };
    }
    if (e instanceof ChatSendError && e.kind === 'notSent') {
      return e.needsToken ? { kind: 'notSent', error, needsToken: true } : { kind: 'notSent', error };
    }
    if (e instanceof ChatSendError && e.kind === 'busy') {
      return { kind: 'busy', error };
    }
    // It may have arrived (a 5xx, a cut connection): never sent again. The history can show that it did; nothing
    // shows that it did not (a flow may list it late, and be done with it by then): it stays uncertain.
    const delivery = historyBefore ? await findDelivery(api, message, known, signal).catch(() => undefined) : undefined;
    if (delivery?.kind === 'listed') {
      return followDelivery(api, delivery, update, options, signal);
    }
    return historyBefore ? { kind: 'uncertain', error, knownMessages: known } : { kind: 'uncertain', error };
  }
  return followTurn(api, update, options, signal, known, kickoffId);
}

/** Where an uncertain send's message is in the history (Check): listed at `at`, or not (yet). */
export type Delivery = { kind: 'notListed'; turnRunning: boolean } | { kind: 'listed'; history: ChatHistory; at: number };

/**
 * Reads the history for a message whose send is uncertain: the first user message after the `knownMessages` the
 * history had before the send whose text is the message's (a flow may store it trimmed). Without that count, only
 * the last user message counts. Throws where the history cannot be read.
 */
export async function findDelivery(api: TurnApi, message: string, knownMessages: number | undefined, signal: AbortSignal): Promise<Delivery> {
  const history = await api.history(signal);
  const text = message.trim();
  const users = history.messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  const candidates = knownMessages === undefined ? users.slice(-1) : users.filter((i) => i >= knownMessages);
  const at = candidates.find((i) => history.messages[i].content.trim() === text);
  return at === undefined ? { kind: 'notListed', turnRunning: history.activeKickoffId !== null } : { kind: 'listed', history, at };
}

/**
 * The turn of a message found in the history: its answer where the history has it (the assistant message after it,
 * before the next user message), else its turn followed while it runs.
 */
export async function followDelivery(
  api: TurnApi,
  delivery: Extract<Delivery, { kind: 'listed' }>,
  update: (u: TurnUpdate) => void,
  options: TurnOptions,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const { history, at } = delivery;
  const next = history.messages.findIndex((m, i) => i > at && m.role === 'user');
  const reply = history.messages.slice(at + 1, next < 0 ? undefined : next).find((m) => m.role === 'assistant');
  if (reply) {
    const answer = clipAnswer(reply.content);
    if (answer.length < reply.content.length) {
      const notShown = reply.content.length - answer.length;
      update({ kind: 'note', text: l10n.t('{0} characters of the answer are not shown (an answer is shown up to {1}).', notShown.toLocaleString(), MAX_ANSWER_CHARS.toLocaleString()) });
    }
    return { kind: 'completed', answer };
  }
  if (next < 0 && history.activeKickoffId !== null) {
    return followTurn(api, update, options, signal, at + 1, history.activeKickoffId);
  }
  return { kind: 'failed', error: l10n.t('the flow took the message, but its history holds no answer to it.'), answer: '' };
}

/** Words in a value: a string, or an object's `message`, `error`, `detail`, `reason` (two levels down). */
function wordsIn(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') {
    return value.trim() === '' ? undefined : value.slice(0, 4000);
  }
  if (depth < 2 && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    return [o.message, o.error, o.detail, o.reason, o.msg].map((v) => wordsIn(v, depth + 1)).find((v) => v !== undefined);
  }
  return undefined;
}

/** A failure's own words, wherever the frame put them (data or envelope; a string, or an object's message). */
function failureWords(frame: ChatFrame): string | undefined {
  return wordsIn(frame.data) ?? wordsIn(frame.envelope ?? {});
}

/**
 * The body of GET /status/{kickoff_id} for a chat turn (TurnApi.turnError): the failure's words where it says the
 * turn failed (`state` or `status` FAILED, FAILURE, ERROR…), else undefined.
 */
export function readTurnError(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return undefined;
  }
  const o = body as Record<string, unknown>;
  const state = [o.state, o.status].find((v): v is string => typeof v === 'string') ?? '';
  if (!/fail|error/i.test(state)) {
    return undefined;
  }
  return wordsIn(o.error) ?? wordsIn(o.result) ?? wordsIn(o.detail);
}

/**
 * Follows the active turn (after a send, or a session reopened while a turn runs). `knownMessages`: how many
 * messages the history had before this turn, so the answer is the assistant message after them.
 */
export async function followTurn(
  api: TurnApi,
  update: (u: TurnUpdate) => void,
  options: TurnOptions,
  signal: AbortSignal,
  knownMessages: number,
  kickoffId?: string,
): Promise<TurnOutcome> {
  const retries = options.streamRetries ?? 3;
  const now = options.now ?? Date.now;
  const stallKeepalives = options.stallKeepalives ?? 3;
  const stallMs = options.stallMs ?? 60_000;
  const maxWaitMs = options.maxWaitMs ?? 600_000;
  let lastProgress = now();
  let messagesSeen = -1;
  /** Said once a turn: a stream stalled, the history is read. */
  let saidStall = false;
  /** The flow asked a human and waits: keepalives alone are then no stall, and the wait is not bounded. */
  let waitingForHuman = false;
  let redactor: PieceRedactor | undefined;
  /** Text of the frames of one read, sent as one update (a fast stream's frames come many to a read). */
  let pendingText = '';
  const flushText = () => {
    if (pendingText) {
      update({ kind: 'text', text: pendingText });
      pendingText = '';
    }
  };
  const say = (u: TurnUpdate) => {
    flushText();
    update(u);
  };
  /** The answer stops at MAX_ANSWER_CHARS: the rest is counted, said at once and again, with its count, at the end. */
  const addText = (raw: string) => {
    if (answer.length >= MAX_ANSWER_CHARS) {
      notShown += raw.length;
      return;
    }
    const whole = redactor ? redactor.push(raw) : raw;
    const text = clip(whole, MAX_ANSWER_CHARS - answer.length);
    answer += text;
    pendingText += text;
    if (text.length < whole.length) {
      notShown += whole.length - text.length;
      say({ kind: 'note', text: l10n.t('The answer is longer than {0} characters: the rest is not shown.', MAX_ANSWER_CHARS.toLocaleString()) });
    }
  };
  /** Steps and notes from the frames, up to MAX_SHOWN_PER_TURN, the rest counted; questions and their answers always. */
  const show = (u: TurnUpdate): boolean => {
    if (u.kind === 'question' || u.kind === 'questionAnswered') {
      say(u);
      return true;
    }
    if (shown >= MAX_SHOWN_PER_TURN) {
      hidden++;
      return false;
    }
    shown++;
    say(u);
    return true;
  };
  /** The end of the turn: text a redactor held back (it was not the token after all) is the answer's too. */
  const settle = (outcome: TurnOutcome): TurnOutcome => {
    if (unreadable > UNREADABLE_FRAMES_SAID) {
      say({ kind: 'note', text: l10n.t('{0} more frames could not be read and were skipped.', unreadable - UNREADABLE_FRAMES_SAID) });
    }
    if (hidden > 0) {
      say({ kind: 'note', text: l10n.t('{0} more steps and notes of the flow were not shown.', hidden.toLocaleString()) });
    }
    if (foreign > 0) {
      say({ kind: 'note', text: l10n.t('{0} frames of another conversation or turn were skipped.', foreign.toLocaleString()) });
    }
    const held = redactor?.flush() ?? '';
    const rest = clip(held, Math.max(0, MAX_ANSWER_CHARS - answer.length));
    notShown += held.length - rest.length;
    if (notShown > 0) {
      say({ kind: 'note', text: l10n.t('{0} characters of the answer are not shown (an answer is shown up to {1}).', notShown.toLocaleString(), MAX_ANSWER_CHARS.toLocaleString()) });
    }
    if (rest) {
      answer += rest;
      pendingText += rest;
      if ('answer' in outcome && outcome.kind !== 'completed') {
        outcome = { ...outcome, answer };
      }
    }
    flushText();
    return outcome;
  };
  let delay = options.retryDelayMs ?? 500;
  let lastId: string | undefined;
  const taken = new FrameIds();
  /** Frames that were not JSON: the first few said, the rest counted. */
  let unreadable = 0;
  let frames = 0;
  /** Characters of the answer not kept (MAX_ANSWER_CHARS): the history's count where it has the whole answer. */
  let notShown = 0;
  /** Steps and notes shown, and those past MAX_SHOWN_PER_TURN. */
  let shown = 0;
  let hidden = 0;
  /** Frames of another session or turn, skipped. */
  let foreign = 0;
  /** Characters of stream read in this turn (MAX_TURN_STREAM_CHARS). */
  let streamChars = 0;
  /**
   * Events (frames, unreadable ones) taken so far, counted along the stream: a stream without ids cannot be resumed,
   * so a reattached one replays the turn from its start, and that many of its first events are dropped.
   */
  let eventsTaken = 0;
  let answer = '';
  let sawToken = false;
  /**
   * Text shown from `llm_stream_chunk` frames before the first `token` frame, and how much of it the tokens have
   * repeated since: a flow that sends both kinds repeats its chunks as tokens, and the text must show once.
   */
  let chunkText = '';
  let chunkRepeated = 0;
  /** A token's text less what it repeats of the chunks shown before: where it says something else, the rest. */
  const newTokenText = (text: string): string => {
    let n = 0;
    while (n < text.length && chunkRepeated < chunkText.length && text.charCodeAt(n) === chunkText.charCodeAt(chunkRepeated)) {
      n++;
      chunkRepeated++;
    }
    if (n < text.length) {
      chunkText = ''; // The tokens went on past (or away from) the chunks: nothing more to match.
      chunkRepeated = 0;
    }
    return text.slice(n);
  };
  let failure: string | undefined;
  let attempts = 0;
  /** The history answered that the flow no longer knows the session: nothing left to follow. */
  let gone: ChatSessionGone | undefined;
  const historyNow = () =>
    api.history(signal).catch((e: unknown) => {
      if (e instanceof ChatSessionGone) {
        gone = e;
      }
      return undefined;
    });
  const forgotten = (g: ChatSessionGone): TurnOutcome => settle({ kind: 'failed', error: g.message, answer, sessionGone: true });

  const apply = (frame: ChatFrame): boolean => {
    const otherSession = frame.sessionId !== undefined && api.sessionId !== undefined && frame.sessionId !== api.sessionId;
    if (otherSession || (frame.kickoffId !== undefined && kickoffId !== undefined && frame.kickoffId !== kickoffId)) {
      foreign++;
      return false; // not this turn's: another session's, or an earlier turn's replayed
    }
    if (frame.id !== undefined) {
      if (!taken.accept(frame.id)) {
        return false; // a replay after a reattach
      }
      lastId = frame.id;
    }
    frames++;
    const data = frame.data;
    switch (frame.type) {
      case 'token': {
        const text = typeof data.content === 'string' ? newTokenText(data.content) : '';
        sawToken = true;
        if (text) {
          addText(text);
        }
        break;
      }
      case 'llm_stream_chunk': {
        // Shown only until a token comes (the tokens are preferred), and only text: a tool call's chunk holds its
        // arguments, not the answer.
        const toolCall = (typeof data.tool_call === 'object' && data.tool_call !== null) || data.call_type === 'tool_call';
        const text = typeof data.chunk === 'string' && !toolCall ? data.chunk : '';
        if (!sawToken && text) {
          if (chunkText.length < MAX_ANSWER_CHARS) {
            chunkText += text;
          }
          addText(text);
        }
        break;
      }
      case 'event': {
        const eventType = typeof data.event_type === 'string' ? data.event_type : 'event';
        if (/human_feedback_requested|awaiting|pending_human/i.test(eventType)) {
          const text = [data.message, data.question, data.prompt].find((v): v is string => typeof v === 'string' && v.trim() !== '');
          const flowId = typeof data.flow_id === 'string' && data.flow_id !== '' ? data.flow_id : undefined;
          waitingForHuman = show({ kind: 'question', id: frame.id ?? `q${frames}`, text: (text ?? '').slice(0, 4000), flowId }) || waitingForHuman;
          break;
        }
        if (/human_feedback_received|feedback_received/i.test(eventType)) {
          waitingForHuman = false;
          show({ kind: 'questionAnswered', feedback: typeof data.feedback === 'string' ? data.feedback.slice(0, 4000) : '' });
          break;
        }
        const tool = typeof data.tool_name === 'string' ? clip(data.tool_name, MAX_STEP_TITLE_CHARS) : undefined;
        const detail = [data.tool_args === undefined ? undefined : JSON.stringify(data.tool_args), typeof data.output === 'string' ? data.output : undefined]
          .filter(Boolean)
          .join(' → ');
        const event = clip(eventType, MAX_STEP_TITLE_CHARS);
        const title = clip(tool ? `${event}: ${tool}` : eventType, MAX_STEP_TITLE_CHARS);
        show({ kind: 'step', id: frame.id ?? `${frames}`, title, detail: clip(detail, 2000), event, ...(tool === undefined ? {} : { tool }) });
        break;
      }
      case 'turn_failed':
      case 'error': {
        failure = failureWords(frame) ?? 'The flow reported an error.';
        if (frame.type === 'error') {
          show({ kind: 'note', text: failure });
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
      // The history has the whole answer: its count of what is not shown is the one said.
      notShown = Math.max(0, reply.content.length - MAX_ANSWER_CHARS);
      return { kind: 'completed', answer: clip(reply.content, MAX_ANSWER_CHARS) };
    }
    return { kind: 'failed', error: l10n.t('The turn ended without an answer in the history.'), answer };
  };

  /**
   * The history says the turn is over. Where neither the stream nor the history said how (a turn that failed
   * before a stream could attach), the turn's status may still hold the failure's words.
   */
  const ended = async (history: ChatHistory): Promise<TurnOutcome> => {
    const outcome = final(history);
    if (outcome.kind === 'failed' && failure === undefined && kickoffId !== undefined && api.turnError) {
      const words = await api.turnError(kickoffId, signal).catch(() => undefined);
      if (words) {
        return settle({ kind: 'failed', error: words, answer });
      }
    }
    return settle(outcome);
  };

  /** A turn still running by the history: has it shown progress lately (a new message counts)? */
  const waitedTooLong = (history: ChatHistory | undefined): boolean => {
    if (waitingForHuman || (history && history.messages.length !== messagesSeen)) {
      messagesSeen = history?.messages.length ?? messagesSeen;
      lastProgress = now();
    }
    return now() - lastProgress >= maxWaitMs;
  };
  const gaveUp = (): TurnOutcome =>
    settle({
      kind: 'failed',
      error: l10n.t(
        'it has shown no progress for {0} minutes and its turn is still not over, so the panel stopped waiting. The flow may still finish: its answer will be in the history when you reopen the conversation.',
        Math.round(maxWaitMs / 60_000),
      ),
      answer,
    });

  const tooLarge = (): TurnOutcome =>
    settle({
      kind: 'failed',
      error: l10n.t(
        'it sent more than {0} MB for this turn, so the panel stopped reading it. The flow may still finish: its answer will be in the history when you reopen the conversation.',
        Math.round(MAX_TURN_STREAM_CHARS / (1024 * 1024)),
      ),
      answer,
    });

  for (;;) {
    if (signal.aborted) {
      return settle({ kind: 'cancelled', answer });
    }
    if (attempts <= retries) {
      if (attempts === 0) {
        say({ kind: 'mode', mode: 'streaming' });
      }
      let streamEnded = false;
      let stalled = false;
      /** The turn's stream passed MAX_TURN_STREAM_CHARS: it is not read any further. */
      let overflowed = false;
      /** Events of this connection, and how many of its first ones replay what was taken (a stream without ids). */
      let position = 0;
      const replayed = attempts > 0 && lastId === undefined ? eventsTaken : 0;
      /** One event of the stream: true when it ends the turn. */
      const take = (item: SseItem): boolean => {
        if (item.kind === 'keepalive' || ++position <= replayed) {
          return false;
        }
        eventsTaken = position;
        if (item.kind === 'frame') {
          lastProgress = now();
          return apply(item.frame);
        }
        if (++unreadable <= UNREADABLE_FRAMES_SAID) {
          say({ kind: 'note', text: l10n.t('Skipped a frame that could not be read ({0}).', item.text.slice(0, 80)) });
        }
        return false;
      };
      const streamAbort = new AbortController();
      const onAbort = () => streamAbort.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const parser = new SseParser();
        const stream = await api.stream(lastId, streamAbort.signal);
        redactor ??= stream.pieceRedactor?.();
        const iterator = stream[Symbol.asyncIterator]();
        let keepalives = 0;
        for (;;) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          const next = waitingForHuman
            ? await iterator.next()
            : await Promise.race([iterator.next(), new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), stallMs)))]).finally(() =>
                clearTimeout(timer),
              );
          if (next === 'stalled' || next.done) {
            stalled = next === 'stalled';
            break;
          }
          streamChars += next.value.length;
          if (streamChars > MAX_TURN_STREAM_CHARS) {
            overflowed = true;
            break;
          }
          for (const item of parser.feed(next.value)) {
            if (item.kind !== 'keepalive') {
              keepalives = 0;
              streamEnded = take(item) || streamEnded;
            } else if (++keepalives >= stallKeepalives && !waitingForHuman) {
              stalled = true;
            }
            if (streamEnded) {
              break;
            }
          }
          flushText();
          if (streamEnded || stalled) {
            break;
          }
        }
        if (stalled || overflowed) {
          // Close the connection and read the history; while the turn runs, reattach (a long tool call also looks
          // like this, and its later frames, a question among them, only come by the stream), then poll.
          streamAbort.abort();
          void iterator.return?.().catch(() => undefined);
          if (stalled && !saidStall) {
            saidStall = true;
            say({
              kind: 'note',
              text: l10n.t('The stream stopped sending the answer (only keepalives came); following the turn through its history instead.'),
            });
          }
        } else if (!streamEnded) {
          for (const item of parser.end()) {
            streamEnded = take(item) || streamEnded;
          }
          flushText();
        }
      } catch (e) {
        flushText();
        if (signal.aborted) {
          return settle({ kind: 'cancelled', answer });
        }
        void e; // Whatever broke the stream, /history says whether a turn is still there to reattach to.
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      if (streamEnded && failure !== undefined) {
        return settle({ kind: 'failed', error: failure, answer });
      }
      if (overflowed) {
        // A turn's stream is bounded: what it sent is not read further, and its end is not awaited.
        const history = await historyNow();
        return gone ? forgotten(gone) : history && history.activeKickoffId === null ? ended(history) : tooLarge();
      }
      const history = await historyNow();
      if (gone) {
        return forgotten(gone);
      }
      if (history && history.activeKickoffId === null) {
        return ended(history);
      }
      // The stream said the turn is over: only the history is left to settle (it may lag a moment).
      attempts = streamEnded ? retries + 1 : attempts + 1;
      if (attempts <= retries) {
        say({ kind: 'mode', mode: 'reconnecting' }); // said before the wait: the wait is what the user sees
        await options.sleep(delay, signal).catch(() => undefined);
        delay = Math.min(delay * 2, 8000);
        continue;
      }
      if (!streamEnded) {
        say({ kind: 'mode', mode: 'polling' });
      }
    }
    await options.sleep(options.pollIntervalMs ?? 1000, signal).catch(() => undefined);
    if (signal.aborted) {
      return settle({ kind: 'cancelled', answer });
    }
    const history = await historyNow();
    if (gone) {
      return forgotten(gone);
    }
    if (history && history.activeKickoffId === null) {
      return ended(history);
    }
    if (waitedTooLong(history)) {
      return gaveUp();
    }
  }
}
