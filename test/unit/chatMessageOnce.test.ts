// Issue 46: a flow-chat message goes out once, machine-wide (src/flowChat/messageOnce.ts over runTracking/sendOnce.ts).
// Two windows share the marks' folder, as VS Code windows share the extension's global storage.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { answerOnce, chatAnswerKey, chatMessageKey, runTurnOnce } from '../../src/flowChat/messageOnce';
import { ChatSendError, ChatSessionGone } from '../../src/flowChat/turn';
import { SendOnce } from '../../src/runTracking/sendOnce';
import { FakeChat } from './flowChat.test';

const options = { sleep: async () => undefined, streamRetries: 1, retryDelayMs: 1, pollIntervalMs: 1, maxWaitMs: 1000 };
const signal = new AbortController().signal;
const key = chatMessageKey('https://flow.example', 'sess-1', 'Refund order 77');

/** Every POST counted; `fail` thrown from the next ones, `listed`: after the flow took the message (a lost reply). */
class Counted extends FakeChat {
  posts = 0;
  fail?: Error;
  listed = false;
  override async send(message: string): Promise<{ kickoffId?: string }> {
    this.posts++;
    if (this.fail && !this.listed) {
      throw this.fail;
    }
    const sent = await super.send(message);
    if (this.fail) {
      throw this.fail;
    }
    return sent;
  }
}

describe('Flow chat: a message sent once (issue 46)', () => {
  let dir: string;
  beforeEach(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chat-once-'))));
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));
  const turn = (sends: SendOnce, chat: FakeChat, message = 'Refund order 77') => runTurnOnce(sends, chatMessageKey('https://flow.example', 'sess-1', message), chat, message, () => undefined, options, signal);

  it('the id is the crew, the session and the words as a flow stores them (trimmed); none of them in the key', () => {
    assert.equal(chatMessageKey('https://flow.example', 'sess-1', '  Refund order 77\n'), key);
    assert.notEqual(chatMessageKey('https://flow.example', 'sess-2', 'Refund order 77'), key);
    assert.notEqual(chatMessageKey('https://other.example', 'sess-1', 'Refund order 77'), key);
    assert.match(key, /^chatMessage:[0-9a-f]{32}$/);
  });

  it('a message left "sending" by a window that is gone (a reload mid-send): not sent again; uncertain, from an earlier send', async () => {
    const gone = new SendOnce(dir, 'window-before-reload');
    assert.ok('settle' in (await gone.claim(key)));
    const chat = new Counted(['ok']);
    const outcome = await turn(new SendOnce(dir, 'window-after-reload', Date.now, () => false), chat);
    assert.equal(outcome.kind, 'uncertain');
    assert.equal(outcome.kind === 'uncertain' && outcome.earlier, true);
    assert.equal(chat.posts, 0);
  });

  it('a send of it under way in another window: not sent, said as being sent', async () => {
    assert.ok('settle' in (await new SendOnce(dir, 'window-2').claim(key)));
    const chat = new Counted(['ok']);
    assert.deepEqual(await turn(new SendOnce(dir, 'window-1'), chat), { kind: 'busy', error: 'This message is being sent already.', sending: true });
    assert.equal(chat.posts, 0);
  });

  it('refused, busy or the session gone: the mark is freed and the same words may go again', async () => {
    const sends = new SendOnce(dir, 'window-1');
    for (const fail of [new ChatSendError('notSent', 'HTTP 422'), new ChatSendError('busy', 'HTTP 409'), new ChatSessionGone('HTTP 404')]) {
      const chat = new Counted(['ok']);
      chat.fail = fail;
      assert.notEqual((await turn(sends, chat)).kind, 'uncertain');
      assert.equal(await sends.peek(key), undefined, fail.message);
    }
    const chat = new Counted(['ok']);
    assert.equal((await turn(sends, chat)).kind, 'completed');
    assert.equal(chat.posts, 1);
  });

  it('sent: settled "sent" with its kickoff as the POST ends; the same words later are a new message', async () => {
    const sends = new SendOnce(dir, 'window-1');
    const chat = new Counted(['ok']);
    assert.equal((await turn(sends, chat)).kind, 'completed');
    const mark = await sends.peek(key);
    assert.equal(mark?.state, 'sent');
    assert.equal(mark?.ref?.kickoffId, 'k1');
    assert.equal((await turn(new SendOnce(dir, 'window-2'), chat)).kind, 'completed');
    assert.equal(chat.posts, 2);
  });

  it('uncertain, then found in the history by the same turn: the mark is freed (it arrived); not found: it stays', async () => {
    const sends = new SendOnce(dir, 'window-1');
    const lost = new Counted(['Refunded.']);
    lost.fail = new ChatSendError('uncertain', 'HTTP 502');
    lost.listed = true;
    assert.equal((await turn(sends, lost)).kind, 'completed');
    assert.equal(await sends.peek(key), undefined);
    const unsure = new Counted(['x']);
    unsure.fail = new ChatSendError('uncertain', 'socket hang up');
    assert.equal((await turn(sends, unsure, 'Cancel order 78')).kind, 'uncertain');
    assert.equal((await sends.peek(chatMessageKey('https://flow.example', 'sess-1', 'Cancel order 78')))?.state, 'uncertain');
    assert.equal((await turn(sends, unsure, 'Cancel order 78')).kind, 'uncertain');
    assert.equal(unsure.posts, 1, 'never posted twice');
  });
});

describe('Flow chat: the answer to a flow\'s question sent once (issue 46)', () => {
  let dir: string;
  beforeEach(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chat-answer-once-'))));
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));
  const question = chatAnswerKey('https://flow.example', 'sess-1', 'flow-9', 'q-1');

  it('two windows showing the same question: the first answer goes, the second is not sent and is told it was answered', async () => {
    let posts = 0;
    const send = async () => void posts++;
    assert.deepEqual(await answerOnce(new SendOnce(dir, 'window-a'), question, send), { kind: 'sent' });
    assert.deepEqual(await answerOnce(new SendOnce(dir, 'window-b'), question, send), { kind: 'answeredElsewhere', uncertain: false });
    assert.equal(posts, 1);
    assert.notEqual(chatAnswerKey('https://flow.example', 'sess-1', 'flow-9', 'q-2'), question, 'the next question is a new item');
  });

  it('refused: free to answer again; uncertain: never sent again, from this window or another', async () => {
    const a = new SendOnce(dir, 'window-a');
    const refused = await answerOnce(a, question, async () => {
      throw new ChatSendError('notSent', 'The flow answered 422.');
    });
    assert.equal(refused.kind, 'refused');
    const uncertain = await answerOnce(a, question, async () => {
      throw new ChatSendError('uncertain', 'The connection was reset.');
    });
    assert.equal(uncertain.kind, 'uncertain');
    let posts = 0;
    assert.deepEqual(await answerOnce(new SendOnce(dir, 'window-b'), question, async () => void posts++), { kind: 'answeredElsewhere', uncertain: true });
    assert.equal(posts, 0);
  });
});
