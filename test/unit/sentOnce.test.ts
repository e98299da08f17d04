// A kickoff or a resume the crew may have acted on is never sent again, nor offered as a retry: the
// client's answer for a reply it could not read, and the one rule callers use to tell "refused" from
// "may have acted".
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { CrewClient } from '../../src/api/client';
import { CrewApiError, mayHaveActed } from '../../src/api/errors';
import type { HttpResponse } from '../../src/api/transportTypes';

function clientAnswering(response: HttpResponse) {
  const sent: string[] = [];
  const client = new CrewClient({
    getToken: async () => 'token-1234567890',
    sleep: async () => undefined,
    createTransport: () => ({ request: async (r) => (sent.push(`${r.method} ${r.url}`), response), close: async () => undefined }),
  });
  return { client, sent };
}

describe('a kickoff or resume is sent once', () => {
  it('a resume the crew accepted (2xx) with an id that is not an id is still a resume, not a failure to retry', async () => {
    for (const bodyText of [JSON.stringify({ kickoff_id: 'x'.repeat(5000) }), JSON.stringify({ kickoff_id: 'has spaces and \u202e' })]) {
      const { client, sent } = clientAnswering({ status: 200, headers: {}, bodyText });
      const result = await client.resume('https://crew.example.com', { executionId: 'k1', taskId: 't1', humanFeedback: 'ok', isApprove: true });
      assert.equal(result.kind, 'resumed', bodyText.slice(0, 60));
      assert.equal(sent.length, 1);
    }
  });

  it('only a clear refusal means the crew did not act; a fault, a 5xx or an unreadable 2xx may hide a run that started', () => {
    const refused = ['unauthorized', 'noToken', 'notFound', 'missingInputs', 'badRequest', 'rateLimited', 'refused'] as const;
    const unsure = ['server', 'network', 'timeout', 'badResponse'] as const;
    for (const kind of refused) {
      assert.equal(mayHaveActed(new CrewApiError(kind, kind)), false, kind);
    }
    for (const kind of unsure) {
      assert.equal(mayHaveActed(new CrewApiError(kind, kind)), true, kind);
    }
    const aborted = new Error('aborted');
    aborted.name = 'AbortError';
    assert.equal(mayHaveActed(aborted), true, 'cancelled after it was sent');
  });

  it('a 2xx kickoff reply without a readable id is a "may have started", never a plain failure', async () => {
    const { client, sent } = clientAnswering({ status: 201, headers: {}, bodyText: '{"ok":true}' });
    const error = await client.kickoff('https://crew.example.com', { inputs: {} }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof CrewApiError, String(error));
    assert.equal(mayHaveActed(error), true);
    assert.equal(sent.length, 1);
  });

  it('through the real transport: a refused connection sent nothing; a connection cut after the request may have started a run', async () => {
    const client = new CrewClient({ getToken: async () => 'token-1234567890', sleep: async () => undefined });
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await client.kickoff(`http://127.0.0.1:${closedPort}`, { inputs: {} }).then(() => undefined, (e: unknown) => e);
    assert.ok(refused instanceof CrewApiError && refused.kind === 'network', String(refused));
    assert.equal(mayHaveActed(refused), false, 'connection refused: nothing was sent');

    const requests: string[] = [];
    const cutter = net.createServer((socket) => socket.once('data', (chunk) => (requests.push(chunk.toString().split('\r\n')[0]), socket.destroy())));
    await new Promise<void>((resolve) => cutter.listen(0, '127.0.0.1', resolve));
    try {
      const cut = await client.kickoff(`http://127.0.0.1:${(cutter.address() as net.AddressInfo).port}`, { inputs: {} }).then(() => undefined, (e: unknown) => e);
      assert.deepEqual(requests, ['POST /kickoff HTTP/1.1']);
      assert.equal(mayHaveActed(cut), true, `cut after the request: ${String(cut)}`);
    } finally {
      await new Promise<void>((resolve) => cutter.close(() => resolve()));
      await client.dispose();
    }
  });
});
