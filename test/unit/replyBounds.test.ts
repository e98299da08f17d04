// Issue #47: no crew or platform reply costs the extension host's thread more than a small, fixed amount, whatever
// its status and size up to the cap. A non-2xx body is read to its first 64 KB only (the rest is never taken off
// the socket); a 2xx body other than a status is read on the status reader's thread, which sends back the value
// read within bounds and at most 64 KB of its text. A local server sends 60 MB escape-dense replies through the
// real transport; what reaches the host is counted, never timed.
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { omittedEntries, READ_LIMITS, readJsonBounded } from '../../src/api/boundedJson';
import { CrewClient } from '../../src/api/client';
import { CrewApiError } from '../../src/api/errors';
import { jsonOfRead, readJsonBody, REPLY_VALUE_BUDGET } from '../../src/api/jsonBody';
import { MAX_LOG_TEXT_CHARS } from '../../src/api/logLines';
import { redact, redactResponse } from '../../src/api/redact';
import { createTransport } from '../../src/api/transport';
import { DEFAULT_NETWORK_SETTINGS, ERROR_BODY_BYTES, type HttpResponse, type Transport } from '../../src/api/transportTypes';
import { PlatformClient, PlatformError } from '../../src/platform/platformClient';

const TOKEN = 'reply-bounds-canary-5521';
const BODY_BYTES = 60 * 1024 * 1024;

