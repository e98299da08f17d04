// Issue 47, a hostile flow chat stream (src/flowChat/sse.ts, turn.ts), in plain Node: no line, answer, id, title
// or turn may grow without a cap, a long line costs work linear in its bytes, and frames are matched to their
// session and turn. No clock: the work is counted (characters searched) and the sizes kept are checked.

import * as assert from 'node:assert/strict';
import { CrewClient } from '../../src/api/client';
import { MAX_EVENT_CHARS, MAX_ID_CHARS, readFrame, SseParser, type SseItem } from '../../src/flowChat/sse';
import {
  type ChatHistory,
  clipAnswer,
  followTurn,
  MAX_ANSWER_CHARS,
  MAX_SHOWN_PER_TURN,
  MAX_STEP_TITLE_CHARS,
  MAX_TURN_STREAM_CHARS,
  runTurn,
  type TurnApi,
  type TurnOptions,
  type TurnUpdate,
} from '../../src/flowChat/turn';

const frame = (id: string, type: string, data: object = {}, extra: object = {}) => `id: ${id}\ndata: ${JSON.stringify({ id, type, ...extra, data })}\n\n`;
/** A frame without any id (no `id:` line, none in the envelope). */
const bare = (type: string, data: object = {}, extra: object = {}) => `data: ${JSON.stringify({ type, ...extra, data })}\n\n`;

/**
 * Runs `run` with the string searches counted: every character a regular expression (exec, and so test, replace,
 * match), indexOf or lastIndexOf looks at, and every character an array join builds. Synchronous only.
 */
/** Counts, from now until `stop`, the characters searched (regex exec, indexOf, lastIndexOf) and joined (Array.join). */
function startCounting(): { stop(): { searched: number; joined: number } } {
  const exec = RegExp.prototype.exec;
  const indexOf = String.prototype.indexOf;
  const lastIndexOf = String.prototype.lastIndexOf;
  const join = Array.prototype.join;
  let searched = 0;
  let joined = 0;
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    const from = this.global || this.sticky ? this.lastIndex : 0;
    const found = exec.call(this, input);
    searched += (found ? found.index + found[0].length : String(input).length) - from;
    return found;
  };
  String.prototype.indexOf = function (this: string, search: string, position?: number) {
    const found = indexOf.call(this, search, position);
    searched += (found < 0 ? this.length : found + search.length) - Math.max(0, position ?? 0);
    return found;
  };
  String.prototype.lastIndexOf = function (this: string, search: string, position?: number) {
    const found = lastIndexOf.call(this, search, position);
    searched += Math.min(this.length, position ?? this.length) - Math.max(0, found);
    return found;
  };
  Array.prototype.join = function (this: unknown[], separator?: string) {
    const result = join.call(this, separator);
    joined += result.length;
    return result;
  };
  return {
    stop: () => {
      RegExp.prototype.exec = exec;
      String.prototype.indexOf = indexOf;
      String.prototype.lastIndexOf = lastIndexOf;
      Array.prototype.join = join;
      return { searched, joined };
    },
  };
}

function countWork<T>(run: () => T): { result: T; searched: number; joined: number } {
  const counting = startCounting();
  try {
    const result = run();
    return { result, ...counting.stop() };
  } catch (error) {
    counting.stop();
    throw error;
  }
}

/** A session whose stream, per call, is what `streams` gives; the history settable. */
class Hostile implements TurnApi {
  messages: ChatHistory['messages'] = [];
  active: string | null = null;
  /** The last_event_id of each stream request. */
  lastEventIds: (string | undefined)[] = [];
  sessionId?: string;
  constructor(private readonly streams: (call: number, api: Hostile) => AsyncIterable<string>) {}

  async send(message: string) {
    this.messages.push({ role: 'user', content: message });
    this.active = 'k1';
    return { kickoffId: 'k1' };
  }
  async history(): Promise<ChatHistory> {
    return { messages: [...this.messages], activeKickoffId: this.active };
  }
  async stream(lastEventId: string | undefined) {
    return this.streams(this.lastEventIds.push(lastEventId) - 1, this);
  }
  finish(answer: string) {
    this.messages.push({ role: 'assistant', content: answer });
    this.active = null;
  }
}

