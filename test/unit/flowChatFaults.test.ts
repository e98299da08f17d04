// Issue 38, faults of a chat turn (src/flowChat/turn.ts, sse.ts, api/redact.ts PieceRedactor), in plain Node:
// a huge answer, frames that cannot be read, a stalled stream, a turn that never ends, a token echoed back,
// a fast turn that fails.

import * as assert from 'node:assert/strict';
import { PieceRedactor } from '../../src/api/redact';
import { FRAME_IDS_REMEMBERED, FrameIds } from '../../src/flowChat/sse';
import { type ChatHistory, readTurnError, runTurn, UNREADABLE_FRAMES_SAID, type TurnApi, type TurnOptions, type TurnUpdate } from '../../src/flowChat/turn';

const frame = (id: string, type: string, data: object = {}) => `id: ${id}\ndata: ${JSON.stringify({ id, type, data })}\n\n`;
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

/** A session whose stream is given as chunks (a function: called per stream request), its history settable. */
class Scripted implements TurnApi {
  messages: ChatHistory['messages'] = [];
  active: string | null = null;
  streamCalls = 0;
  historyCalls = 0;
  token?: string;
  error?: string;
  onHistory?: (calls: number) => void;
  turnError?: (kickoffId: string) => Promise<string | undefined>;
  constructor(private readonly chunks: (call: number, signal: AbortSignal) => AsyncIterable<string> | 'refuse') {}

  async send(message: string) {
    this.messages.push({ role: 'user', content: message });
    this.active = 'k1';
    return { kickoffId: 'k1' };
  }
  async history(): Promise<ChatHistory> {
    this.onHistory?.(++this.historyCalls);
    return { messages: [...this.messages], activeKickoffId: this.active };
  }
  async stream(_last: string | undefined, signal: AbortSignal) {
    const chunks = this.chunks(this.streamCalls++, signal);
    if (chunks === 'refuse') {
      throw Object.assign(new Error('No active chat turn'), { status: 409 });
    }
    const token = this.token;
    return token ? Object.assign(chunks, { pieceRedactor: () => new PieceRedactor(token) }) : chunks;
  }
  finish(answer: string) {
    this.messages.push({ role: 'assistant', content: answer });
    this.active = null;
  }
}

async function* from(chunks: string[]) {
  for (const c of chunks) {
    yield c;
  }
}

const base: TurnOptions = { sleep: async () => tick(), streamRetries: 2, retryDelayMs: 1, pollIntervalMs: 1 };

async function turn(api: TurnApi, options: Partial<TurnOptions> = {}) {
  const updates: TurnUpdate[] = [];
  const outcome = await runTurn(api, 'hi', (u) => updates.push(u), { ...base, ...options }, new AbortController().signal);
  const text = updates.flatMap((u) => (u.kind === 'text' ? [u.text] : [])).join('');
  const notes = updates.flatMap((u) => (u.kind === 'note' ? [u.text] : []));
  return { outcome, updates, text, notes };
}

