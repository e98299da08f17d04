// Which crews chat (src/flowChat/core/chatSupport.ts): asked lazily, one crew at a time with a gap, remembered until
// forgotten; a crew that cannot be asked is not offered chat; an answer older than a forget is not believed.
import * as assert from 'node:assert/strict';
import { ChatSupport } from '../../src/flowChat/core/chatSupport';

/** A probe whose answers the test gives, one call at a time. */
class Probe {
  calls: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private waiting: { url: string; resolve: (chats: boolean) => void; reject: (e: Error) => void }[] = [];

  readonly probe = (url: string) => {
    this.calls.push(url);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<boolean>((resolve, reject) => this.waiting.push({ url, resolve, reject })).finally(() => this.inFlight--);
  };

  async answer(url: string, answer: boolean | Error): Promise<void> {
    for (let i = 0; i < 100 && !this.waiting.some((w) => w.url === url); i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const index = this.waiting.findIndex((w) => w.url === url);
    assert.ok(index >= 0, `${url} is being asked`);
    const [waiting] = this.waiting.splice(index, 1);
    if (answer instanceof Error) {
      waiting.reject(answer);
    } else {
      waiting.resolve(answer);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('Which crews chat', () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('asks a crew when first drawn, once, one crew at a time with a gap, and remembers', async () => {
    const probe = new Probe();
    const gaps: number[] = [];
    const support = new ChatSupport({ probe: probe.probe, sleep: async (ms) => void gaps.push(ms), gapMs: 300 });
    const changed: string[] = [];
    support.onDidChange((url) => changed.push(url));
    assert.equal(support.chats('a'), undefined);
    assert.equal(support.chats('b'), undefined);
    assert.equal(support.chats('a'), undefined, 'drawn again while asked: not asked twice');
    await settle();
    assert.deepEqual(probe.calls, ['a'], 'one at a time');
    await probe.answer('a', true);
    await probe.answer('b', false);
    assert.deepEqual(probe.calls, ['a', 'b']);
    assert.equal(probe.maxInFlight, 1);
    assert.deepEqual(gaps, [300], 'a pause between two asks');
    assert.deepEqual(changed, ['a', 'b']);
    assert.equal(support.chats('a'), true);
    assert.equal(support.chats('b'), false);
    await settle();
    assert.deepEqual(probe.calls, ['a', 'b'], 'remembered: not asked again');
    support.dispose();
  });

  it('a crew that cannot be asked (401, network) is not offered chat', async () => {
    const probe = new Probe();
    const support = new ChatSupport({ probe: probe.probe, sleep: async () => undefined });
    support.chats('a');
    await probe.answer('a', new Error('401'));
    assert.equal(support.chats('a'), false);
    support.dispose();
  });

  it('forget asks again when next drawn; an answer begun before a forget is not believed', async () => {
    const probe = new Probe();
    const support = new ChatSupport({ probe: probe.probe, sleep: async () => undefined });
    support.chats('a');
    await probe.answer('a', false);
    const changed: string[] = [];
    support.onDidChange((url) => changed.push(url));
    support.forget('a');
    assert.deepEqual(changed, ['a'], 'its row is redrawn');
    assert.equal(support.chats('a'), undefined);
    await settle();
    support.forget(); // Refresh while the second ask runs (the token was replaced, the deployment redeployed).
    await probe.answer('a', false);
    assert.equal(support.chats('a'), undefined, 'the stale answer was dropped');
    await probe.answer('a', true);
    assert.equal(support.chats('a'), true);
    assert.deepEqual(probe.calls, ['a', 'a', 'a']);
    support.dispose();
  });

  it('an answer found elsewhere (the palette command) is remembered and redraws the crew', () => {
    const probe = new Probe();
    const support = new ChatSupport({ probe: probe.probe, sleep: async () => undefined });
    const changed: string[] = [];
    support.onDidChange((url) => changed.push(url));
    support.set('a', true);
    support.set('a', true);
    assert.equal(support.chats('a'), true);
    assert.deepEqual(changed, ['a']);
    assert.deepEqual(probe.calls, []);
    support.dispose();
  });
});
