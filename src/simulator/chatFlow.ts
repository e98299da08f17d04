// A conversational flow (flow-chat.md): GET /inspect, POST /chat/start, POST /chat/{id}/message (409 while a
// turn runs), GET /chat/{id}/history, the SSE stream GET /chat/{id}/stream/events (ids, keepalives, token and
// event frames, last_event_id) and POST /resume_feedback. Keywords in a message make a turn fail (`#fail`), cut
// the streams half way (`#drop`), pause for approval (`#approve`), or make the send itself answer 500 without
// taking the message (`#500`), so every recovery path of a client can be tried offline. Faults of issue 38: a
// frame that is not JSON and one of an unknown type (`#garbage`), a stream of keepalives only while the turn goes
// on (`#stall`), a turn that never ends (`#hang`), the caller's token echoed in the answer (`#echo`), a turn that
// fails before a stream can attach (`#failfast`, its words in GET /status/{kickoff_id} only). Issue 47: frames
// without any id, so that a reattached stream replays the turn from its start (`#noids`), and frames of another
// session and of another turn first on the stream (`#foreign`). Issue 46: both kinds of text frame, an
// `llm_stream_chunk` before each `token` of the same text and a tool call's chunk first (`#chunks`); a message
// taken and answered at once whose reply to the send is lost (a gateway's 502), listed in the history a moment
// later and trimmed (`#late`): a client cannot tell that it was not sent; a message refused with a 422 (`#refuse`).

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainObject } from '../util/objects';
import { parseJson, readBody, send } from './http';
import type { Pipeline, RequestContext } from './pipelineTypes';
import type { ChatFlowConfig } from './types';
import type { CrewState } from './world';

interface Frame {
  id: string;
  text: string;
}

interface ChatSession {
  id: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
  activeKickoffId: string | null;
  /** Frames of the running turn (a stream that attaches late or resumes replays them). */
  frames: Frame[];
  streams: Set<ServerResponse>;
  seq: number;
  base: number;
  /** The running turn's message (its keywords choose its faults). */
  turnMessage: string;
  /** Set while the turn waits for POST /resume_feedback. */
  awaitingFeedback?: (feedback: string) => void;
  /** Set while a cut turn waits for a stream to attach again (dropWaitsForReattach). */
  awaitingStream?: () => void;
}

const sessionsOf = new WeakMap<CrewState, Map<string, ChatSession>>();

/**
 * As a restarted deployment: every chat session of the crew forgotten (their routes answer 404), their streams
 * closed and their running turns left to die. Returns how many there were.
 */
export function forgetChatSessions(crew: CrewState): number {
  const sessions = sessionsOf.get(crew);
  const count = sessions?.size ?? 0;
  for (const session of sessions?.values() ?? []) {
    session.streams.forEach((stream) => stream.end());
    session.awaitingFeedback = undefined;
  }
  sessions?.clear();
  return count;
}

/** How each chat turn ended, for GET /status/{kickoff_id} of a chat turn. */
interface TurnRecord {
  state: 'running' | 'completed' | 'failed';
  answer?: string;
  error?: string;
}
const turnsOf = new WeakMap<CrewState, Map<string, TurnRecord>>();
const turns = (crew: CrewState) => {
  let map = turnsOf.get(crew);
  if (!map) {
    map = new Map();
    turnsOf.set(crew, map);
  }
  return map;
};

export const DEFAULT_CHAT_ANSWER =
  'Thanks for your message: "{message}". Here is what I found. The knowledge base has three articles that match, and the most ' +
  'recent one says the feature is available to every plan. You can turn it on from the settings page, under Workspace, ' +
  'and it takes effect for everyone in a minute or two. Ask me again if anything is unclear.';

/** True when the pipeline should hand the request to this module. */
export function isChatRequest(crew: CrewState, rest: string[]): boolean {
  return (
    crew.config.chat !== undefined &&
    (rest[0] === 'inspect' || rest[0] === 'chat' || rest[0] === 'resume_feedback' || (rest[0] === 'status' && rest.length === 2 && turns(crew).has(decodeURIComponent(rest[1]))))
  );
}

const json = (res: ServerResponse, status: number, body: object) => send(res, { status, body });