/** maxWaitMs: a turn the code under test fails to end gives up soon (the tests then fail, not hang). */
const options: TurnOptions = { sleep: async () => undefined, streamRetries: 2, retryDelayMs: 1, pollIntervalMs: 1, maxWaitMs: 1000 };

async function turn(api: TurnApi, more: Partial<TurnOptions> = {}) {
  const updates: TurnUpdate[] = [];
  const outcome = await runTurn(api, 'hi', (u) => updates.push(u), { ...options, ...more }, new AbortController().signal);
  const text = updates.flatMap((u) => (u.kind === 'text' ? [u.text] : [])).join('');
  const notes = updates.flatMap((u) => (u.kind === 'note' ? [u.text] : []));
  return { outcome, updates, text, notes };
}

describe('Flow chat: a hostile stream (issue 47)', () => {
  it('the crew client hands a 16 MB line on in linear work (its lines were re-searched whole at every chunk: 8 MB took 1.6 s, 64 MB 68 s), cut one character past the reader\u2019s cap', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const body = ['data: ', ...Array.from({ length: 256 }, () => chunk), '\n\n', frame('1-1', 'token', { content: 'after' })];
    const client = new CrewClient({
      getToken: async () => 'secret-token-123',
      createTransport: () => ({
        request: async () => ({ status: 500, headers: {}, bodyText: '' }),
        stream: async () => ({ status: 200, headers: {}, chunks: (async function* () { yield* body; })() }),
        close: async () => undefined,
      }),
    });
    const fed = body.reduce((sum, text) => sum + text.length, 0);
    const stream = await client.chatStream('https://crew.example.com', 's-1', undefined);
    const counting = startCounting();
    const out: string[] = [];
    let searched: number;
    try {
      for await (const text of stream) {
        out.push(text);
      }
    } finally {
      searched = counting.stop().searched;
    }
    const passed = out.reduce((sum, text) => sum + text.length, 0);
    // Each character is looked at a few times (a line break of either kind, the redactor): linear, where it was 260 times the bytes.
    assert.ok(searched <= 3 * fed, `${searched.toLocaleString('en-US')} characters searched for ${fed.toLocaleString('en-US')} fed`);
    assert.ok(passed <= MAX_EVENT_CHARS + 64 * 1024, `${passed.toLocaleString('en-US')} characters handed on: the long line only up to past the reader's cap`);
    const parser = new SseParser();
    const items = out.flatMap((text) => parser.feed(text));
    assert.deepEqual(items.map((i) => i.kind), ['unreadable', 'frame'], 'the reader drops the long line as one item and reads the next frame');
  });

  it('one 64 MB line in 64 KB chunks (2.19 G characters searched before): dropped at the 4 MiB cap as one item, each character searched once, never joined', () => {
    const chunk = 'x'.repeat(64 * 1024);
    const parser = new SseParser();
    const items: SseItem[] = [];
    let fed = 0;
    const { searched, joined } = countWork(() => {
      for (const text of ['data: ', ...Array.from({ length: 1024 }, () => chunk), '\n\n', frame('1-1', 'token', { content: 'after' })]) {
        fed += text.length;
        items.push(...parser.feed(text));
      }
    });
    assert.ok(fed > 64 * 1024 * 1024);
    assert.ok(searched <= 2 * fed, `${searched.toLocaleString('en-US')} characters searched for ${fed.toLocaleString('en-US')} fed: linear, not each chunk re-joined and searched whole`);
    assert.ok(joined < MAX_EVENT_CHARS, `${joined.toLocaleString('en-US')} characters joined: the dropped line never is`);
    assert.deepEqual(
      items.map((i) => i.kind),
      ['unreadable', 'frame'],
      'one item says the line was dropped; its rest is no line of its own; the next frame is read',
    );
    assert.equal(items[1].kind === 'frame' && items[1].frame.data.content, 'after');
  });

  it('lines of 4 MiB and less are still read whole, split anywhere, \\r\\n cut between chunks', () => {
    const content = 'y'.repeat(MAX_EVENT_CHARS - 100);
    const text = `data: {"type":"token",\r\ndata: "data":{"content":"${content}"}}\r\n\r\n: keepalive\r\n\r\n`;
    for (const cut of [1, 7, 30, text.length - 12, text.length - 11, text.length - 3]) {
      const parser = new SseParser();
      const items = [...parser.feed(text.slice(0, cut)), ...parser.feed(text.slice(cut)), ...parser.end()];
      assert.deepEqual(items.map((i) => i.kind), ['frame', 'keepalive'], `cut at ${cut}`);
      assert.equal(items[0].kind === 'frame' && items[0].frame.data.content, content);
    }
  });

  it('a frame id of 4 MB (id line or envelope, +1.7 GB remembered before) is not kept: the frame reads as one without id', () => {
    const long = '7'.repeat(4 * 1024 * 1024 - 200);
    const parser = new SseParser();
    const items = [...parser.feed(`id: ${long}\ndata: {"type":"token","data":{"content":"a"}}\n\n`), ...parser.feed(bare('token', { content: 'b' }, { id: long }))];
    assert.deepEqual(items.map((i) => i.kind === 'frame' && i.frame.id?.length), [undefined, undefined]);
    const short = readFrame(JSON.stringify({ id: '1-1', type: 'token', data: {} }));
    assert.equal(short.kind === 'frame' && short.frame.id, '1-1');
    const atCap = readFrame(JSON.stringify({ event_id: 'e'.repeat(MAX_ID_CHARS), type: 'token', data: {} }));
    assert.equal(atCap.kind === 'frame' && atCap.frame.id?.length, MAX_ID_CHARS);
  });

  it('a turn whose frames carry 1 MB ids: none kept, a reattach asks without one, and its text is taken once', async () => {
    const long = (n: number) => `${n}`.padStart(1024 * 1024, '0');
    const frames = ['a', 'b', 'c', 'd'].map((content, i) => frame(long(i + 1), 'token', { content }));
    const api = new Hostile((call, self) =>
      (async function* () {
        if (call === 0) {
          yield* frames.slice(0, 2); // then the connection drops
          throw new Error('socket hang up');
        }
        yield* frames; // without an id to resume from, the turn is replayed from its start
        self.finish('abcd');
        yield frame(long(9), 'turn_completed');
      })(),
    );
    const { outcome, text } = await turn(api);
    assert.deepEqual(
      api.lastEventIds.map((id) => id?.length),
      [undefined, undefined],
      'no 1 MB last_event_id in a URL, none remembered',
    );
    assert.equal(text, 'abcd');
    assert.deepEqual(outcome, { kind: 'completed', answer: 'abcd' });
  });

  it('an answer of 3,000,000 characters: 2,000,000 kept and shown, and the page told how many were not', async () => {
    const piece = 'z'.repeat(100_000);
    const whole = piece.repeat(30);
    const api = new Hostile((_call, self) =>
      (async function* () {
        for (let i = 0; i < 30; i++) {
          yield frame(`1-${i + 1}`, 'token', { content: piece });
        }
        self.finish(whole);
        yield frame('1-99', 'turn_completed');
      })(),
    );
    const { outcome, text, notes } = await turn(api);
    assert.equal(text.length, MAX_ANSWER_CHARS, 'the streamed text stops at the cap');
    assert.equal(outcome.kind, 'completed');
    assert.equal(outcome.kind === 'completed' && outcome.answer.length, MAX_ANSWER_CHARS, 'the history\'s answer is capped the same');
    assert.ok(
      notes.some((n) => /1,000,000 characters of the answer are not shown/.test(n) || /1000000 characters of the answer are not shown/.test(n)),
      notes.join(' | '),
    );
  });

  it('an answer cut at its cap never ends in half of a surrogate pair', () => {
    const emoji = '\u{1F600}';
    const text = 'a'.repeat(MAX_ANSWER_CHARS - 1) + emoji;
    assert.equal(clipAnswer(text), 'a'.repeat(MAX_ANSWER_CHARS - 1));
    assert.equal(clipAnswer('short'), 'short');
  });

  it('a turn that never ends (537 M characters, +604 MB in 20 s before): the answer stops at its cap, reading at 256 MiB, then the turn ends and says so', async () => {
    const content = 'w'.repeat(MAX_EVENT_CHARS - 200);
    const chunk = bare('token', { content }); // one frame of almost 4 MiB per read, never an end
    let reads = 0;
    const api = new Hostile(() =>
      (async function* () {
        // Bounded only so that the code before the cap ends too (537 M characters is V8's longest string).
        for (let i = 0; i < 96; i++) {
          reads++;
          yield chunk;
        }
      })(),
    );
    const { outcome, text, notes } = await turn(api);
    const limitReads = Math.ceil(MAX_TURN_STREAM_CHARS / chunk.length);
    assert.ok(reads <= limitReads + 1, `${reads} reads of ${chunk.length.toLocaleString('en-US')} characters; the cap allows ${limitReads}`);
    assert.equal(text.length, MAX_ANSWER_CHARS);
    assert.equal(outcome.kind, 'failed');
    assert.ok(outcome.kind === 'failed' && outcome.answer.length === MAX_ANSWER_CHARS);
    assert.ok(outcome.kind === 'failed' && /more than 256 MB/.test(outcome.error), outcome.kind === 'failed' ? outcome.error : '');
    assert.ok(notes.some((n) => /characters of the answer are not shown/.test(n)), notes.join(' | '));
  });

  it('tool-step titles of 2 MB (+2.5 GB before) are clipped to 200 characters; past 1,000 steps a turn counts them in one note', async () => {
    const huge = 'T'.repeat(1024 * 1024);
    const steps = 1_500;
    const api = new Hostile((_call, self) =>
      (async function* () {
        yield frame('1-1', 'event', { event_type: `tool_usage_finished${huge}`, tool_name: huge, output: huge });
        for (let i = 2; i <= steps; i++) {
          yield frame(`1-${i}`, 'event', { event_type: 'tool_usage_finished', tool_name: `t${i}` });
        }
        self.finish('ok');
        yield frame('1-99999', 'turn_completed');
      })(),
    );
    const { outcome, updates, notes } = await turn(api);
    const shown = updates.flatMap((u) => (u.kind === 'step' ? [u] : []));
    assert.ok(shown[0].title.length <= MAX_STEP_TITLE_CHARS, `a title of ${shown[0].title.length.toLocaleString('en-US')} characters`);
    assert.ok(shown[0].detail.length <= 2000);
    assert.equal(shown.length, MAX_SHOWN_PER_TURN);
    assert.ok(notes.some((n) => /500 more steps/.test(n)), notes.join(' | '));
    assert.deepEqual(outcome, { kind: 'completed', answer: 'ok' });
  });
});

