// The chat client's SSE reader and turn state machine (src/flowChat/sse.ts, turn.ts), in plain Node.

import * as assert from 'node:assert/strict';
import { compareIds, SseParser, type SseItem } from '../../src/flowChat/sse';
import { ChatSendError, ChatSessionGone, type ChatHistory, runTurn, type TurnApi, type TurnUpdate } from '../../src/flowChat/turn';
import { stepTitle } from '../../src/flowChat/page/stepTitle';
import { transcriptMarkdown } from '../../src/flowChat/transcriptMarkdown';

export const frame = (id: string, type: string, data: object = {}) => `id: ${id}\ndata: ${JSON.stringify({ id, type, data })}\n\n`;

describe('Flow chat: SSE reader', () => {
  it('reads frames split anywhere, CRLF or LF, with keepalives, the id from the id line or the envelope', () => {
    const text = `: connected\r\n\r\n${frame('1-1', 'token', { content: 'Hel' })}data: {"stream_id":"1-2","type":"token","data":{"content":"lo"}}\r\n\r\n`;
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser();
      const items: SseItem[] = [...parser.feed(text.slice(0, cut)), ...parser.feed(text.slice(cut)), ...parser.end()];
      const frames = items.flatMap((i) => (i.kind === 'frame' ? [i.frame] : []));
      assert.deepEqual(frames.map((f) => [f.id, f.type, f.data.content]), [['1-1', 'token', 'Hel'], ['1-2', 'token', 'lo']], `cut at ${cut}`);
      assert.equal(items.filter((i) => i.kind === 'keepalive').length, 1);
    }
  });

  it('reports a frame that is not JSON, keeps an unknown type, joins multi-line data', () => {
    const parser = new SseParser();
    const items = parser.feed('data: not json\n\ndata: {"type":"mystery","data":{"x":1}}\n\ndata: {"type":"token",\ndata: "data":{"content":"a"}}\n\n');
    assert.equal(items[0].kind, 'unreadable');
    assert.deepEqual(items[1], { kind: 'frame', frame: { id: undefined, type: 'mystery', kickoffId: undefined, data: { x: 1 } } });
    assert.equal(items[2].kind === 'frame' && items[2].frame.data.content, 'a');
  });

  it('orders stream ids by time then sequence', () => {
    assert.equal(compareIds('1712345678901-10', '1712345678901-9'), 1);
    assert.equal(compareIds('1712345678900-99', '1712345678901-0'), -1);
    assert.equal(compareIds('5-5', '5-5'), 0);
    assert.equal(compareIds('abc', '5-5'), undefined);
  });
});

/** A fake session: frames of one turn, a stream that can drop, replay or be unavailable. */
export class FakeChat implements TurnApi {
  frames: string[] = [];
  ids: string[] = [];
  messages: ChatHistory['messages'] = [];
  active: string | null = null;
  sent: string[] = [];
  streamCalls: (string | undefined)[] = [];
  /** Per stream call: how many frames before it drops (undefined: to the end). */
  dropAfter: (number | undefined)[] = [];
  unavailable = false;
  sendError?: Error;
  /** The flow answers `answer` in tokens, then the history is final. */
  constructor(private readonly answer: string[], private readonly tail: string[] = [frame('9-99', 'turn_completed')]) {}

  async send(message: string): Promise<{ kickoffId?: string }> {
    if (this.sendError) {
      throw this.sendError;
    }
    this.sent.push(message);
    this.messages.push({ role: 'user', content: message });
    this.active = 'k1';
    this.answer.forEach((t, i) => {
      this.ids.push(`9-${i + 1}`);
      this.frames.push(frame(`9-${i + 1}`, 'token', { content: t }));
    });
    this.ids.push(...this.tail.map(() => '9-99'));
    this.frames.push(...this.tail);
    return { kickoffId: 'k1' };
  }

  finish(): void {
    this.messages.push({ role: 'assistant', content: this.answer.join('') });
    this.active = null;
  }

  async history(): Promise<ChatHistory> {
    return { messages: [...this.messages], activeKickoffId: this.active };
  }

  async stream(lastEventId: string | undefined): Promise<AsyncIterable<string>> {
    const call = this.streamCalls.push(lastEventId) - 1;
    if (this.unavailable) {
      throw Object.assign(new Error('HTTP 502'), { status: 502 });
    }
    // Replays one frame before last_event_id too (a server that is not exact): the client drops it.
    const from = lastEventId === undefined ? 0 : Math.max(0, this.ids.indexOf(lastEventId));
    const drop = this.dropAfter[call];
    const frames = this.frames.slice(from, drop === undefined ? undefined : from + drop);
    const complete = drop === undefined;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const chat = this;
    return (async function* () {
      yield ': connected\n\n';
      for (const f of frames) {
        if (complete && f === chat.frames.at(-1)) {
          chat.finish(); // the history is final when the last frame goes out
        }
        yield f.slice(0, 5);
        yield f.slice(5);
      }
      if (!complete) {
        throw new Error('socket hang up');
      }
    })();
  }
}

