// Issue 46, an uncertain send stays uncertain (src/flowChat/turn.ts, chatApi.ts, chat/flowChatTool.ts), in plain
// Node: a message that may have reached the flow is never called "not sent" (a flow may store it trimmed, or list
// it late and end its turn at once), never resent, and Check (findDelivery, followDelivery) reads the history for it.

import * as assert from 'node:assert/strict';
import { CrewApiError } from '../../src/api/errors';
import type { CrewApi } from '../../src/api/client';
import { chatConfirmed, chatTurnText, prepareChat, type ChatToolDeps } from '../../src/chat/flowChatTool';
import type { Crew } from '../../src/crews/crewConfig';
import { sessionApi } from '../../src/flowChat/chatApi';
import { ChatSendError, type ChatHistory, findDelivery, followDelivery, runTurn, type TurnApi, type TurnUpdate } from '../../src/flowChat/turn';
import { FakeChat } from './flowChat.test';
import { tempSends } from './helpers/tempSends';

const options = { sleep: async () => undefined, streamRetries: 1, retryDelayMs: 1, pollIntervalMs: 1, maxWaitMs: 1000 };
const signal = new AbortController().signal;

/**
 * A flow whose reply to the send is lost (a gateway's 502 after the flow took the message): it stores the message
 * trimmed, answers at once (no turn running by the time the client looks) and, while `late`, lists neither yet.
 */
class LostReply implements TurnApi {
  messages: ChatHistory['messages'] = [];
  active: string | null = null;
  late = false;
  sends = 0;
  private listing: ChatHistory['messages'] = [];
  streams = 0;
  constructor(private readonly answer: string) {}

  async send(message: string): Promise<{ kickoffId?: string }> {
    this.sends++;
    this.listing = [
      { role: 'user', content: message.trim() },
      { role: 'assistant', content: this.answer },
    ];
    if (!this.late) {
      this.list();
    }
    throw new ChatSendError('uncertain', 'Bad gateway (502).');
  }
  list() {
    this.messages.push(...this.listing);
    this.listing = [];
  }
  async history(): Promise<ChatHistory> {
    return { messages: [...this.messages], activeKickoffId: this.active };
  }
  async stream(): Promise<AsyncIterable<string>> {
    this.streams++;
    throw Object.assign(new Error('No active chat turn'), { status: 409 });
  }
}

async function turn(api: TurnApi, message: string) {
  const updates: TurnUpdate[] = [];
  const outcome = await runTurn(api, message, (u) => updates.push(u), options, signal);
  return { outcome, updates };
}

describe('Flow chat: an uncertain send stays uncertain (issue 46)', () => {
  it('a 5xx whose message the history does not show, no turn running: uncertain (it may be listed late), never "not sent", never resent', async () => {
    const chat = new FakeChat(['x']);
    chat.messages.push({ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'reply' });
    chat.sendError = new ChatSendError('uncertain', 'Chatty had a server error (500).');
    const { outcome } = await turn(chat, 'hi');
    assert.deepEqual(outcome, { kind: 'uncertain', error: 'Chatty had a server error (500).', knownMessages: 2 });
    assert.deepEqual(chat.sent, []);
    assert.deepEqual(chat.streamCalls, [], 'nothing followed');
  });

  it('a flow that stores the message trimmed and ends its turn at once: the message is found, its answer is the outcome', async () => {
    const api = new LostReply('Booked for 3 pm.');
    const { outcome } = await turn(api, '  Book the room for 3 pm \n');
    assert.deepEqual(outcome, { kind: 'completed', answer: 'Booked for 3 pm.' });
    assert.equal(api.sends, 1, 'sent once');
  });

  it('a flow that lists it late: uncertain; Check before the listing says so, after it finds the message and its answer', async () => {
    const api = new LostReply('Booked.');
    api.late = true;
    const { outcome } = await turn(api, 'Book the room ');
    assert.deepEqual(outcome, { kind: 'uncertain', error: 'Bad gateway (502).', knownMessages: 0 });
    assert.deepEqual(await findDelivery(api, 'Book the room ', 0, signal), { kind: 'notListed', turnRunning: false });
    api.list();
    const found = await findDelivery(api, 'Book the room ', 0, signal);
    assert.ok(found.kind === 'listed');
    const updates: TurnUpdate[] = [];
    assert.deepEqual(await followDelivery(api, found, (u) => updates.push(u), options, signal), { kind: 'completed', answer: 'Booked.' });
    assert.equal(api.sends, 1, 'Check never sends');
    assert.equal(api.streams, 0, 'the answer is in the history: no stream asked for');
  });

  it('Check: the answer to this message, not to a later one; the same words sent before it are not it', async () => {
    const api = new LostReply('');
    api.messages.push(
      { role: 'user', content: 'yes' },
      { role: 'assistant', content: 'an older answer' },
      { role: 'user', content: 'yes' },
      { role: 'assistant', content: 'this answer' },
      { role: 'user', content: 'later' },
      { role: 'assistant', content: 'the later answer' },
    );
    const found = await findDelivery(api, 'yes', 2, signal);
    assert.ok(found.kind === 'listed' && found.at === 2, 'the second "yes": the first was known before the send');
    assert.deepEqual(await followDelivery(api, found, () => undefined, options, signal), { kind: 'completed', answer: 'this answer' });
    assert.deepEqual(await findDelivery(api, 'yes', 6, signal), { kind: 'notListed', turnRunning: false }, 'only messages after those known before the send');
  });

  it('Check while the flow still answers it: its turn is followed to the end', async () => {
    const chat = new FakeChat(['o', 'k']);
    await chat.send('hi'); // It arrived (the reply was lost): its turn runs.
    const found = await findDelivery(chat, 'hi', 0, signal);
    assert.ok(found.kind === 'listed');
    const updates: TurnUpdate[] = [];
    const outcome = await followDelivery(chat, found, (u) => updates.push(u), options, signal);
    assert.deepEqual(outcome, { kind: 'completed', answer: 'ok' });
    assert.equal(updates.flatMap((u) => (u.kind === 'text' ? [u.text] : [])).join(''), 'ok');
    assert.deepEqual(chat.sent, ['hi'], 'sent once');
  });

  it('Check while another turn runs and the message is not listed: said as such', async () => {
    const chat = new FakeChat(['x']);
    await chat.send('from elsewhere');
    assert.deepEqual(await findDelivery(chat, 'mine', 1, signal), { kind: 'notListed', turnRunning: true });
  });
});

