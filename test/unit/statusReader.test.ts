// Status checks are made, and their bodies read, on the status reader's thread (api/statusReader.ts): the same
// bounded snapshot as read in place, a reader that dies becomes one clear failed check (the next one works), it
// never holds the process, and the token never reaches the snapshot or an error's text. A local crew serves the
// bodies through the real transport.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewClient } from '../../src/api/client';
import { CrewApiError } from '../../src/api/errors';
import { normaliseStatus } from '../../src/api/normalize';
import { parseJson } from '../../src/api/responses';
import { readStatusBody } from '../../src/api/statusBody';
import { StatusReader } from '../../src/api/statusReader';
import { createTransport } from '../../src/api/transport';
import { DEFAULT_NETWORK_SETTINGS, type HttpResponse, type Transport } from '../../src/api/transportTypes';

const TOKEN = 'reader-canary-token-7731';

/** Hostile in every way issue #32 names, at a tenth of the bench's size (still ~4 MB), echoing the token. */
function hostileBody(): string {
  const usage = `{${Array.from({ length: 100_000 }, (_, i) => `"metric_${i}":${i}`).join(',')}}`;
  const tasks = `[${Array.from({ length: 20_000 }, (_, i) => `{"task_id":"t${i}","name":"task ${i}","output":"out ${i}"}`).join(',')}]`;
  const big = JSON.stringify(`${TOKEN} ${'x'.repeat(1024 * 1024)}`);
  const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
  return `{"state":"RUNNING","status":${big},"current_task":"echo ${TOKEN}","last_step":{"thought":${big},"tool_input":${deep}},"usage_metrics":${usage},"tasks_output":${tasks}}`;
}

/** What the client reads in place today: the transport's text, redacted, read within limits, normalised. */
function inPlace(text: string): unknown {
  return normaliseStatus(parseJson({ status: 200, headers: {}, bodyText: text.split(TOKEN).join('***') }), 200);
}

