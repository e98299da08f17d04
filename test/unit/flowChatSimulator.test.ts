// The simulator's conversational flow (src/simulator/chatFlow.ts) over real HTTP, with node's fetch.

import * as assert from 'node:assert/strict';
import { CrewClient } from '../../src/api/client';
import { sessionApi, startSession } from '../../src/flowChat/chatApi';
import { ChatSessionGone, runTurn, type TurnUpdate } from '../../src/flowChat/turn';
import { DEFAULT_CHAT_ANSWER, sentenceBreak } from '../../src/simulator/chatFlow';
import { startSimulator, type Simulator } from '../../src/simulator/server';

const TOKEN = 'org-chat';

describe('Simulator: conversational flow', function () {
  let sim: Simulator;
  let base: string;
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** The data frames of one stream read to its end (the turn's end closes it). */
  const readStream = async (sessionId: string, lastEventId?: string) => {
    const query = lastEventId ? `?events=*&last_event_id=${lastEventId}` : '?events=*';
    const response = await fetch(`${base}/chat/${sessionId}/stream/events${query}`, { headers: { ...headers, accept: 'text/event-stream' } });
    const text = await response.text();
    const frames = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { id: string; type: string; data: Record<string, unknown> });
    return { status: response.status, text, frames };
  };
  const startTurn = async (message: string) => {
    const { body } = await call('POST', '/chat/start');
    const sessionId = String(body.session_id);
    const sent = await call('POST', `/chat/${sessionId}/message`, { message, stream: true });
    assert.equal(sent.status, 200);
    return sessionId;
  };

  beforeEach(async () => {
    sim = await startSimulator({
      crews: [{ id: 'chat', name: 'Chat', kind: 'flow', inputs: [], orgToken: TOKEN, tasks: [], chat: { tokenIntervalMs: 3, answer: 'one two three four five six seven eight nine ten' } }],
    });
    base = sim.crewUrl('chat');
  });
  afterEach(() => sim.close());

  it('says in /inspect that it chats, and asks for the token', async () => {
    const inspect = await call('GET', '/inspect');
    assert.equal(inspect.status, 200);
    assert.equal((inspect.body.flow as { chat: { conversational: boolean } }).chat.conversational, true);
    const anonymous = await fetch(`${base}/inspect`);
    assert.equal(anonymous.status, 401);
  });

  it('streams a turn with ids, a tool event and its end; answers 409 while busy; history holds the answer', async () => {
    const sessionId = await startTurn('hello');
    const busy = await call('POST', `/chat/${sessionId}/message`, { message: 'again', stream: true });
    assert.equal(busy.status, 409);
    const { frames, text } = await readStream(sessionId);
    assert.match(text, /^: connected/);
    assert.ok(frames.every((f) => /^\d+-\d+$/.test(f.id)), 'every frame has a stream id');
    assert.deepEqual([frames[0].type, frames.at(-1)?.type], ['turn_started', 'turn_completed']);
    assert.ok(frames.some((f) => f.type === 'event' && f.data.event_type === 'tool_usage_finished'));
    const answer = frames.filter((f) => f.type === 'token').map((f) => f.data.content).join('');
    assert.equal(answer, 'one two three four five six seven eight nine ten');
    const history = await call('GET', `/chat/${sessionId}/history`);
    assert.deepEqual(history.body.messages, [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: answer },
    ]);
    assert.equal(history.body.active_kickoff_id, null);
    assert.equal((await readStream(sessionId)).status, 409, 'no turn to attach to');
  });

  it('replays only the frames after last_event_id', async () => {
    sim.updateCrew('chat', { chat: { tokenIntervalMs: 30, answer: 'one two three four five six seven eight nine ten' } });
    const sessionId = await startTurn('hello');
    const controller = new AbortController();
    const response = await fetch(`${base}/chat/${sessionId}/stream/events?events=*`, { headers, signal: controller.signal });
    const reader = response.body!.getReader();
    let seen = '';
    while (!/"type":"token"[^\n]*\n\n[\s\S]*"type":"token"/.test(seen)) {
      seen += new TextDecoder().decode((await reader.read()).value);
    }
    controller.abort();
    const ids = [...seen.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]);
    const resumed = await readStream(sessionId, ids.at(-1));
    assert.ok(resumed.frames.every((f) => !ids.includes(f.id)), 'no frame seen before comes again');
    assert.equal(resumed.frames.at(-1)?.type, 'turn_completed');
  });

  it('fails a turn on #fail and cuts the stream once on #drop', async () => {
    const failed = await readStream(await startTurn('please #fail'));
    assert.equal(failed.frames.at(-1)?.type, 'turn_failed');
    const dropped = await startTurn('please #drop');
    const cut = await readStream(dropped).catch(() => undefined);
    assert.ok(!cut || cut.frames.at(-1)?.type !== 'turn_completed', 'the first stream does not reach the end');
  });

  it('answers 500 to a message holding #500 without taking it: no turn, nothing in the history', async () => {
    const { body } = await call('POST', '/chat/start');
    const sessionId = String(body.session_id);
    const refused = await call('POST', `/chat/${sessionId}/message`, { message: 'please #500', stream: true });
    assert.equal(refused.status, 500);
    assert.match(String(refused.body.detail), /could not queue the message/);
    const history = await call('GET', `/chat/${sessionId}/history`);
    assert.deepEqual([history.body.messages, history.body.active_kickoff_id], [[], null]);
    assert.equal((await call('POST', `/chat/${sessionId}/message`, { message: 'please', stream: true })).status, 200, 'the next message is taken');
  });

  /** One turn through the extension's own crew client and chat routes (flowChat/chatApi.ts). */
  const clientTurn = async (message: string, crewUrl = base) => {
    const client = new CrewClient({ getToken: async () => TOKEN });
    try {
      const sessionId = await startSession(client, crewUrl);
      const updates: TurnUpdate[] = [];
      const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, 5)));
      const outcome = await runTurn(sessionApi(client, crewUrl, 'Chat', sessionId), message, (u) => updates.push(u), { sleep, retryDelayMs: 5, pollIntervalMs: 5 }, new AbortController().signal);
      const text = updates.flatMap((u) => (u.kind === 'text' ? [u.text] : [])).join('');
      return { outcome, updates, text };
    } finally {
      await client.dispose();
    }
  };

  it('#noids #drop (issue 47): a stream without ids, cut half way, replays the turn on the reattach; the client takes it once', async () => {
    // A flow whose turn is still running when the client reattaches, however slow the client: with no pause between
    // tokens, a flow that went on at once would be done before the reattach, and its answer would come from /history.
    const slowClient = await startSimulator({
      crews: [{ id: 'chat', name: 'Chat', kind: 'flow', inputs: [], orgToken: TOKEN, tasks: [], chat: { tokenIntervalMs: 0, dropWaitsForReattach: true, answer: 'one two three four five six seven eight nine ten' } }],
    });
    const { outcome, updates, text } = await clientTurn('please #noids #drop', slowClient.crewUrl('chat')).finally(() => slowClient.close());
    const answer = 'one two three four five six seven eight nine ten';
    assert.equal(text, answer, 'no text twice');
    assert.equal(updates.filter((u) => u.kind === 'step').length, 1, 'the tool step once');
    assert.ok(updates.some((u) => u.kind === 'mode' && u.mode === 'reconnecting'), 'the stream was cut and reattached');
    assert.deepEqual(outcome, { kind: 'completed', answer });
  });

  it('#late (issue 46): the reply to the send lost (502) while the flow took it and is done: uncertain through the client, not yet listed', async () => {
    const { outcome } = await clientTurn('Book the room #late ');
    assert.equal(outcome.kind, 'uncertain');
    assert.ok(outcome.kind === 'uncertain' && /502/.test(outcome.error) && outcome.knownMessages === 0, JSON.stringify(outcome));
    const posts = sim.requestLog.entries.filter((e) => e.method === 'POST' && e.path.endsWith('/message'));
    assert.deepEqual(posts.map((e) => e.status), [502], 'sent once');
  });

  it('#chunks (issue 46): a tool call\'s chunk, then each piece as a chunk and a token; the client shows the text once', async () => {
    const sessionId = await startTurn('please #chunks');
    const { frames } = await readStream(sessionId);
    const kinds = frames.filter((f) => f.type === 'token' || f.type === 'llm_stream_chunk').map((f) => f.type);
    assert.equal(kinds[0], 'llm_stream_chunk');
    assert.equal(frames.find((f) => f.type === 'llm_stream_chunk')?.data.call_type, 'tool_call');
    assert.deepEqual(kinds.slice(1, 5), ['llm_stream_chunk', 'token', 'llm_stream_chunk', 'token']);
    const { outcome, text } = await clientTurn('again #chunks');
    const answer = 'one two three four five six seven eight nine ten';
    assert.equal(text, answer, 'no text twice, no tool call arguments');
    assert.deepEqual(outcome, { kind: 'completed', answer });
  });

  it('#foreign (issue 47): a frame of another session and the end of another turn are skipped, and said', async () => {
    const { outcome, updates, text } = await clientTurn('please #foreign');
    const answer = 'one two three four five six seven eight nine ten';
    assert.equal(text, answer);
    assert.deepEqual(outcome, { kind: 'completed', answer });
    assert.ok(updates.some((u) => u.kind === 'note' && /^2 frames of another conversation or turn were skipped/.test(u.text)));
    assert.ok(!updates.some((u) => u.kind === 'mode' && u.mode === 'reconnecting'), 'the other turn\'s end did not end this one\'s stream');
  });

  it('a flow that restarted (issue 52) forgets its sessions: 404 on their routes; the client says the session is gone, sent once', async () => {
    const { body } = await call('POST', '/chat/start');
    const sessionId = String(body.session_id);
    assert.equal(sim.forgetChatSessions('chat'), 1);
    assert.equal((await call('GET', `/chat/${sessionId}/history`)).status, 404);
    const client = new CrewClient({ getToken: async () => TOKEN });
    try {
      const api = sessionApi(client, base, 'Chat', sessionId);
      const sleep = () => Promise.resolve();
      const outcome = await runTurn(api, 'still there?', () => undefined, { sleep }, new AbortController().signal);
      assert.equal(outcome.kind, 'notSent');
      assert.equal(outcome.kind === 'notSent' && outcome.sessionGone, true, JSON.stringify(outcome));
      await assert.rejects(api.history(new AbortController().signal), (e: unknown) => e instanceof ChatSessionGone);
    } finally {
      await client.dispose();
    }
    const posts = sim.requestLog.entries.filter((e) => e.method === 'POST' && e.path.endsWith('/message'));
    assert.deepEqual(posts.map((e) => e.status), [404]);
  });

  it('the pause for approval (issue 52) comes between two sentences of the answer, never inside the quoted message; a third in when there is one sentence', () => {
    const words = (text: string) => text.match(/\S+\s*/g) ?? [];
    const demo = words(DEFAULT_CHAT_ANSWER.split('{message}').join('Is it on? Tell me. #approve'));
    const at = sentenceBreak(demo);
    assert.match(demo[at - 1], /[.!?]\s*$/);
    assert.match(demo[at], /^[A-Z]/);
    assert.ok(!demo.slice(0, at).join('').endsWith('on? ') && !demo.slice(0, at).join('').endsWith('me. '), 'not inside the quoted message');
    assert.ok(at > 0 && at < demo.length - 1);
    const one = words('one two three four five six seven eight nine ten');
    assert.equal(sentenceBreak(one), 3);
  });
});