describe('Flow chat: what a failed send means, by classifySendFailure (issue 46)', () => {
  const failing = (error: unknown) => {
    const client = { chatCall: async () => Promise.reject(error) } as unknown as CrewApi;
    return sessionApi(client, 'https://flow.example', 'Chatty', 's1').send('hi', signal).then(
      () => assert.fail('the send succeeded'),
      (e: unknown) => (e instanceof ChatSendError ? [e.kind, e.needsToken] : ['not a ChatSendError', String(e)]),
    );
  };

  it('may have acted (a 5xx, a time-out, a cut connection, an unreadable reply, anything unknown): uncertain', async () => {
    for (const error of [
      new CrewApiError('server', 'HTTP 500', { status: 500 }),
      new CrewApiError('server', 'HTTP 502', { status: 502 }),
      new CrewApiError('timeout', 'timed out'),
      new CrewApiError('network', 'socket hang up'),
      new CrewApiError('badResponse', 'not JSON', { status: 200 }),
      new Error('something else'),
    ]) {
      assert.deepEqual(await failing(error), ['uncertain', false], error.message);
    }
  });

  it('refused or never sent: not sent (the token told apart); 409: busy', async () => {
    assert.deepEqual(await failing(new CrewApiError('badRequest', 'HTTP 409', { status: 409 })), ['busy', false]);
    assert.deepEqual(await failing(new CrewApiError('unauthorized', 'HTTP 401', { status: 401 })), ['notSent', true]);
    assert.deepEqual(await failing(new CrewApiError('noToken', 'no token')), ['notSent', true]);
    assert.deepEqual(await failing(new CrewApiError('badRequest', 'HTTP 422', { status: 422 })), ['notSent', false]);
    assert.deepEqual(await failing(new CrewApiError('notFound', 'no such route')), ['notSent', false]);
    assert.deepEqual(await failing(new CrewApiError('rateLimited', 'HTTP 429', { status: 429 })), ['notSent', false]);
    assert.deepEqual(await failing(new CrewApiError('network', 'ECONNREFUSED', { notSent: true })), ['notSent', false]);
  });
});

describe('chat tool: an uncertain send (issue 46)', () => {
  const flow: Crew = { name: 'Support Flow', url: 'https://flow.example', source: 'user' };
  const deps = (api: TurnApi): ChatToolDeps => ({
    findCrew: (reference) => (reference === flow.name || reference === flow.url ? { kind: 'found', crew: flow } : { kind: 'unknown', known: [flow.name] }),
    hasToken: async () => true,
    chats: async () => true,
    startSession: async () => 'sess-1',
    turnApi: () => api,
    sends: tempSends(),
    describe: (e) => (e instanceof Error ? e.message : String(e)),
    sleep: async () => undefined,
  });

  it('a flow that lists the message late: the model reads that it may have been sent and must not be sent again', async () => {
    const api = new LostReply('Booked.');
    api.late = true;
    const d = deps(api);
    const text = await chatConfirmed(d, (await prepareChat(d, { crew: 'Support Flow', message: 'Book the room' })).plan);
    assert.doesNotMatch(text, /Nothing was sent/);
    assert.match(text, /^The message may have been sent to "Support Flow" \(session id sess-1 \(a new session\)\)/);
    assert.match(text, /Do NOT send it again/);
    assert.equal(api.sends, 1);
  });

  it('the uncertain text never invites a resend', () => {
    const text = chatTurnText('Flow', { sessionId: 's-1', newSession: false, steps: [], outcome: { kind: 'uncertain', error: 'socket hang up' } });
    assert.match(text, /may have been sent[\s\S]*Do NOT send it again[\s\S]*socket hang up/);
    assert.doesNotMatch(text, /resend it blindly|call .* again/i);
  });
});