describe('Flow chat: a question is always shown (issue 46)', () => {
  it('a question after 1,500 steps and 1,500 notes is shown, and so is its answer: only the steps and notes are counted', async () => {
    const api = new Hostile((_call, self) =>
      (async function* () {
        for (let i = 1; i <= 1_500; i++) {
          yield frame(`1-${i}`, 'event', { event_type: 'tool_usage_finished', tool_name: `t${i}` });
        }
        for (let i = 1_501; i <= 3_000; i++) {
          yield frame(`1-${i}`, 'error', { message: `note ${i}` });
        }
        yield frame('1-3001', 'event', { event_type: 'human_feedback_requested', message: 'May I apply it?', flow_id: 'f1' });
        yield frame('1-3002', 'event', { event_type: 'human_feedback_received', feedback: 'approved' });
        self.finish('done');
        yield frame('1-3003', 'turn_completed');
      })(),
    );
    const { outcome, updates, notes } = await turn(api);
    assert.deepEqual(
      updates.filter((u) => u.kind === 'question' || u.kind === 'questionAnswered'),
      [
        { kind: 'question', id: '1-3001', text: 'May I apply it?', flowId: 'f1' },
        { kind: 'questionAnswered', feedback: 'approved' },
      ],
      'the question the flow waits on, and its answer',
    );
    assert.equal(updates.filter((u) => u.kind === 'step').length + notes.filter((n) => /^note /.test(n)).length, MAX_SHOWN_PER_TURN);
    assert.ok(notes.some((n) => /^2,000 more steps and notes/.test(n)), notes.slice(-3).join(' | '));
    assert.deepEqual(outcome, { kind: 'completed', answer: 'done' });
  });
});