const options = { sleep: async () => undefined, streamRetries: 2, retryDelayMs: 1, pollIntervalMs: 1 };

async function turn(chat: FakeChat, message = 'hi') {
  const updates: TurnUpdate[] = [];
  const outcome = await runTurn(chat, message, (u) => updates.push(u), options, new AbortController().signal);
  const text = updates.flatMap((u) => (u.kind === 'text' ? [u.text] : [])).join('');
  return { outcome, updates, text };
}

describe('Flow chat: a turn', () => {
  it('streams the answer token by token and ends with the history\'s answer', async () => {
    const chat = new FakeChat(['Hel', 'lo ', 'there']);
    const { outcome, updates, text } = await turn(chat);
    assert.equal(text, 'Hello there');
    assert.equal(updates.filter((u) => u.kind === 'text').length, 3, 'one update per token: only the new text');
    assert.deepEqual(outcome, { kind: 'completed', answer: 'Hello there' });
    assert.deepEqual(chat.sent, ['hi']);
  });

  it('resumes a dropped stream from the last id: no text twice, none missing, the message sent once', async () => {
    const chat = new FakeChat(['a', 'b', 'c', 'd', 'e']);
    chat.dropAfter = [2, 1];
    const { outcome, text } = await turn(chat);
    assert.equal(text, 'abcde');
    assert.deepEqual(chat.streamCalls, [undefined, '9-2', '9-2']);
    assert.equal(outcome.kind, 'completed');
    assert.deepEqual(chat.sent, ['hi']);
  });

  it('polls /history when the stream is unavailable, and still ends', async () => {
    const chat = new FakeChat(['x']);
    chat.unavailable = true;
    let polls = 0;
    const history = chat.history.bind(chat);
    chat.history = async () => {
      if (++polls === 6) {
        chat.finish();
      }
      return history();
    };
    const { outcome, updates } = await turn(chat);
    assert.deepEqual(outcome, { kind: 'completed', answer: 'x' });
    assert.ok(updates.some((u) => u.kind === 'mode' && u.mode === 'polling'));
    assert.equal(chat.streamCalls.length, 3, 'the first attempt and two retries, then polling');
  });

  it('a busy session (409) and an uncertain delivery are reported, never sent again', async () => {
    const busy = new FakeChat(['x']);
    busy.sendError = new ChatSendError('busy', 'A turn is still running.');
    assert.deepEqual((await turn(busy)).outcome, { kind: 'busy', error: 'A turn is still running.' });
    const lost = new FakeChat(['x']);
    lost.sendError = new Error('socket hang up');
    lost.history = async () => {
      throw new Error('offline');
    };
    assert.equal((await turn(lost)).outcome.kind, 'uncertain', 'the history cannot say: uncertain');
    assert.deepEqual(lost.streamCalls, [], 'nothing followed, nothing resent');
  });

  it('after an uncertain send (a 5xx) the history tells only that it arrived: not there, it stays uncertain (issue 46); there, the turn is followed; never resent', async () => {
    const refused = new FakeChat(['x']);
    refused.sendError = new ChatSendError('uncertain', 'Chatty had a server error (500).');
    assert.deepEqual((await turn(refused)).outcome, { kind: 'uncertain', error: 'Chatty had a server error (500).', knownMessages: 0 });
    assert.deepEqual(refused.sent, []);

    const arrived = new FakeChat(['o', 'k']);
    const send = arrived.send.bind(arrived);
    arrived.send = async (message: string) => {
      await send(message); // It arrived, but the answer was lost (a proxy's 502).
      throw new ChatSendError('uncertain', 'Bad gateway (502).');
    };
    const { outcome, text } = await turn(arrived);
    assert.deepEqual(outcome, { kind: 'completed', answer: 'ok' });
    assert.equal(text, 'ok');
    assert.deepEqual(arrived.sent, ['hi'], 'sent once');
  });

  it('a refused token is told apart, so the panel can offer Set Token', async () => {
    const chat = new FakeChat(['x']);
    chat.sendError = new ChatSendError('notSent', 'Chatty rejected the token (401).', true);
    assert.deepEqual((await turn(chat)).outcome, { kind: 'notSent', error: 'Chatty rejected the token (401).', needsToken: true });
  });

  it('a failed turn keeps what came and says why; tool events become steps; chunks only without tokens', async () => {
    const chat = new FakeChat(['a'], [
      frame('9-50', 'llm_stream_chunk', { chunk: 'a' }),
      frame('9-51', 'event', { event_type: 'tool_usage_finished', tool_name: 'search', output: '3 found' }),
      frame('9-52', 'turn_failed', { error: 'ValueError' }),
    ]);
    const { outcome, updates, text } = await turn(chat);
    assert.equal(text, 'a');
    assert.deepEqual(outcome, { kind: 'failed', error: 'ValueError', answer: 'a' });
    assert.ok(updates.some((u) => u.kind === 'step' && u.title === 'tool_usage_finished: search' && u.detail === '3 found'));
  });

  it('tool steps read in words (issue 52), never as the raw event name; the step carries the event and tool for them', async () => {
    const words = { toolUsed: 'Used {0}', toolUsing: 'Using {0}', toolFailed: '{0} failed', step: 'Step' };
    assert.equal(stepTitle('tool_usage_finished', 'search_knowledge_base', words), 'Used search_knowledge_base');
    assert.equal(stepTitle('tool_usage_started', 'search', words), 'Using search');
    assert.equal(stepTitle('tool_usage_error', 'scrape', words), 'scrape failed');
    assert.equal(stepTitle('agent_execution_started', undefined, words), 'Agent execution started');
    assert.equal(stepTitle('flow_method_finished', 'route', words), 'Flow method finished: route');
    assert.equal(stepTitle('___', undefined, words), 'Step');
    const chat = new FakeChat(['a'], [frame('9-51', 'event', { event_type: 'tool_usage_finished', tool_name: 'search', output: '3 found' }), frame('9-99', 'turn_completed')]);
    const { updates } = await turn(chat);
    const step = updates.find((u) => u.kind === 'step');
    assert.ok(step?.kind === 'step' && step.event === 'tool_usage_finished' && step.tool === 'search', JSON.stringify(step));
  });

  it('a flow that forgets the session while a turn runs (issue 52): the turn ends at once, said as gone, not followed for minutes', async () => {
    const chat = new FakeChat(['a ', 'b ', 'c']);
    chat.dropAfter = [1, 0, 0, 0];
    let historyCalls = 0;
    const history = chat.history.bind(chat);
    chat.history = async () => {
      if (++historyCalls > 1) {
        throw new ChatSessionGone('Chatty answered 404 (not found).');
      }
      return history();
    };
    const { outcome, text } = await turn(chat);
    assert.equal(text, 'a ');
    assert.deepEqual(outcome, { kind: 'failed', error: 'Chatty answered 404 (not found).', answer: 'a ', sessionGone: true });
    assert.equal(chat.streamCalls.length, 1, 'not reattached to a session the flow forgot');
  });

  it('a pause for a human is one question (named by its frame, kept once across a replay), then answered', async () => {
    const chat = new FakeChat(['a', 'b'], [
      frame('9-50', 'event', { event_type: 'human_feedback_requested', message: 'May I apply it?', flow_id: 'flow-7' }),
      frame('9-51', 'event', { event_type: 'human_feedback_received', feedback: 'approved' }),
      frame('9-99', 'turn_completed'),
    ]);
    chat.dropAfter = [3]; // The stream drops right after the question; the reattached one replays it.
    const { outcome, updates } = await turn(chat);
    assert.deepEqual(
      updates.filter((u) => u.kind === 'question' || u.kind === 'questionAnswered'),
      [
        { kind: 'question', id: '9-50', text: 'May I apply it?', flowId: 'flow-7' },
        { kind: 'questionAnswered', feedback: 'approved' },
      ],
    );
    assert.equal(outcome.kind, 'completed');
    assert.deepEqual(chat.sent, ['hi'], 'the message was sent once');
  });
});