describe('Flow chat faults (issue 38)', () => {
  it('a 1 MB answer in 200,000 token frames: all of it, in one update per read, not one per frame', async () => {
    const words = Array.from({ length: 200_000 }, (_, i) => `w${i % 10} `.padEnd(5, '.'));
    const answer = words.join('');
    assert.ok(answer.length >= 1_000_000);
    const chunks: string[] = [];
    for (let i = 0; i < words.length; i += 2000) {
      chunks.push(words.slice(i, i + 2000).map((w, j) => frame(`1-${i + j + 1}`, 'token', { content: w })).join(''));
    }
    const api = new Scripted(() => {
      const all = [...chunks, frame('1-999999', 'turn_completed')];
      return (async function* () {
        for (const c of all) {
          if (c === all.at(-1)) {
            api.finish(answer);
          }
          yield c;
        }
      })();
    });
    // How fast such a stream reads is the bench's (CREW_RUNS_BENCH_ONLY=chat, 200,000 tokens); here, that it is read whole.
    const { outcome, updates, text } = await turn(api);
    assert.equal(text.length, answer.length);
    assert.ok(text === answer, 'the streamed text is the answer, whole');
    assert.deepEqual(outcome, { kind: 'completed', answer });
    assert.ok(updates.filter((u) => u.kind === 'text').length <= chunks.length, `${updates.length} updates for ${chunks.length} reads`);
  });

  it('a frame that is not JSON and one of an unknown type: skipped (the first said), the answer goes on whole', async () => {
    const api = new Scripted(() => {
      const all = [frame('1-1', 'token', { content: 'Hel' }), 'data: {"type": "token", "data": {"content": "half\n\n', frame('1-2', 'agent_thinking_v2', { x: 1 }), frame('1-3', 'token', { content: 'lo' }), frame('1-4', 'turn_completed')];
      return (async function* () {
        for (const c of all) {
          if (c === all.at(-1)) {
            api.finish('Hello');
          }
          yield c;
        }
      })();
    });
    const { outcome, text, notes } = await turn(api);
    assert.equal(text, 'Hello');
    assert.deepEqual(outcome, { kind: 'completed', answer: 'Hello' });
    assert.equal(notes.length, 1, 'the unreadable frame is said once; the unknown type is not an error');
    assert.match(notes[0], /could not be read \(\{"type": "token"/);
  });

  it('a stream full of unreadable frames: the first few said, then one count at the end, not a note per frame', async () => {
    const api = new Scripted(() => {
      const bad = Array.from({ length: 500 }, (_, i) => `data: not json ${i}\n\n`);
      const all = [frame('1-1', 'token', { content: 'Hi' }), ...bad, frame('1-2', 'turn_completed')];
      return (async function* () {
        for (const c of all) {
          if (c === all.at(-1)) {
            api.finish('Hi');
          }
          yield c;
        }
      })();
    });
    const { outcome, notes } = await turn(api);
    assert.deepEqual(outcome, { kind: 'completed', answer: 'Hi' });
    assert.equal(notes.length, UNREADABLE_FRAMES_SAID + 1, `notes: ${notes.length}`);
    assert.match(notes.at(-1)!, /497 more frames could not be read/);
  });

  it('a stream that stalls (keepalives only): detected, the history read instead, and said', async () => {
    const api = new Scripted((_call, signal) =>
      (async function* () {
        yield ': connected\n\n';
        yield frame('1-1', 'token', { content: 'Partial ' });
        while (!signal.aborted) {
          await tick();
          yield ': keepalive\n\n';
        }
      })(),
    );
    api.onHistory = (calls) => {
      if (calls === 6) {
        api.finish('Partial answer, whole.');
      }
    };
    const { outcome, updates, notes } = await turn(api, { stallKeepalives: 3 });
    assert.deepEqual(outcome, { kind: 'completed', answer: 'Partial answer, whole.' });
    assert.deepEqual(notes.filter((n) => /stopped sending the answer .*history instead/.test(n)).length, 1, notes.join(' | '));
    assert.ok(updates.some((u) => u.kind === 'mode' && u.mode === 'polling'));
    assert.equal(api.streamCalls, 3, 'reattached while the turn runs (a long tool call looks the same), then polled');
  });

  it('keepalives alone while the flow waits for a human are no stall: the question, then the rest, by the stream', async () => {
    const api = new Scripted(() =>
      (async function* () {
        yield frame('1-1', 'event', { event_type: 'human_feedback_requested', message: 'May I?' });
        for (let i = 0; i < 6; i++) {
          await tick();
          yield ': keepalive\n\n';
        }
        yield frame('1-2', 'event', { event_type: 'human_feedback_received', feedback: 'approved' });
        yield frame('1-3', 'token', { content: 'Done.' });
        api.finish('Done.');
        yield frame('1-4', 'turn_completed');
      })(),
    );
    const { outcome, notes } = await turn(api, { stallKeepalives: 3, stallMs: 2 });
    assert.deepEqual(outcome, { kind: 'completed', answer: 'Done.' });
    assert.deepEqual(notes, []);
    assert.equal(api.streamCalls, 1);
  });

  it('a stream that sends nothing at all for stallMs: the same', async () => {
    const api = new Scripted((_call, signal) =>
      (async function* () {
        yield frame('1-1', 'token', { content: 'a' });
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
      })(),
    );
    api.onHistory = (calls) => {
      if (calls === 4) {
        api.finish('ab');
      }
    };
    const { outcome, notes } = await turn(api, { stallMs: 30 });
    assert.deepEqual(outcome, { kind: 'completed', answer: 'ab' });
    assert.equal(notes.length, 1);
  });

  it('a turn that never ends (active_kickoff_id never clears): a bounded wait, then said in plain words, the text kept', async () => {
    let clock = 0;
    const api = new Scripted(() => from([frame('1-1', 'token', { content: 'So far' })]));
    const { outcome } = await turn(api, {
      now: () => clock,
      maxWaitMs: 120_000,
      sleep: async () => {
        clock += 1000;
        await tick();
      },
    });
    assert.equal(outcome.kind, 'failed');
    assert.ok(outcome.kind === 'failed' && /no progress for 2 minutes .*stopped waiting/.test(outcome.error), JSON.stringify(outcome));
    assert.ok(outcome.kind === 'failed' && outcome.answer === 'So far');
    assert.ok(clock >= 120_000 && clock < 200_000, `gave up after ${clock} ms`);
  });

  it('a token the frames echo, cut over two token frames, is redacted before any update or the answer', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const api = new Scripted(() => {
      const all = [
        frame('1-1', 'token', { content: 'Your key is ' }),
        frame('1-2', 'token', { content: secret.slice(0, 9) }),
        frame('1-3', 'token', { content: secret.slice(9) + ', keep it. And sk-' }),
        frame('1-4', 'token', { content: 'not a key.' }),
        frame('1-5', 'turn_failed', { error: 'stopped' }),
      ];
      return from(all.map((c) => c));
    });
    api.token = secret;
    const { outcome, updates, text } = await turn(api);
    assert.equal(text, 'Your key is ***, keep it. And sk-not a key.');
    assert.ok(!JSON.stringify(updates).includes(secret.slice(3, 12)), 'no update holds the token or a half of it in one piece');
    assert.deepEqual(outcome, { kind: 'failed', error: 'stopped', answer: 'Your key is ***, keep it. And sk-not a key.' });
  });

  it('a piece redactor holds back only what could start the token, and releases it at the end', () => {
    const r = new PieceRedactor('abcdef');
    assert.equal(r.push('xx ab'), 'xx ');
    assert.equal(r.push('cd'), '');
    assert.equal(r.push('efab'), '***');
    assert.equal(r.flush(), 'ab');
    assert.equal(new PieceRedactor('').push('abc'), 'abc');
  });

  it('a fast turn: turn_failed with the first frames, its words in the envelope, still said', async () => {
    const api = new Scripted(() =>
      from([`: connected\n\n${frame('1-1', 'turn_started', { status: 'running' })}data: {"id":"1-2","type":"turn_failed","error":"KeyError: 'topic'"}\n\n`]),
    );
    const { outcome } = await turn(api);
    assert.deepEqual(outcome, { kind: 'failed', error: "KeyError: 'topic'", answer: '' });
  });

  it('a fast turn: turn_failed with the words as an object in data', async () => {
    const api = new Scripted(() => from([frame('1-1', 'turn_failed', { error: { type: 'ValueError', message: 'no such tool' } })]));
    assert.deepEqual((await turn(api)).outcome, { kind: 'failed', error: 'no such tool', answer: '' });
  });

  it('a fast turn over before the stream attaches (409, the history says nothing): the turn status gives its words', async () => {
    const api = new Scripted(() => 'refuse');
    const send = api.send.bind(api);
    api.send = async (m: string) => {
      const r = await send(m);
      api.active = null; // It failed at once: no answer in the history.
      return r;
    };
    let asked: string | undefined;
    api.turnError = async (kickoffId: string) => ((asked = kickoffId), 'Simulated fast failure: KeyError');
    const { outcome } = await turn(api);
    assert.equal(asked, 'k1');
    assert.deepEqual(outcome, { kind: 'failed', error: 'Simulated fast failure: KeyError', answer: '' });
  });

  it('a chat turn\'s status body: the failure\'s words only where it failed', () => {
    assert.equal(readTurnError({ state: 'FAILED', status: 'failed', result: null, error: 'KeyError' }), 'KeyError');
    assert.equal(readTurnError({ status: 'FAILURE', result: { message: 'no such tool' } }), 'no such tool');
    assert.equal(readTurnError({ state: 'SUCCESS', result: 'fine', error: null }), undefined);
    assert.equal(readTurnError({ detail: { code: 'session_busy', kickoff_id: 'k' } }), undefined);
    assert.equal(readTurnError('FAILED'), undefined);
  });
});

describe('Flow chat: token and chunk frames mixed (issue 46)', () => {
  /** A turn of the given frames (ids in order), the history's answer `answer`; the text as it streamed. */
  const mixed = async (answer: string, frames: [type: string, data: object][]) => {
    const api = new Scripted(() =>
      (async function* () {
        let n = 0;
        for (const [type, data] of frames) {
          yield frame(`1-${++n}`, type, data);
        }
        api.finish(answer);
        yield frame('1-999', 'turn_completed');
      })(),
    );
    return turn(api);
  };

  it('a chunk before each token of the same text: the text once while it streams', async () => {
    const { text, outcome } = await mixed('Hello there', [
      ['llm_stream_chunk', { chunk: 'Hel' }],
      ['token', { content: 'Hel' }],
      ['llm_stream_chunk', { chunk: 'lo ' }],
      ['token', { content: 'lo ' }],
      ['llm_stream_chunk', { chunk: 'there' }],
      ['token', { content: 'there' }],
    ]);
    assert.equal(text, 'Hello there');
    assert.deepEqual(outcome, { kind: 'completed', answer: 'Hello there' });
  });

  it('chunks well ahead of the tokens, cut elsewhere: the tokens that repeat them add nothing, the rest once', async () => {
    const { text } = await mixed('Hello you', [
      ['llm_stream_chunk', { chunk: 'Hel' }],
      ['llm_stream_chunk', { chunk: 'lo' }],
      ['token', { content: 'He' }],
      ['token', { content: 'llo' }],
      ['llm_stream_chunk', { chunk: ' you' }],
      ['token', { content: ' you' }],
    ]);
    assert.equal(text, 'Hello you');
  });

  it('chunks that are not text (a tool call\'s arguments, an object) are not shown; text chunks alone still stream', async () => {
    const { text } = await mixed('Hi there', [
      ['llm_stream_chunk', { chunk: '{"query": "rooms"}', tool_call: { function: { name: 'search', arguments: '{"query": "rooms"}' } }, call_type: 'tool_call' }],
      ['llm_stream_chunk', { chunk: { content: 'an object' } }],
      ['llm_stream_chunk', { chunk: 'Hi ' }],
      ['llm_stream_chunk', { chunk: 'there', tool_call: null, call_type: 'llm_call' }],
    ]);
    assert.equal(text, 'Hi there');
  });
});

describe('Frame ids remembered to drop replays', () => {
  it('a 200,000-frame answer with ordered ids: replays dropped by their order', () => {
    const ids = new FrameIds();
    for (let i = 0; i < 200_000; i++) {
      assert.equal(ids.accept(`1712345678901-${i}`), true);
    }
    assert.equal(ids.accept('1712345678901-199999'), false, 'the last frame again');
    assert.equal(ids.accept('1712345678901-5'), false, 'an old frame replayed after a reattach');
    assert.equal(ids.accept('1712345678902-0'), true);
  });

  it('ids of no known order are remembered up to a bound, the newest kept', () => {
    const ids = new FrameIds();
    for (let i = 0; i < 50_000; i++) {
      assert.equal(ids.accept(`frame-${i}`), true);
    }
    assert.equal(ids.accept('frame-49999'), false, 'the newest one replayed');
    assert.equal(ids.accept(`frame-${50_000 - FRAME_IDS_REMEMBERED}`), false, `the ${FRAME_IDS_REMEMBERED}th newest replayed`);
    // The bound: an id older than that is forgotten (a stream that never ends keeps its memory flat).
    assert.equal(ids.accept('frame-0'), true, 'the oldest is no longer remembered');
  });
});