export async function handleChat(pipeline: Pipeline, req: IncomingMessage, res: ServerResponse, ctx: RequestContext, crew: CrewState): Promise<void> {
  const config = crew.config.chat ?? {};
  if (ctx.tokenKind !== 'org' && ctx.tokenKind !== 'user') {
    return json(res, 401, { detail: 'Invalid or missing authentication credentials' });
  }
  let sessions = sessionsOf.get(crew);
  if (!sessions) {
    sessions = new Map();
    sessionsOf.set(crew, sessions);
  }
  const [first, sessionId, action, sub] = ctx.rest;
  if (first === 'status' && ctx.method === 'GET') {
    const kickoffId = decodeURIComponent(sessionId);
    const turn = turns(crew).get(kickoffId)!;
    return turn.state === 'running'
      ? json(res, 409, { detail: { code: 'session_busy', kickoff_id: kickoffId } })
      : json(res, 200, { state: turn.state === 'failed' ? 'FAILED' : 'SUCCESS', status: turn.state, result: turn.answer ?? null, error: turn.error ?? null });
  }
  if (first === 'inspect' && ctx.rest.length === 1) {
    return ctx.method === 'GET'
      ? json(res, 200, {
          flow: {
            chat: { conversational: true, handle_turn: true, transports: ['webhook'], experimental: true },
            // More than `chat`: clients must neither show nor store it.
            internals: { state_schema: 'ChatState', secret_hint: 'not for clients' },
          },
        })
      : json(res, 405, { detail: 'Method Not Allowed' });
  }
  if (first === 'resume_feedback' && ctx.rest.length === 1 && ctx.method === 'POST') {
    const body = parseJson((await readBody(req)) ?? '');
    const value = body.ok && isPlainObject(body.value) ? body.value : {};
    const flowId = typeof value.flow_id === 'string' ? value.flow_id : '';
    const feedback = typeof value.feedback === 'string' ? value.feedback : '';
    const session = sessions.get(flowId);
    if (!session?.awaitingFeedback) {
      return json(res, 400, { detail: 'No pending human feedback for this flow' });
    }
    session.awaitingFeedback(feedback);
    return json(res, 200, { status: 'resumed', flow_id: flowId });
  }
  if (first !== 'chat') {
    return json(res, 404, { detail: 'Not Found' });
  }
  if (sessionId === 'start' && ctx.rest.length === 2 && ctx.method === 'POST') {
    await readBody(req);
    const session: ChatSession = { id: randomUUID(), messages: [], activeKickoffId: null, frames: [], streams: new Set(), seq: 0, base: Date.now(), turnMessage: '' };
    sessions.set(session.id, session);
    return json(res, 200, { session_id: session.id });
  }
  const session = sessionId === undefined ? undefined : sessions.get(sessionId);
  if (!session) {
    return json(res, 404, { detail: 'Chat session not found' });
  }
  if (action === 'message' && ctx.rest.length === 3 && ctx.method === 'POST') {
    const body = parseJson((await readBody(req)) ?? '');
    const message = body.ok && isPlainObject(body.value) && typeof body.value.message === 'string' ? body.value.message : undefined;
    if (message === undefined || message.trim() === '') {
      return json(res, 422, { detail: 'message is required' });
    }
    if (session.activeKickoffId !== null) {
      return json(res, 409, { detail: 'A turn is already running in this session' });
    }
    if (message.includes(config.messageErrorKeyword ?? '#500')) {
      return json(res, 500, { detail: 'Simulated: the chat service could not queue the message' });
    }
    if (message.includes(REFUSE_KEYWORD)) {
      return json(res, 422, { detail: 'Simulated: the flow refused the message' });
    }
    if (message.includes(LATE_KEYWORD)) {
      const kickoffId = randomUUID();
      const answer = (config.answer ?? DEFAULT_CHAT_ANSWER).split('{message}').join(message.trim());
      turns(crew).set(kickoffId, { state: 'completed', answer });
      void pipeline.sleep(LATE_MS * pipeline.world.timeScale).then(
        () => session.messages.push({ role: 'user', content: message.trim() }, { role: 'assistant', content: answer }),
        () => undefined,
      );
      return send(res, { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'Content-Type': 'text/html' } });
    }
    const kickoffId = randomUUID();
    session.activeKickoffId = kickoffId;
    session.frames = [];
    session.turnMessage = message;
    session.messages.push({ role: 'user', content: message });
    const token = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    const record: TurnRecord = { state: 'running' };
    turns(crew).set(kickoffId, record);
    void runTurn(pipeline, config, session, kickoffId, message, token, record);
    return json(res, 200, { session_id: session.id, kickoff_id: kickoffId, status: 'queued' });
  }
  if (action === 'history' && ctx.rest.length === 3 && ctx.method === 'GET') {
    return json(res, 200, { session_id: session.id, messages: session.messages, active_kickoff_id: session.activeKickoffId });
  }
  if (action === 'stream' && sub === 'events' && ctx.rest.length === 4 && ctx.method === 'GET') {
    if (config.streamUnavailable) {
      return send(res, { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'Content-Type': 'text/html' } });
    }
    if (session.activeKickoffId === null) {
      return json(res, 409, { detail: 'No active chat turn' });
    }
    const query = new URL(req.url ?? '/', 'http://simulator.invalid').searchParams;
    const header = req.headers['last-event-id'];
    const after = query.get('last_event_id') ?? (typeof header === 'string' ? header : undefined);
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    res.write(': connected\n\n');
    const stalled = message(session.turnMessage, config.stallKeyword ?? '#stall');
    for (const frame of stalled ? [] : session.frames) {
      if (after === undefined || compareStreamIds(frame.id, after) > 0) {
        res.write(frame.text);
      }
    }
    if (!stalled) {
      session.streams.add(res);
      session.awaitingStream?.();
    }
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), Math.max(50, (config.keepaliveMs ?? 15_000) * pipeline.world.timeScale));
    res.on('close', () => {
      clearInterval(keepalive);
      session.streams.delete(res);
    });
    return;
  }
  return json(res, 404, { detail: 'Not Found' });
}