describe('Flow chat: Open as Markdown', () => {
  const labels = { title: 'Chat: [Evil](command:workbench.action.quit) flow', you: 'You', flow: 'Flow' };

  it('fences every message so nothing the flow wrote becomes a link, image or HTML; escapes the notes and title', () => {
    const hostile = 'See [this](command:crewRuns.removeCrew) ![x](https://x.invalid/p.png) <img src=x onerror=alert(1)>\n``` \n```` still inside\n<https://auto.link>';
    const md = transcriptMarkdown(labels, [
      { role: 'user', content: 'Hello `there`' },
      { role: 'assistant', content: hostile, note: 'The flow could not answer: [retry](command:x)' },
    ]);
    const fence = '`````';
    assert.ok(md.includes(`${fence}text\n${hostile}\n${fence}`), 'the answer sits in a fence longer than any of its backtick runs');
    assert.ok(md.includes('```text\nHello `there`\n```'));
    assert.ok(md.startsWith('# Chat\\: \\[Evil\\]\\(command\\:workbench\\.action\\.quit\\) flow\n'));
    assert.ok(md.includes('_The flow could not answer\\: \\[retry\\]\\(command\\:x\\)_'));
    // Outside the fences, no `](` or `<` survives unescaped.
    const outside = md.split(/^`{3,}text\n[\s\S]*?\n`{3,}$/m).join('');
    assert.doesNotMatch(outside, /[^\\]\]\(|(^|[^\\])</);
  });

  it('keeps line breaks, drops bidi controls, shows an empty answer as its label only', () => {
    const md = transcriptMarkdown(labels, [
      { role: 'user', content: 'a\u202Eb\nc' },
      { role: 'assistant', content: '' },
    ]);
    assert.ok(md.includes('```text\nab\nc\n```'));
    assert.ok(md.trimEnd().endsWith('**Flow**'));
  });
});
