// Large status bodies are read off the main thread (api/statusReader.ts): the same bounded snapshot as in place,
// a reader that dies becomes one clear failed check (the next one works), small bodies stay in place, and the
// token never reaches the snapshot or an error's text. A local crew serves the bodies through the real transport.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
import { OFF_THREAD_BYTES, StatusReader } from '../../src/api/statusReader';
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

  before(async () => {
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads a hostile body off the thread into the very snapshot read in place, the token taken out', async () => {
    const reader = new StatusReader();
    try {
      const read = await reader.read(Buffer.from(hostile), 200, TOKEN);
      assert.ok(read.ok);
      assert.deepStrictEqual(read.snapshot, inPlace(hostile));
      assert.deepStrictEqual(readStatusBody(Buffer.from(hostile), 200, TOKEN), read);
      assert.equal(read.snapshot.usageListed, 100_000);
      assert.equal(read.snapshot.tasksListed, 20_000);
      assert.ok(!JSON.stringify(read.snapshot).includes(TOKEN));
    } finally {
      await reader.close();
    }
  });

  it('goes through the real transport and client: a large status off the thread, a small one in place', async () => {
    const transport = createTransport(DEFAULT_NETWORK_SETTINGS);
    const seen: HttpResponse[] = [];
    const watched: Transport = {
      request: async (req) => {
        const response = await transport.request(req);
        seen.push(response);
        return response;
      },
      close: () => transport.close(),
    };
    const client = new CrewClient({ getToken: async () => TOKEN, createTransport: () => watched });
    try {
      body = hostile;
      const large = await client.getStatus(baseUrl, 'run-1');
      assert.ok(seen[0].statusRead, 'the large body was read off the thread');
      assert.equal(seen[0].bodyText, '');
      assert.deepStrictEqual(large, inPlace(hostile));

      body = JSON.stringify({ state: 'RUNNING', status: `working, ${TOKEN}`, current_task: 'research' });
      assert.ok(body.length < OFF_THREAD_BYTES);
      const small = await client.getStatus(baseUrl, 'run-1');
      assert.equal(seen[1].statusRead, undefined, 'a small body is read in place');
      assert.equal(small.currentTask, 'research');
      assert.equal(small.message, 'working, ***');

      body = `${'x'.repeat(OFF_THREAD_BYTES)} not JSON ${TOKEN}`;
      await assert.rejects(client.getStatus(baseUrl, 'run-1'), (e: unknown) => e instanceof CrewApiError && e.kind === 'badResponse' && /not valid JSON/.test(e.message) && !e.message.includes(TOKEN));
    } finally {
      await client.dispose();
    }
  });

  it('turns a reader that dies into a clear failed read without the token, and the next read works', async () => {
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
         parentPort.on('message', (m) => { throw new Error('reader died reading ' + m.token); });
       } else {
         require(${JSON.stringify(require.resolve('../../src/api/statusReader'))});
       }`,
    );
    fs.writeFileSync(flag, '');
    const reader = new StatusReader({ script });
    try {
      await assert.rejects(reader.read(Buffer.from(hostile), 200, TOKEN), (e: unknown) => {
        const message = String((e as Error).message) + String((e as Error).stack);
        assert.match((e as Error).message, /The crew's status \(\d+ MB\) could not be read: the reader stopped\. It is read again at the next check\./);
        assert.ok(!message.includes(TOKEN), message);
        return true;
      });
      const read = await reader.read(Buffer.from(hostile), 200, TOKEN);
      assert.ok(read.ok);
      assert.deepStrictEqual(read.snapshot, inPlace(hostile));
    } finally {
      await reader.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('makes a reader that dies mid-poll a badResponse the poller backs off from, and the next poll reads', async () => {
    const transport = createTransport(DEFAULT_NETWORK_SETTINGS);
    const client = new CrewClient({ getToken: async () => TOKEN, createTransport: () => transport });
    try {
      body = hostile;
      // Ends the reader's worker while it reads: what a crash looks like from the host.
      const { Worker } = await import('node:worker_threads');
      const started = new Promise<InstanceType<typeof Worker>>((resolve) => {
        const original = Worker.prototype.postMessage;
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
        assert.match(e.message, /could not be read: the reader stopped/);
        assert.ok(!e.message.includes(TOKEN) && !String(e.stack).includes(TOKEN));
        return true;
      });
      const next = await client.getStatus(baseUrl, 'run-1');
      assert.deepStrictEqual(next, inPlace(hostile));
    } finally {
      await client.dispose();
    }
  });

  it('never keeps the process alive, and close() fails what is still waiting as cancelled', async () => {
    // A process that reads once and never closes its reader still exits by itself.
    const child = spawnSync(process.execPath, ['-e', `
      const { StatusReader } = require(${JSON.stringify(require.resolve('../../src/api/statusReader'))});
      new StatusReader().read(Buffer.from('{"state":"RUNNING"}'), 200, 'child-token-1234').then((r) => console.log(r.snapshot.state));
    `], { encoding: 'utf8', timeout: 15_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'running');

    const reader = new StatusReader();
    const read = assert.rejects(reader.read(Buffer.from(hostile), 200, TOKEN), /cancelled/);
    await reader.close();
    await read;
    await assert.rejects(reader.read(Buffer.from('{}'), 200, TOKEN), /cancelled/);
  });
});