const message = (text: string, keyword: string) => text.includes(keyword);

/** Frames without ids: a client cannot resume, and a reattached stream replays the turn from its start. */
const NO_IDS_KEYWORD = '#noids';
/** First on the stream, a frame of another session and the end of another turn: a client must skip both. */
const FOREIGN_KEYWORD = '#foreign';
/** Refused (422): nothing taken, as a client can tell. */
const REFUSE_KEYWORD = '#refuse';
/** Taken and answered at once, the reply to the send lost, listed LATE_MS later and trimmed. */
const LATE_KEYWORD = '#late';
const LATE_MS = 1500;
/** Each piece of the answer as a chunk, then as a token (some deployments send both); first, a tool call's chunk. */
const CHUNKS_KEYWORD = '#chunks';

/**
 * Where the tool call (and a pause for approval, whose reply is spoken there) goes: the start of the sentence
 * nearest to a third of the answer (outside quotes), so that the reply never cuts a sentence; a third of the way in when the
 * answer is a single sentence.
 */
export function sentenceBreak(tokens: readonly string[]): number {
  const third = Math.floor(tokens.length / 3);
  let best = -1;
  let quoted = false; // inside a quotation (the user's own message quoted): its sentences are not the answer's
  for (let i = 1; i < tokens.length; i++) {
    quoted = (tokens[i - 1].split('"').length - 1) % 2 === 1 ? !quoted : quoted;
    if (!quoted && /[.!?]["'”)\]]*\s*$/.test(tokens[i - 1]) && (best < 0 || Math.abs(i - third) < Math.abs(best - third))) {
      best = i;
    }
  }
  return best < 0 ? third : best;
}

/** Orders `<ms>-<seq>` ids; anything else sorts before them. */
export function compareStreamIds(a: string, b: string): number {
  const pa = /^(\d+)-(\d+)$/.exec(a);
  const pb = /^(\d+)-(\d+)$/.exec(b);
  if (!pa || !pb) {
    return pa ? 1 : pb ? -1 : 0;
  }
  return Number(pa[1]) - Number(pb[1]) || Number(pa[2]) - Number(pb[2]);
}

/** Bytes as they are, not a frame of ours (a broken or foreign writer on the same stream). */
function writeRaw(session: ChatSession, text: string): void {
  session.frames.push({ id: '', text });
  for (const stream of session.streams) {
    stream.write(text);
  }
}

function emit(session: ChatSession, kickoffId: string, type: string, data: object, end = false, sessionId = session.id): void {
  const id = `${session.base}-${++session.seq}`;
  const text = message(session.turnMessage, NO_IDS_KEYWORD)
    ? `data: ${JSON.stringify({ type, kickoff_id: kickoffId, session_id: sessionId, data })}\n\n`
    : `id: ${id}\ndata: ${JSON.stringify({ id, type, kickoff_id: kickoffId, session_id: sessionId, data })}\n\n`;
  session.frames.push({ id, text });
  for (const stream of session.streams) {
    stream.write(text);
    if (end) {
      stream.end();
    }
  }
}

async function runTurn(pipeline: Pipeline, config: ChatFlowConfig, session: ChatSession, kickoffId: string, message: string, token: string, record: TurnRecord): Promise<void> {
  const has = (keyword: string) => message.includes(keyword);
  const interval = (config.tokenIntervalMs ?? 40) * pipeline.world.timeScale;
  const echo = has(config.echoKeyword ?? '#echo');
  const answer = (config.answer ?? DEFAULT_CHAT_ANSWER).split('{message}').join(message);
  const tokens = answer.match(/\S+\s*/g) ?? [answer];
  if (echo && token.length >= 4) {
    // Half way through, the token cut in the middle over two frames (as a model's tokens would cut it).
    tokens.splice(tokens.length >> 1, 0, 'Your key is ', token.slice(0, token.length >> 1), `${token.slice(token.length >> 1)}, `, 'keep it safe. ');
  }
  const fail = has(config.failKeyword ?? '#fail');
  const drop = has(config.dropKeyword ?? '#drop');
  const approve = has(config.approveKeyword ?? '#approve');
  const garbage = has(config.garbageKeyword ?? '#garbage');
  const hang = has(config.hangKeyword ?? '#hang');
  const burst = Math.max(1, config.burst ?? 1);
  const pause = sentenceBreak(tokens);
  let said = '';
  if (has(config.failFastKeyword ?? '#failfast')) {
    record.state = 'failed';
    record.error = 'Simulated fast failure: the flow raised KeyError in handle_turn before its first token';
    emit(session, kickoffId, 'turn_failed', { error: record.error }, true);
    session.activeKickoffId = null;
    return;
  }
  await pipeline.sleep(interval);
  if (has(FOREIGN_KEYWORD)) {
    emit(session, kickoffId, 'token', { content: 'Not this conversation\'s words. ' }, false, randomUUID());
    emit(session, randomUUID(), 'turn_completed', { status: 'completed' });
  }
  emit(session, kickoffId, 'turn_started', { status: 'running' });
  const chunksFirst = has(CHUNKS_KEYWORD);
  if (chunksFirst) {
    const args = JSON.stringify({ query: message.slice(0, 200) });
    emit(session, kickoffId, 'llm_stream_chunk', { chunk: args, tool_call: { id: 'call_1', function: { name: 'search_knowledge_base', arguments: args } }, call_type: 'tool_call' });
  }
  for (let i = 0; i < tokens.length; i++) {
    if (pipeline.closed()) {
      return;
    }
    if (garbage && i === Math.floor(tokens.length / 3)) {
      writeRaw(session, 'data: {"type": "token", "data": {"content": "half a frame\n\n');
      emit(session, kickoffId, 'agent_thinking_v2', { thought: 'a frame type this client does not know' });
    }
    if (echo && i === Math.floor(tokens.length / 3)) {
      emit(session, kickoffId, 'event', { event_type: 'tool_usage_finished', tool_name: 'read_env', tool_args: { name: 'AUTH' }, output: `Authorization: Bearer ${token}` });
    }
    if (i === pause) {
      emit(session, kickoffId, 'event', {
        event_type: 'tool_usage_finished',
        tool_name: 'search_knowledge_base',
        tool_args: { query: message.slice(0, 200) },
        output: '3 articles found',
      });
      if (approve) {
        const feedback = await new Promise<string>((resolve) => {
          session.awaitingFeedback = resolve;
          emit(session, kickoffId, 'event', { event_type: 'human_feedback_requested', message: 'May I apply this change to your workspace?' });
        });
        session.awaitingFeedback = undefined;
        const reply = feedback === 'approved' ? 'Approved, applying it now. ' : `Understood, I will take this into account: ${feedback}. `;
        emit(session, kickoffId, 'event', { event_type: 'human_feedback_received', feedback });
        for (const word of reply.match(/\S+\s*/g) ?? []) {
          said += word;
          emit(session, kickoffId, 'token', { content: word });
        }
      }
    }
    if (fail && i === 3) {
      record.state = 'failed';
      record.error = 'Simulated failure: the flow raised ValueError in handle_turn';
      emit(session, kickoffId, 'turn_failed', { error: record.error }, true);
      session.activeKickoffId = null;
      return;
    }
    if (drop && i === Math.floor(tokens.length / 2)) {
      const streamAttaches = () => new Promise<void>((resolve) => (session.awaitingStream = resolve)).finally(() => (session.awaitingStream = undefined));
      if (config.dropWaitsForReattach && session.streams.size === 0) {
        await streamAttaches(); // A stream to cut.
      }
      for (const stream of session.streams) {
        stream.socket?.destroy();
      }
      if (config.dropWaitsForReattach) {
        await streamAttaches();
      }
    }
    said += tokens[i];
    if (chunksFirst) {
      emit(session, kickoffId, 'llm_stream_chunk', { chunk: tokens[i], tool_call: null, call_type: 'llm_call' });
    }
    emit(session, kickoffId, 'token', { content: tokens[i] });
    if (config.sendChunks) {
      emit(session, kickoffId, 'llm_stream_chunk', { chunk: tokens[i] });
    }
    if ((i + 1) % burst === 0 || i === tokens.length - 1) {
      await pipeline.sleep(interval);
    }
  }
  if (hang) {
    return; // active_kickoff_id stays set; nothing more is ever written.
  }
  record.state = 'completed';
  record.answer = said;
  session.messages.push({ role: 'assistant', content: said });
  session.activeKickoffId = null;
  emit(session, kickoffId, 'turn_completed', { status: 'completed' }, true);
}