describe('Status reader thread', function () {
  this.timeout(60_000);
  let server: Server;
  let baseUrl: string;
  let body = '';
  const hostile = hostileBody();
  const transportScript = require.resolve('../../src/api/transport');

  before(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      // A crew that takes its time: the check is cancelled before it answers.
      const slow = req.url?.endsWith('/slow');
      setTimeout(() => res.end(body), slow ? 5_000 : 0);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A client on the real transport, and every response the client got from it. */
  function clientWithTransport(transport: Transport): { client: CrewClient; seen: HttpResponse[] } {
    const seen: HttpResponse[] = [];
    const watched: Transport = {
      request: async (req) => {
        const response = await transport.request(req);
        seen.push(response);
        return response;
      },
      close: () => transport.close(),
    };
    return { client: new CrewClient({ getToken: async () => TOKEN, createTransport: () => watched }), seen };
  }

  it('reads a hostile status on its thread into the very snapshot read in place, the token taken out', async () => {
    const { client, seen } = clientWithTransport(createTransport(DEFAULT_NETWORK_SETTINGS));
    const here = clientWithTransport(createTransport(DEFAULT_NETWORK_SETTINGS, process.env, { statusOnThisThread: true }));
    try {
      body = hostile;
      const snapshot = await client.getStatus(baseUrl, 'run-1');
      assert.ok(seen[0].statusRead, 'the body came back read');
      assert.equal(seen[0].bodyText, '', 'and not as text');
      assert.deepStrictEqual(snapshot, inPlace(hostile));
      assert.deepStrictEqual(await here.client.getStatus(baseUrl, 'run-1'), snapshot);
      assert.deepStrictEqual(readStatusBody(Buffer.from(hostile), 200, TOKEN), { ok: true, snapshot });
      assert.equal(snapshot.usageListed, 100_000);
      assert.equal(snapshot.tasksListed, 20_000);
      assert.ok(!JSON.stringify(snapshot).includes(TOKEN));
    } finally {
      await Promise.all([client.dispose(), here.client.dispose()]);
    }
  });

  it('reads an ordinary status the same way, and a body that is no JSON is a badResponse without the token', async () => {
    const { client } = clientWithTransport(createTransport(DEFAULT_NETWORK_SETTINGS));
    try {
      body = JSON.stringify({ state: 'RUNNING', status: `working, ${TOKEN}`, current_task: 'research' });
      const small = await client.getStatus(baseUrl, 'run-1');
      assert.deepStrictEqual(small, inPlace(body));
      assert.equal(small.currentTask, 'research');
      assert.equal(small.message, 'working, ***');

      body = `${'x'.repeat(1024 * 1024)} not JSON ${TOKEN}`;
      await assert.rejects(client.getStatus(baseUrl, 'run-1'), (e: unknown) => e instanceof CrewApiError && e.kind === 'badResponse' && /not valid JSON/.test(e.message) && !e.message.includes(TOKEN));
    } finally {
      await client.dispose();
    }
  });

  it('turns a reader that dies into a clear failed check without the token, and the next check works', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-reader-'));
    const flag = path.join(dir, 'crash-next');
    // The first worker dies on its first request (as one out of memory would); later ones are the real reader.
    const script = path.join(dir, 'reader.js');
    fs.writeFileSync(
      script,
      `const fs = require('fs');
       const { parentPort } = require('worker_threads');
       if (fs.existsSync(${JSON.stringify(flag)})) {
         fs.unlinkSync(${JSON.stringify(flag)});
         parentPort.on('message', (m) => { throw new Error('reader died on ' + JSON.stringify(m)); });
       } else {
         require(${JSON.stringify(transportScript)});
       }`,
    );
    fs.writeFileSync(flag, '');
    const reader = new StatusReader({ script, settings: DEFAULT_NETWORK_SETTINGS, env: {} });
    const req = { method: 'GET' as const, url: `${baseUrl}/status/run-1`, headers: { authorization: `Bearer ${TOKEN}` }, readStatus: { token: TOKEN } };
    try {
      body = hostile;
      await assert.rejects(reader.request(req), (e: unknown) => {
        const text = `${(e as Error).message} ${(e as Error).stack}`;
        assert.match((e as Error).message, /^The status from http:\/\/127\.0\.0\.1:\d+ could not be read: the status reader stopped\. The next check starts it again\.$/);
        assert.ok(!text.includes(TOKEN), text);
        return true;
      });
      const response = await reader.request(req);
      assert.ok(response.statusRead?.ok);
      assert.deepStrictEqual(response.statusRead.snapshot, inPlace(hostile));
    } finally {
      await reader.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('makes a reader that dies mid-poll a badResponse the poller backs off from, and the next poll reads', async () => {
    const { client } = clientWithTransport(createTransport(DEFAULT_NETWORK_SETTINGS));
    const { Worker } = await import('node:worker_threads');
    const original = Worker.prototype.postMessage;
    try {
      body = hostile;
      // Ends the reader's worker while it works: what a crash looks like from the host.
      const started = new Promise<InstanceType<typeof Worker>>((resolve) => {
        Worker.prototype.postMessage = function (this: InstanceType<typeof Worker>, ...args: Parameters<typeof original>) {
          Worker.prototype.postMessage = original;
          resolve(this);
          return original.apply(this, args);
        };
      });
      const poll = client.getStatus(baseUrl, 'run-1');
      void (await started).terminate();
      await assert.rejects(poll, (e: unknown) => {
        assert.ok(e instanceof CrewApiError && e.kind === 'badResponse', String(e));
        assert.match(e.message, /could not be read: the status reader stopped/);
        assert.ok(!e.message.includes(TOKEN) && !String(e.stack).includes(TOKEN));
        return true;
      });
      assert.deepStrictEqual(await client.getStatus(baseUrl, 'run-1'), inPlace(hostile));
    } finally {
      Worker.prototype.postMessage = original;
      await client.dispose();
    }
  });

  it("passes on the reader's network failures in the transport's words, without the token", async () => {
    const { client } = clientWithTransport(createTransport(DEFAULT_NETWORK_SETTINGS));
    try {
      // A port nothing listens on: refused before anything was sent.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      await assert.rejects(client.getStatus(`http://127.0.0.1:${port}`, TOKEN), (e: unknown) => {
        assert.ok(e instanceof CrewApiError && e.kind === 'network' && e.notSent, String(e));
        assert.match(e.message, /connection refused/);
        assert.ok(!e.message.includes(TOKEN));
        return true;
      });
    } finally {
      await client.dispose();
    }
  });

  it('cancels a check under way in the reader (stop watching, dispose): an AbortError, and the next check works', async () => {
    const { client } = clientWithTransport(createTransport(DEFAULT_NETWORK_SETTINGS));
    try {
      body = JSON.stringify({ state: 'RUNNING' });
      const controller = new AbortController();
      const poll = client.getStatus(baseUrl, 'slow', controller.signal);
      setTimeout(() => controller.abort(), 200);
      // An AbortError, not the answer the server sends 5 s later: the check did not wait for it.
      await assert.rejects(poll, (e: unknown) => (e as Error).name === 'AbortError');
      assert.equal((await client.getStatus(baseUrl, 'run-1')).state, 'running');
    } finally {
      await client.dispose();
    }
  });

  it('never holds the process when idle, and close() fails what is still waiting as cancelled', async () => {
    // A process that checks once and never closes its transport still exits by itself.
    body = JSON.stringify({ state: 'RUNNING' });
    // (Asynchronously: the crew it asks is served by this process.)
    const child = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const started = execFile(process.execPath, ['-e', `
      const { createTransport } = require(${JSON.stringify(transportScript)});
      const { CrewClient } = require(${JSON.stringify(require.resolve('../../src/api/client'))});
      const client = new CrewClient({ getToken: async () => 'child-token-1234', createTransport: (s) => createTransport(s) });
      client.getStatus(${JSON.stringify(baseUrl)}, 'run-1').then((r) => console.log(r.state));
    `], { encoding: 'utf8', timeout: 15_000 }, (_e, stdout, stderr) => resolve({ code: started.exitCode, stdout, stderr }));
    });
    assert.equal(child.code, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'running');

    const reader = new StatusReader({ script: transportScript, settings: DEFAULT_NETWORK_SETTINGS, env: {} });
    body = hostile;
    const read = assert.rejects(reader.request({ method: 'GET', url: `${baseUrl}/status/run-1`, headers: {}, readStatus: { token: TOKEN } }), /cancelled/);
    await reader.close();
    await read;
    await assert.rejects(reader.request({ method: 'GET', url: `${baseUrl}/status/run-1`, headers: {} }), /cancelled/);
  });
});