describe('Flow chat: frames matched to their session and turn (issue 47)', () => {
  it('a frame of another session or of another turn is not taken: neither its text nor its end', async () => {
    const api = new Hostile((_call, self) =>
      (async function* () {
        yield frame('1-1', 'turn_completed', {}, { kickoff_id: 'k0', session_id: 's1' }); // the last turn's end, replayed
        yield frame('1-2', 'token', { content: 'not yours ' }, { kickoff_id: 'k9', session_id: 's9' });
        yield frame('1-3', 'token', { content: 'Hello' }, { kickoff_id: 'k1', session_id: 's1' });
        yield frame('1-4', 'token', { content: ' there' }); // no envelope ids: taken
        self.finish('Hello there');
        yield frame('1-5', 'turn_completed', {}, { kickoff_id: 'k1', session_id: 's1' });
      })(),
    );
    api.sessionId = 's1';
    const { outcome, text } = await turn(api);
    assert.equal(text, 'Hello there');
    assert.deepEqual(outcome, { kind: 'completed', answer: 'Hello there' });
  });

  it('a stream without ids that drops twice, replaying its turn on each reattach: text and question taken once', async () => {
    const frames = [
      bare('token', { content: 'One ' }),
      bare('event', { event_type: 'human_feedback_requested', message: 'May I?' }),
      bare('token', { content: 'two ' }),
      bare('token', { content: 'three' }),
    ];
    const api = new Hostile((call, self) =>
      (async function* () {
        yield ': connected\n\n';
        if (call < 2) {
          yield* frames.slice(0, call + 2);
          throw new Error('socket hang up');
        }
        yield* frames;
        self.finish('One two three');
        yield bare('turn_completed');
      })(),
    );
    const { outcome, updates, text } = await turn(api);
    assert.equal(text, 'One two three');
    assert.equal(updates.filter((u) => u.kind === 'question').length, 1, 'the question once, not once per reattach');
    assert.deepEqual(outcome, { kind: 'completed', answer: 'One two three' });
    assert.equal(api.lastEventIds.length, 3);
  });

  it('a reopened session follows the active turn: the frames of its kickoff only', async () => {
    const api = new Hostile((_call, self) =>
      (async function* () {
        yield frame('1-1', 'token', { content: 'old' }, { kickoff_id: 'k0' });
        yield frame('1-2', 'token', { content: 'new' }, { kickoff_id: 'k1' });
        self.finish('new');
        yield frame('1-3', 'turn_completed', {}, { kickoff_id: 'k1' });
      })(),
    );
    api.messages.push({ role: 'user', content: 'hi' });
    api.active = 'k1';
    const updates: TurnUpdate[] = [];
    const outcome = await followTurn(api, (u) => updates.push(u), options, new AbortController().signal, 1, 'k1');
    assert.equal(updates.flatMap((u) => (u.kind === 'text' ? [u.text] : [])).join(''), 'new');
    assert.deepEqual(outcome, { kind: 'completed', answer: 'new' });
  });
});