/** The token in JSON escapes, between `\u0000` escapes, between raw control characters, and as HTML entities. */
const SPELLED = [
  [...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  [...TOKEN].join('\\u0000'),
  [...TOKEN].join('\u0001\u200e'),
  [...TOKEN].map((c) => `&#${c.charCodeAt(0)};`).join(''),
];

/** 60 MB of JSON whose every character is an escape (what costs a redactor and a reader the most), the token first. */
function escapeDense(kind: 'detail' | 'list'): Buffer {
  const unit = '\\u0041';
  const head = kind === 'detail' ? `{"detail":"failed for ${TOKEN} ` : `{"flow":{"chat":{"conversational":true}},"echo":"${TOKEN}","logs":[`;
  const tail = kind === 'detail' ? '"}' : '{"message":"last line"}]}';
  const filler = kind === 'detail' ? unit : `"${unit.repeat(15)}",`;
  const count = Math.floor((BODY_BYTES - head.length - tail.length) / filler.length);
  return Buffer.from(head + filler.repeat(count) + tail);
}

describe('Reply bounds (#47)', function () {
  this.timeout(120_000);
  let server: Server;
  let baseUrl: string;
  const detail = escapeDense('detail');
  const list = escapeDense('list');
  /** A 500 spelling the token every way SPELLED does, then 1 MB of escapes. */
  const spelled = Buffer.from(`{"detail":"${SPELLED.join(' ')} ${'\\u0041'.repeat(170_000)}"}`);
  /** Bytes the server could hand to the socket before the client stopped reading, per request. */
  const written: number[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const ok = /inspect|logs\/deployment/.test(req.url ?? '');
      const body = /spelled/.test(req.url ?? '') ? spelled : ok ? list : detail;
      res.writeHead(ok ? 200 : /status/.test(req.url ?? '') && body !== spelled ? 404 : 500, { 'content-type': 'application/json', 'content-length': body.length });
      let at = 0;
      const slot = written.push(0) - 1;
      const pump = () => {
        while (at < body.length) {
          const piece = body.subarray(at, at + 64 * 1024);
          at += piece.length;
          written[slot] = at;
          if (!res.write(piece)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** The real transport, and every response the host got from it. */
  function watched(): { transport: Transport; seen: HttpResponse[] } {
    const real = createTransport(DEFAULT_NETWORK_SETTINGS);
    const seen: HttpResponse[] = [];
    return {
      seen,
      transport: {
        request: async (req) => {
          const response = await real.request(req);
          seen.push(response);
          return response;
        },
        close: () => real.close(),
      },
    };
  }

  it('reads only the first 64 KB of a 60 MB escape-dense 500 or 404 reply, and says its first words without the token', async () => {
    const { transport, seen } = watched();
    const client = new CrewClient({ getToken: async () => TOKEN, createTransport: () => transport });
    try {
      written.length = 0;
      await assert.rejects(client.getInputs(baseUrl), (e: unknown) => {
        assert.ok(e instanceof CrewApiError && e.kind === 'server' && e.status === 500, String(e));
        // Its first words (a cut JSON body is shown as the start of its text).
        assert.match(e.serverMessage ?? '', /failed for \*\*\* /);
        assert.ok(!`${e.message} ${e.serverMessage}`.includes(TOKEN));
        return true;
      });
      // A 404 status: the poll's error reply, read in the status reader.
      const snapshot = await client.getStatus(baseUrl, 'run-1');
      assert.equal(snapshot.state, 'notFound');
      for (const response of seen) {
        assert.ok(response.bodyText.length <= ERROR_BODY_BYTES, `the host got ${response.bodyText.length} characters of a ${BODY_BYTES}-byte error body`);
      }
      // The rest was left on the socket: the server could not write it all (kernel buffers take a few MB at most).
      assert.ok(written.every((n) => n < BODY_BYTES / 4), `the server wrote ${written.join(', ')} bytes of ${BODY_BYTES}`);
    } finally {
      await client.dispose();
    }
  });

  it("hands the host an error's kept text redacted on the reader's thread, every spelling, marked not to be redacted again", async () => {
    const { transport, seen } = watched();
    const client = new CrewClient({ getToken: async () => TOKEN, createTransport: () => transport });
    try {
      // A poll (readStatus) and any other call (readJson) meeting the same 500.
      await assert.rejects(client.getStatus(baseUrl, 'spelled'), (e: unknown) => e instanceof CrewApiError && e.status === 500 && !e.message.includes(TOKEN));
      await assert.rejects(client.chatCall(baseUrl, ['spelled'], 'GET', undefined), (e: unknown) => e instanceof CrewApiError && e.status === 500);
      assert.equal(seen.length, 2);
      for (const response of seen) {
        assert.equal(response.bodyRedacted, true, 'the reader redacted the kept text');
        assert.ok(response.bodyText.length <= ERROR_BODY_BYTES && response.bodyText.startsWith('{"detail":"***'), response.bodyText.slice(0, 80));
        // Nothing left for a redactor to find, in any spelling or decoded layer.
        assert.equal(redact(response.bodyText, TOKEN), response.bodyText);
        assert.equal((response.bodyText.match(/\*\*\*/g) ?? []).length, SPELLED.length);
      }
    } finally {
      await client.dispose();
    }
  });

  it('the host does not redact a body the reader marked redacted again (its headers still are)', () => {
    // Only the transport sets the mark, once it has taken the request's token out (redacting 64 KB of escapes again
    // cost the host's thread 15-20 ms): a marked body comes through as it is, so this one still spells the token.
    const reply = redactResponse({ status: 500, headers: { 'x-echo': TOKEN }, bodyText: SPELLED[0], bodyRedacted: true }, TOKEN);
    assert.equal(reply.bodyText, SPELLED[0]);
    assert.equal(reply.headers['x-echo'], '***');
    assert.equal(redactResponse({ status: 500, headers: {}, bodyText: SPELLED[0] }, TOKEN).bodyText, '***');
  });

  it('reads a 60 MB escape-dense 2xx /inspect off the host thread: the host gets the value and at most 64 KB of text', async () => {
    const { transport, seen } = watched();
    const client = new CrewClient({ getToken: async () => TOKEN, createTransport: () => transport });
    try {
      const body = (await client.chatCall(baseUrl, ['inspect'], 'GET', undefined)) as { flow: { chat: { conversational: boolean } }; echo: string; logs: unknown[] };
      assert.equal(body.flow.chat.conversational, true);
      assert.equal(body.echo, '***');
      assert.ok(seen[0].jsonRead, 'the body came back read');
      assert.ok(seen[0].bodyText.length <= ERROR_BODY_BYTES, `the host got ${seen[0].bodyText.length} characters of text`);
    } finally {
      await client.dispose();
    }
  });

  it('reads a 60 MB platform log off the host thread and a 60 MB platform error to its first 64 KB, the token out of its kept words', async () => {
    const { transport, seen } = watched();
    const platform = new PlatformClient({ createTransport: () => transport });
    const credentials = { baseUrl, token: TOKEN };
    try {
      const logs = await platform.logs(credentials, 'd1');
      assert.equal(logs.lines.at(-1)?.message, 'last line');
      assert.ok(seen[0].logLines, 'the log came back read');
      assert.ok(seen[0].bodyText.length <= ERROR_BODY_BYTES);
      // The log's document: its text made there, within its budget, up to the last line.
      const log = await platform.logText(credentials, 'd1');
      assert.ok(log.text.endsWith('\nlast line') && log.text.length <= MAX_LOG_TEXT_CHARS, `${log.text.length} characters`);
      assert.ok(seen[1].logText && !seen[1].jsonRead, 'the text came back made');
      assert.ok(seen[1].bodyText.length <= ERROR_BODY_BYTES);
      await assert.rejects(platform.deployments(credentials), (e: unknown) => {
        assert.ok(e instanceof PlatformError && e.kind === 'server', String(e));
        assert.ok(!`${e.message} ${e.serverWords}`.includes(TOKEN));
        return true;
      });
      assert.ok(seen[2].bodyText.length <= ERROR_BODY_BYTES, `the host got ${seen[2].bodyText.length} characters of a platform error`);
    } finally {
      await platform.dispose();
    }
  });
});

// What crosses from the reader's thread to the host's is JSON text of the value read, which the host parses (a
// structured clone of the value cost the host's thread up to 3× a JSON.parse of it): a body within the limits and
// the budget is sent as its own text, not serialised again; any other as JSON of what was kept, at most
// REPLY_VALUE_BUDGET characters.
describe('Reply values handed to the host as JSON text (#47)', () => {
  const read = (text: string, limits = READ_LIMITS) => readJsonBody(Buffer.from(text), TOKEN, limits).read;

  it('hands a body read whole over as its own text, the token out, not serialised again', () => {
    const body = ` {"a": [1, -2.5e3, "${TOKEN}"], "b": {"c": null, "__proto__": {"d": "\\u00e9"}}, "task_id": 9007199254740991}\n`;
    const got = read(body);
    assert.equal(got.json, body.trim().replace(TOKEN, '***'));
    assert.deepEqual(got.omitted, []);
    assert.deepEqual(jsonOfRead(got), JSON.parse(body.replace(TOKEN, '***')));
  });

  it('hands over JSON of what was read when the reader changed anything, with its marks, and as much as before', () => {
    const limits = { ...READ_LIMITS, maxEntries: 3, maxStringChars: 5 };
    const cases = [
      '{"n":007,"m":-01.5}', // leading zeros: read as numbers, which JSON.parse refuses
      '{"s":"a\tb\u0001c"}', // raw control characters in a string
      '{"task_id":12345678901234567890}', // an id beyond 2⁵³ kept as its digits
      '{"a":[1,2,3,4,5],"o":{"p":1,"q":2,"r":3,"s":4}}', // entries left out
      '{"s":"abcdefgh"}', // a string cut
      `{"d":${'['.repeat(300)}${']'.repeat(300)}}`, // nesting cut
    ];
    for (const body of cases) {
      const got = read(body, limits);
      const direct = readJsonBounded(body, limits);
      assert.ok(direct.ok && got.json !== undefined, body);
      assert.notEqual(got.json, body, body);
      const value = jsonOfRead(got);
      assert.deepEqual(value, direct.value, body);
      const marks = (v: unknown) => [omittedEntries((v as Record<string, unknown>)['a']), omittedEntries((v as Record<string, unknown>)['o'])];
      assert.deepEqual(marks(value), marks(direct.value), body);
    }
    // More objects and arrays than JSON.parse is let read first (MAX_PARSED_CONTAINERS), each within the limits.
    const many = `[${Array.from({ length: 30 }, () => `[${'[],'.repeat(9_999)}[]]`).join(',')}]`;
    assert.deepEqual(jsonOfRead(read(many)), JSON.parse(many));
    assert.equal(read('{"a":').json, undefined);
    assert.equal(jsonOfRead(read('not json')), undefined);
    assert.equal(jsonOfRead(read('   ')), undefined);
  });

  it('keeps the text the host parses within REPLY_VALUE_BUDGET characters, even where every character prints as an escape', () => {
    // Within the budget as characters, six times over it as JSON; and a whole body larger than the budget.
    const escapes = read(`{"s":"${'\\u0001'.repeat(2_000_000)}","t":"end"}`);
    const large = read(`{"s":"${'x'.repeat(REPLY_VALUE_BUDGET + 10)}","t":"end"}`);
    for (const got of [escapes, large]) {
      assert.ok(got.json !== undefined && got.json.length <= REPLY_VALUE_BUDGET, `${got.json?.length} characters`);
      assert.equal((jsonOfRead(got) as Record<string, unknown>)['t'], 'end');
    }
  });
});
