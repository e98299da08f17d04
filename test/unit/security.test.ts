// Security and hostile-input rules that need no VS Code: crew identity and trust, URL and token
// rules, inputs JSON, the Markdown renderer against a hostile corpus, the client's redirect refusal
// and token redaction, and hostile bodies (deep JSON, invalid UTF-8) through the real transport.
import * as assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CrewClient } from '../../src/api/client';
import { CrewApiError } from '../../src/api/errors';
import { normaliseStatus } from '../../src/api/normalize';
import { redact, redactResponse } from '../../src/api/redact';
import { createTransport } from '../../src/api/transport';
import { DEFAULT_NETWORK_SETTINGS, type HttpResponse } from '../../src/api/transportTypes';
import { normaliseCrewUrl } from '../../src/api/url';
import { readCrews } from '../../src/crews/crewConfig';
import { inputsFromJson } from '../../src/kickoff/core/inputPresets';
import { checkToken } from '../../src/api/tokenRules';
import { safeFileName } from '../../src/util/fileName';
import { inert, stripControls } from '../../src/util/inertText';
import { describeError } from '../../src/ui/errorMessages';
import { PlatformClient, PlatformError } from '../../src/platform/platformClient';
import { createMarkdown, validateLink } from '../../src/runView/page/markdown';
import { isSafeLink } from '../../src/runView/page/messages';
import { BAD_CREW_URLS, deepArrayText, drippingBody, deepJsonText, deepMarkdown, invalidUtf8StatusBody, XSS_CORPUS, XSS_MARKER, XSS_PAYLOADS } from '../fixtures/hostileCorpus';

const CANARY = 'CANARYunit9d41e7b2c6a8f305';

const md = createMarkdown();

/** Tags that must never come out of the renderer, whatever the input. */
const FORBIDDEN_TAG = /<(script|img|svg|iframe|style|object|embed|form|input|button|meta|base|link|math|video|audio|source|details|body|frame|frameset|textarea|select|animate|foreignobject)\b/i;

function hrefs(html: string): string[] {
  return [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => m[1]);
}

function assertInertHtml(input: string, html: string): void {
  assert.doesNotMatch(html, FORBIDDEN_TAG, `${input.slice(0, 80)} → ${html.slice(0, 300)}`);
  assert.doesNotMatch(html, /<[^>]+\son[a-z]+\s*=/i, `event handler attribute: ${input.slice(0, 80)} → ${html.slice(0, 300)}`);
  assert.doesNotMatch(html, /<[^>]+\s(style|srcdoc|xlink:href|formaction|action)\s*=/i, `dangerous attribute: ${input.slice(0, 80)} → ${html.slice(0, 300)}`);
  for (const href of hrefs(html)) {
    assert.ok(validateLink(href) && /^https?:\/\//i.test(href), `unsafe link ${href} from ${input.slice(0, 80)}`);
  }
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

interface Recorded {
  method: string;
  path: string;
  authorization: boolean;
  carriesCanary: boolean;
}

/** A local server that records what reached it (never the token itself) and answers with `reply`. */
async function recordingServer(reply: (req: IncomingMessage, res: ServerResponse) => void) {
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: auth !== '', carriesCanary: auth.includes(CANARY) });
    req.resume();
    reply(req, res);
  });
  server.on('connection', (s) => sockets.add(s));
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      sockets.forEach((s) => s.destroy());
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function clientWith(token: string, respond?: (url: string) => HttpResponse | Promise<HttpResponse>) {
  return new CrewClient({
    getToken: async () => token,
    sleep: async () => undefined,
    ...(respond ? { createTransport: () => ({ request: async (r) => respond(r.url), close: async () => undefined }) } : {}),
  });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected the call to fail');
}

function everyText(error: unknown): string {
  if (error instanceof CrewApiError) {
    return [error.message, error.serverMessage ?? '', JSON.stringify(error.body ?? null), error.stack ?? ''].join('\n');
  }
  return error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
}

describe('security: crews, trust and identity', () => {
  it('an untrusted workspace contributes no crew at all, even one named like a user crew', () => {
    const user = [{ name: 'Research', url: 'https://research-1a2b.crewai.com' }];
    const workspace = [
      { name: 'Research', url: 'https://evil.example.com' },
      { name: 'Other', url: 'https://other.example.com' },
    ];
    const untrusted = readCrews(user, workspace, false);
    assert.deepEqual(untrusted.crews, [{ name: 'Research', url: 'https://research-1a2b.crewai.com', source: 'user' }]);
    assert.equal(untrusted.hiddenWorkspaceCrews, 2);
  });

  it('a trusted workspace crew named like a user crew is a different crew (its own URL, so its own token key)', () => {
    const trusted = readCrews([{ name: 'Research', url: 'https://research-1a2b.crewai.com/' }], [{ name: 'Research', url: 'https://evil.example.com' }], true);
    assert.deepEqual(
      trusted.crews.map((c) => [c.name, c.url, c.source]),
      [
        ['Research', 'https://research-1a2b.crewai.com', 'user'],
        ['Research', 'https://evil.example.com', 'workspace'],
      ],
    );
  });

  it('a workspace entry cannot turn into a lookalike of a user crew by spelling (case, port, slash, dot segments)', () => {
    const userUrl = 'https://research-1a2b.crewai.com';
    for (const spelling of ['HTTPS://Research-1A2B.crewai.com:443/', 'https://research-1a2b.crewai.com/x/..', 'https://research-1a2b.crewai.com//']) {
      const result = readCrews([{ name: 'R', url: userUrl }], [{ name: 'W', url: spelling }], true);
      // Same origin and path: the same crew (the user's entry wins), never a second crew sharing a name.
      assert.deepEqual(result.crews.map((c) => [c.url, c.source]), [[userUrl, 'user']], spelling);
    }
    const other = readCrews([{ name: 'R', url: userUrl }], [{ name: 'R', url: 'https://research-1a2b.crewai.com.evil.example' }], true);
    assert.deepEqual(other.crews.map((c) => c.url), [userUrl, 'https://research-1a2b.crewai.com.evil.example']);
  });

  it('workspace entries with unusable URLs are reported, not used', () => {
    const result = readCrews(undefined, [{ name: 'x', url: 'http://crew.example.com' }, { name: 'y', url: 'https://a:b@crew.example.com' }, 'junk', { name: 'z' }], true);
    assert.deepEqual(result.crews, []);
    assert.equal(result.problems.length, 4);
  });
});

describe('security: URL and token rules', () => {
  it('refuses every bad crew URL of the corpus with its problem', () => {
    for (const { url } of BAD_CREW_URLS) {
      const result = normaliseCrewUrl(url);
      assert.equal(result.ok, false, `${url.slice(0, 60)} was accepted`);
    }
  });

  it('allows plain http only to loopback, in any spelling of it, and never to a name that merely starts like it', () => {
    for (const ok of ['http://127.0.0.1:8080', 'http://localhost:1', 'http://[::1]:2', 'http://127.1', 'http://2130706433']) {
      const result = normaliseCrewUrl(ok);
      assert.ok(result.ok, ok);
      assert.match(result.url, /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/, ok);
    }
    for (const bad of ['http://localhost.evil.example', 'http://127.0.0.1.nip.io', 'http://0.0.0.0', 'http://[::ffff:7f00:1]', 'http://10.0.0.1']) {
      assert.deepEqual(normaliseCrewUrl(bad), { ok: false, problem: 'insecureHttp' }, bad);
    }
  });

  it('keys a token by where requests really go: backslashes, IDN and zero-width characters normalise to the real host', () => {
    // The URL a token is stored under is the one requests are sent to; there is no second parse.
    assert.deepEqual(normaliseCrewUrl('https:\\\\crew.example.com'), { ok: true, url: 'https://crew.example.com' });
    assert.deepEqual(normaliseCrewUrl('https://exämple.com'), { ok: true, url: 'https://xn--exmple-cua.com' });
    assert.deepEqual(normaliseCrewUrl('https://crew.example.com\\@evil.example'), { ok: true, url: 'https://crew.example.com/@evil.example' });
  });

  it('refuses empty, blank, multi-line, control-character and oversized tokens', () => {
    for (const bad of ['', '   ', '\n', 'abc\ndef', 'abc def', 'abc\u0000def', 'abc\u001bdef', 'a'.repeat(4097), 'Bearer ', 'Bearer  \t']) {
      assert.equal(checkToken(bad).ok, false, JSON.stringify(bad.slice(0, 20)));
    }
    assert.deepEqual(checkToken(`  Bearer ${CANARY}\n`), { ok: true, token: CANARY });
  });
});

describe('security: inputs JSON from an editor', () => {
  it('accepts only an object of input names to JSON values, within the size and depth limits', () => {
    for (const bad of ['[]', '["a"]', 'null', '"text"', '42', '{"inputs": []}', '{"inputs": null}', `{"a": ${deepJsonText(100)}}`, `{"a": ${deepJsonText(10_000)}}`, `{"a": "${'x'.repeat(1_000_001)}"}`]) {
      const result = inputsFromJson(bad);
      assert.equal(result.ok, false, bad.slice(0, 40));
    }
    const deep = inputsFromJson(`{"interview": ${deepJsonText(10_000)}}`);
    assert.ok(!deep.ok && deep.reason === 'badValue' && /"interview".*nested too deeply/.test(deep.message), 'a value nested 10,000 levels is refused by name');
    for (const bad of ['{', '{"a": "b",}', "{'a': 'b'}", '']) {
      assert.deepEqual(inputsFromJson(bad), { ok: false, reason: 'notJson' }, bad);
    }
    assert.deepEqual(inputsFromJson('{"inputs": {"topic": "AI", "n": 3, "b": true}}'), { ok: true, inputs: { topic: 'AI', n: 3, b: true } });
  });

  it('does not let a "__proto__" key change the inputs object', () => {
    const result = inputsFromJson('{"__proto__": {"polluted": "yes"}, "topic": "AI"}');
    assert.ok(result.ok);
    assert.equal(Object.getPrototypeOf(result.inputs), Object.prototype, 'an object under "__proto__" is an input of that name, not a prototype');
    assert.deepEqual(Object.keys(result.inputs), ['__proto__', 'topic']);
    const text = inputsFromJson('{"__proto__": "x", "topic": "AI"}');
    assert.ok(text.ok);
    assert.equal(Object.getPrototypeOf(text.inputs), Object.prototype, 'the prototype is untouched');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('security: Markdown of untrusted output', () => {
  it('renders every payload of the corpus inert, one by one', () => {
    for (const payload of XSS_PAYLOADS) {
      assertInertHtml(payload, md.render(payload));
    }
  });

  it('renders the whole corpus inert, keeps the markup visible as text and the one safe link', () => {
    const html = md.render(XSS_CORPUS);
    assertInertHtml('corpus', html);
    assert.ok(html.includes(`&lt;script&gt;window.parent.postMessage(&quot;${XSS_MARKER}&quot;`), 'the script tag is shown as text');
    assert.ok(hrefs(html).includes('https://example.com/ok'), 'the safe link is a link');
    assert.ok(!hrefs(html).some((h) => /^(javascript|command|vscode|file|data|vbscript):/i.test(h)));
  });

  it('only absolute http(s) URLs are safe links', () => {
    for (const bad of ['javascript:alert(1)', ' javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'command:workbench.action.quit', 'vscode://x', 'file:///etc/passwd', 'data:text/html,x', '//evil.example', '/relative', '#frag', 'https://', 'java\nscript:alert(1)']) {
      assert.equal(isSafeLink(bad), false, bad);
    }
    for (const good of ['https://example.com', 'HTTP://EXAMPLE.COM/x?y#z', ' https://example.com ']) {
      assert.equal(isSafeLink(good), true, good);
    }
  });

  it('survives deeply nested Markdown and a 10 MB text without throwing', () => {
    // Inert whole; how fast a big output renders is the bench's (the run view's Show All of 5 MB).
    assertInertHtml('deep markdown', md.render(deepMarkdown(10_000)));
    const big = md.render(`${'<b>x</b> [l](javascript:alert(1)) '.repeat(20_000)}\n\n`.repeat(16));
    assertInertHtml('big', big.slice(0, 10_000));
    assert.doesNotMatch(big, /<b>|href="javascript/);
  });
});

describe('security: the client and hostile servers', () => {
  let target: Awaited<ReturnType<typeof recordingServer>>;
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    target = await recordingServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ inputs: ['topic'], kickoff_id: 'stolen' }));
    });
    closers.push(target.close);
  });
  after(async () => {
    for (const close of closers) {
      await close();
    }
  });

  for (const status of [301, 302, 303, 307, 308]) {
    it(`a ${status} redirect to another origin is refused, and the other origin receives nothing`, async () => {
      const redirecting = await recordingServer((req, res) => {
        res.statusCode = status;
        res.setHeader('location', `${target.url}${req.url ?? '/'}`);
        res.end();
      });
      closers.push(redirecting.close);
      const client = new CrewClient({ getToken: async () => CANARY, sleep: async () => undefined, createTransport: (s) => createTransport(s, {}) });
      for (const call of [() => client.getInputs(redirecting.url), () => client.kickoff(redirecting.url, { inputs: { topic: 't' } }), () => client.getStatus(redirecting.url, 'k1')]) {
        const error = await failure(call());
        assert.ok(error instanceof CrewApiError, String(error));
        assert.equal(error.kind, 'refused');
        assert.ok(!everyText(error).includes(CANARY));
      }
      assert.deepEqual(target.requests, [], 'nothing reached the redirect target');
      assert.ok(redirecting.requests.every((r) => r.carriesCanary), 'the crew itself did get its token');
      await client.dispose();
    });
  }

  it('a redirect with a malformed or odd Location is still a clean refusal', async () => {
    for (const location of ['http://[', 'javascript:alert(1)', '//evil.example/x', `https://evil.example/?t=${CANARY}`, '']) {
      const client = clientWith(CANARY, () => ({ status: 302, headers: { location }, bodyText: '' }));
      const error = await failure(client.getInputs('https://crew.example.com'));
      assert.ok(error instanceof CrewApiError, `${location}: ${String(error)}`);
      assert.equal(error.kind, 'refused', location);
      assert.ok(!everyText(error).includes(CANARY), location);
    }
  });

  it('no error message, server message or body carries the token, whatever the server echoes', async () => {
    const echoes = [JSON.stringify({ detail: `bad token ${CANARY}` }), `plain ${CANARY}`, JSON.stringify({ detail: [{ loc: ['header'], msg: `Bearer ${CANARY}` }] }), JSON.stringify({ error: 'x', message: `x${CANARY}x`, details: { token: CANARY } }), `<html><body>${CANARY}</body></html>`];
    for (const body of echoes) {
      for (const status of [400, 401, 403, 404, 422, 429, 500, 502, 503]) {
        const client = clientWith(CANARY, () => ({ status, headers: {}, bodyText: body }));
        const calls = [() => client.kickoff('https://crew.example.com', { inputs: {} }), ...(status === 404 ? [] : [() => client.getInputs('https://crew.example.com')])];
        for (const call of calls) {
          const error = await failure(call());
          assert.ok(!everyText(error).includes(CANARY), `${status} ${body}: ${everyText(error).slice(0, 300)}`);
        }
        if (status === 404) {
          // A 404 on /inputs is an answer ("does not describe its inputs"), in the server's words: redacted too.
          const inputs = await client.getInputs('https://crew.example.com');
          assert.equal(inputs.described, false);
          assert.ok(!JSON.stringify(inputs).includes(CANARY), `${body}: ${JSON.stringify(inputs)}`);
        }
      }
    }
  });

  it('a transport that fails with the token in its message never passes it on', async () => {
    const failing = (error: Error) => new CrewClient({ getToken: async () => CANARY, sleep: async () => undefined, createTransport: () => ({ request: async () => Promise.reject(error), close: async () => undefined }) });
    for (const error of [Object.assign(new Error(`boom ${CANARY}`), { transportFailure: 'network' }), new Error(`raw ${CANARY}`), new TypeError(`type ${CANARY}`)]) {
      const seen = await failure(failing(error).getInputs('https://crew.example.com'));
      assert.ok(!everyText(seen).includes(CANARY), everyText(seen));
    }
  });

  it('a status nested 10,000 levels deep is read, shown as text and can be stored', async () => {
    const deep = deepJsonText(10_000);
    const bodies = [`{"state":"SUCCESS","status":null,"result":${JSON.stringify(deep)}}`, `{"state":"SUCCESS","status":null,"result_json":${deep}}`, `{"state":"SUCCESS","status":null,"result":${JSON.stringify(deepArrayText(100_000))}}`, `{"status":"completed","result":{"output":${deep}}}`];
    for (const bodyText of bodies) {
      const client = clientWith(CANARY, () => ({ status: 200, headers: {}, bodyText }));
      const snapshot = await client.getStatus('https://crew.example.com', 'k');
      assert.equal(snapshot.state, 'succeeded');
      assert.ok(snapshot.finalOutput, 'a final output');
      assert.notEqual(snapshot.finalOutput.text, '[object Object]', 'the output is text, not "[object Object]"');
      assert.ok(snapshot.finalOutput.text.length > 1000, `the output text is kept (${snapshot.finalOutput.text.length} characters)`);
      // The run store persists snapshots and outputs as JSON: that must not throw.
      assert.doesNotThrow(() => JSON.stringify(snapshot));
      assert.doesNotThrow(() => structuredClone(snapshot));
    }
    // Without the client (a body handed straight to the normaliser) the output still reads as text.
    const direct = normaliseStatus({ state: 'SUCCESS', result: deep });
    assert.ok(direct.finalOutput && direct.finalOutput.text.length >= deep.length);
    assert.doesNotThrow(() => JSON.stringify(direct.finalOutput));
  });

  it('invalid UTF-8 in a body becomes U+FFFD; the words around it are kept', async () => {
    const server = await recordingServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(invalidUtf8StatusBody());
    });
    closers.push(server.close);
    const client = new CrewClient({ getToken: async () => CANARY, sleep: async () => undefined, createTransport: (s) => createTransport(s, {}) });
    const snapshot = await client.getStatus(server.url, 'k');
    assert.equal(snapshot.state, 'succeeded');
    const text = snapshot.finalOutput?.text ?? '';
    assert.match(text, /^start-of-output .*word0.*word4 end-of-output$/s);
    assert.ok(text.includes('\uFFFD'));
    await client.dispose();
  });

  it('a body over the size cap is dropped with a clear error, not held', async () => {
    const server = await recordingServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(`{"state":"SUCCESS","result":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    });
    closers.push(server.close);
    const client = new CrewClient({
      getToken: async () => CANARY,
      sleep: async () => undefined,
      retry: { attempts: 1 },
      createTransport: () => createTransport({ ...DEFAULT_NETWORK_SETTINGS, maxResponseBytes: 1024 * 1024 }, {}),
    });
    const error = await failure(client.getStatus(server.url, 'k'));
    assert.ok(error instanceof CrewApiError && error.kind === 'badResponse', String(error));
    assert.match(error.message, /more than 1 MB/);
    await client.dispose();
  });
});

describe('security: redaction before any cut, in every body (issue 14, finding 5)', () => {
  /** Every 8-character piece of the token: a cut message must not keep even part of it. */
  function leaksPart(text: string, token: string): string | undefined {
    for (let i = 0; i + 8 <= token.length; i++) {
      if (text.includes(token.slice(i, i + 8))) {
        return token.slice(i, i + 8);
      }
    }
    return undefined;
  }

  it('a long server message is redacted before it is cut to length: no piece of the token survives', async () => {
    for (const padding of [250, 270, 285, 295, 299]) {
      const body = JSON.stringify({ detail: `${'x'.repeat(padding)} ${CANARY} tail` });
      for (const status of [400, 404, 422, 500]) {
        const client = clientWith(CANARY, () => ({ status, headers: {}, bodyText: body }));
        // A 404 on /inputs is an answer ("does not describe its inputs") quoting the server: the same rule holds.
        const outcome = status === 404 ? JSON.stringify(await client.getInputs('https://crew.example.com')) : everyText(await failure(client.getInputs('https://crew.example.com')));
        assert.equal(leaksPart(outcome, CANARY), undefined, `${status}, ${padding} characters before the token`);
      }
    }
  });

  it('the 422 "missing inputs" message and list never carry the token', async () => {
    const bodies = [
      JSON.stringify({ detail: [{ loc: ['body', 'inputs', CANARY], msg: 'field required', type: 'missing' }] }),
      JSON.stringify({ error: 'Missing required inputs', details: { missing_inputs: [CANARY, 'topic'] } }),
      JSON.stringify({ detail: `Missing required inputs: ${CANARY}, topic` }),
    ];
    for (const bodyText of bodies) {
      const error = await failure(clientWith(CANARY, () => ({ status: 422, headers: {}, bodyText })).kickoff('https://crew.example.com', { inputs: {} }));
      assert.ok(error instanceof CrewApiError, String(error));
      assert.equal(leaksPart([everyText(error), ...(error.missingInputs ?? [])].join('\n'), CANARY), undefined, `${bodyText}: ${error.message}`);
    }
  });

  it('a token with a quote or a backslash is redacted in every form a body carries it (raw, JSON-escaped, \\u-escaped)', async () => {
    for (const token of ['CANARYq"uote7d41e7b2c6a8', 'CANARYback\\slash9d41e7b2', 'CANARYboth"\\5c6a8f305']) {
      const escaped = JSON.stringify(token).slice(1, -1);
      const unicode = [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
      const bodies = [JSON.stringify({ detail: `bad token ${token}` }), `{"detail":"x${escaped}x","details":{"t":"${unicode}"}}`, `plain ${token} text`];
      for (const bodyText of bodies) {
        for (const status of [400, 422, 500]) {
          const error = await failure(clientWith(token, () => ({ status, headers: {}, bodyText })).getInputs('https://crew.example.com'));
          const text = everyText(error);
          for (const form of [token, escaped, JSON.stringify(token)]) {
            assert.ok(!text.includes(form), `${status} ${bodyText}: ${text.slice(0, 300)}`);
          }
        }
      }
    }
  });

  it('a token with a slash is redacted when a JSON body escapes the slash (\\/, as some servers write JSON)', async () => {
    const token = 'CANARY/slash/7d41e7b2c6a8';
    const bodyText = `{"state":"RUNNING","status":"x","result":"echo ${token.replace(/\//g, '\\/')}"}`;
    const snapshot = await clientWith(token, () => ({ status: 200, headers: {}, bodyText })).getStatus('https://crew.example.com', 'k1');
    assert.equal(leaksPart(JSON.stringify(snapshot), token), undefined, JSON.stringify(snapshot).slice(0, 300));
    const error = await failure(clientWith(token, () => ({ status: 400, headers: {}, bodyText: `{"detail":"bad ${token.replace(/\//g, '\\/')}"}` })).getInputs('https://crew.example.com'));
    assert.equal(leaksPart(everyText(error), token), undefined, everyText(error));
  });

  it('2xx bodies are redacted too: a status, an inputs list and a kickoff id that echo the token never carry it', async () => {
    const unicode = [...CANARY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const statusBodies = [
      JSON.stringify({ state: 'SUCCESS', status: 'done', result: `the token was ${CANARY}`, result_json: { token: CANARY }, last_executed_task: { id: 't', name: CANARY, output: CANARY } }),
      `{"state":"RUNNING","status":"x","result":"${unicode}"}`,
    ];
    for (const bodyText of statusBodies) {
      const snapshot = await clientWith(CANARY, () => ({ status: 200, headers: {}, bodyText })).getStatus('https://crew.example.com', 'k1');
      assert.equal(leaksPart(JSON.stringify(snapshot), CANARY), undefined, JSON.stringify(snapshot).slice(0, 300));
    }
    const inputs = await clientWith(CANARY, () => ({ status: 200, headers: {}, bodyText: JSON.stringify({ inputs: ['topic', CANARY] }) })).getInputs('https://crew.example.com');
    assert.equal(leaksPart(JSON.stringify(inputs), CANARY), undefined);
    // A kickoff id echoing the token is redacted, and then no longer an id: refused without quoting it.
    const kickoff = await failure(clientWith(CANARY, () => ({ status: 200, headers: {}, bodyText: JSON.stringify({ kickoff_id: `k-${CANARY}` }) })).kickoff('https://crew.example.com', { inputs: {} }));
    assert.ok(kickoff instanceof CrewApiError && kickoff.kind === 'badResponse', String(kickoff));
    assert.equal(leaksPart(everyText(kickoff), CANARY), undefined);
  });
});

/** Every printable ASCII character that is not a letter or a digit: one token per character below. */
const SPECIALS = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');
/** `encode` applied to each character that is not a letter or a digit. */
const eachSpecial = (token: string, encode: (c: string) => string) => [...token].map((c) => (/[A-Za-z0-9]/.test(c) ? c : encode(c))).join('');
const htmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
/** Python's repr() of a str, without its quotes. */
function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  return text.replace(/\\/g, '\\\\').split(quote).join(`\\${quote}`);
}

/** How servers echo a string back: debug pages, Python reprs, JSON encoders, URLs (and one layer of each over another). */
const ECHOES: Record<string, (token: string) => string> = {
  'as is': (t) => t,
  'HTML escaped (Python html.escape: &#x27;)': htmlEscape,
  'HTML named entities (&apos;)': (t) => htmlEscape(t).replace(/&#x27;/g, '&apos;'),
  'HTML decimal entities': (t) => eachSpecial(t, (c) => `&#${c.charCodeAt(0)};`),
  'HTML decimal entities, zero-padded (&#039;)': (t) => eachSpecial(t, (c) => `&#${String(c.charCodeAt(0)).padStart(3, '0')};`),
  'HTML hex entities': (t) => eachSpecial(t, (c) => `&#x${hex(c, 2)};`),
  'HTML hex entities, upper case (&#X2F;)': (t) => eachSpecial(t, (c) => `&#X${hex(c, 2).toUpperCase()};`),
  'JSON string': (t) => JSON.stringify(t).slice(1, -1),
  'JSON string with \\/': (t) => JSON.stringify(t).slice(1, -1).replace(/\//g, '\\/'),
  'JSON \\u escapes': (t) => eachSpecial(t, (c) => `\\u${hex(c, 4)}`),
  'JSON \\u escapes, upper case': (t) => eachSpecial(t, (c) => `\\u${hex(c, 4).toUpperCase()}`),
  'JSON \\u escapes of every character': (t) => [...t].map((c) => `\\u${hex(c, 4)}`).join(''),
  'Python repr': pythonRepr,
  'Python \\x escapes': (t) => eachSpecial(t, (c) => `\\x${hex(c, 2)}`),
  'a backslash before each special character': (t) => eachSpecial(t, (c) => `\\${c}`),
  'URL (encodeURIComponent)': encodeURIComponent,
  'URL, every special character, lower-case hex': (t) => eachSpecial(t, (c) => `%${hex(c, 2)}`),
  'form encoding (URLSearchParams)': (t) => new URLSearchParams({ t }).toString().slice(2),
  'HTML escape of a Python repr (a debug page)': (t) => htmlEscape(pythonRepr(t)),
  'JSON inside JSON': (t) => JSON.stringify(JSON.stringify(t).slice(1, -1)).slice(1, -1),
  'HTML escaped twice': (t) => htmlEscape(htmlEscape(t)),
  'URL encoded twice': (t) => encodeURIComponent(encodeURIComponent(t)),
};

describe('security: a token is redacted in every spelling a server echoes it in (issue 32, item 7)', () => {
  const tokens = [...SPECIALS.map((c) => `CANARY${c}9d41e7b2c6a8`), `CANARY'"&<>\\/+=%9d41`];
  /** Every 8-character piece of the token that holds no special character: what a leak would show. */
  const pieces = (token: string) => [...Array(token.length - 7).keys()].map((i) => token.slice(i, i + 8)).filter((piece) => /^[A-Za-z0-9]+$/.test(piece));

  it('redact() leaves no piece of a token with any special character, in any echo form, and keeps the text around it', () => {
    for (const token of tokens) {
      for (const [name, echo] of Object.entries(ECHOES)) {
        const form = echo(token);
        for (const text of [`before ${form} after`, `<pre>'${form}'</pre>`, `{"detail":"x${form}x"}`, form]) {
          const out = redact(text, token);
          const leaked = pieces(token).find((piece) => out.includes(piece));
          assert.equal(leaked, undefined, `${name} of ${token}: ${text} → ${out}`);
          assert.ok(out.includes('***'), `${name} of ${token}: ${out}`);
          if (text.startsWith('before ')) {
            assert.equal(out, 'before *** after', `${name} of ${token}: exactly the token goes`);
          }
        }
      }
    }
  });

  it('an error page echoing a quote as &#x27; or \\\' never reaches the message, the server message or the body', async () => {
    const token = "CANARYq'uote7d41e7b2c6a8";
    const bodies = [
      `<!DOCTYPE html><html><body><h1>Forbidden</h1><pre>Authorization: &#x27;Bearer ${htmlEscape(token)}&#x27;</pre></body></html>`,
      JSON.stringify({ detail: `invalid token ${pythonRepr(token)}` }),
      JSON.stringify({ detail: `headers={'authorization': "Bearer ${pythonRepr(token)}"}` }),
      `bad token '${token.replace(/'/g, "\\'")}'`,
    ];
    for (const bodyText of bodies) {
      for (const status of [400, 401, 403, 422, 500]) {
        const error = await failure(clientWith(token, () => ({ status, headers: {}, bodyText })).getInputs('https://crew.example.com'));
        const text = everyText(error);
        assert.equal(pieces(token).find((piece) => text.includes(piece)), undefined, `${status} ${bodyText}: ${text.slice(0, 400)}`);
      }
    }
  });

  it('a reply is redacted in its headers and 2xx body in every echo form', () => {
    const token = 'CANARY&<>"\'9d41e7b2';
    for (const [name, echo] of Object.entries(ECHOES)) {
      const reply = redactResponse({ status: 200, headers: { 'x-echo': echo(token) }, bodyText: `{"result":"${echo(token)}"}` }, token);
      const text = `${reply.headers['x-echo'] ?? ''} ${reply.bodyText}`;
      assert.equal(pieces(token).find((piece) => text.includes(piece)), undefined, `${name}: ${text}`);
    }
  });

  it('text that merely looks encoded is left as it is', () => {
    const text = 'a &amp; b, 100%25 sure, C:\\path\\to, &#x27;quoted&#x27;, \\u0041';
    assert.equal(redact(text, 'CANARY9d41e7b2c6a8'), text);
  });
});

describe('security: a token between control characters is redacted before any surface strips them (issue 47)', () => {
  const token = 'CANARYctl9d41e7b2c6a8';
  /** What the text helpers leave of a text: what a notification and a model's tool result show. */
  const shown = (text: string) => inert(text);
  /** The token with `mark` between every two of its characters. */
  const between = (mark: string) => [...token].join(mark);
  const spellings: Record<string, string> = {
    'a UTF-16 body read as UTF-8 (NULs)': between('\u0000'),
    'bidi marks': between('\u200E'),
    'bidi isolates and C1 controls': between('\u2066\u0085'),
  };

  it('redact() takes out a token whose characters are parted by characters stripControls removes, raw or as \\u0000 escapes', () => {
    for (const [name, spelled] of Object.entries(spellings)) {
      const raw = redact(`said ${spelled} here`, token);
      assert.ok(!shown(raw).includes(token), `${name}: ${JSON.stringify(shown(raw))}`);
      // In JSON the controls are \\u escapes: the token shows once the body is read and its controls stripped.
      const parsed = JSON.parse(redact(JSON.stringify({ detail: `said ${spelled} here` }), token)) as { detail: string };
      assert.ok(!stripControls(parsed.detail).includes(token), `${name}, read as JSON: ${JSON.stringify(parsed.detail)}`);
    }
  });

  it('the error a notification and a tool result quote never shows it once its controls are stripped, nor the platform error\'s kept words', async () => {
    for (const [name, spelled] of Object.entries(spellings)) {
      const bodyText = JSON.stringify({ detail: `bad token ${spelled}` });
      for (const status of [401, 404, 500]) {
        const error = await failure(clientWith(token, () => ({ status, headers: {}, bodyText })).kickoff('https://crew.example.com', { inputs: {} }));
        assert.ok(!shown(`${describeError(error, 'Crew')}\n${everyText(error)}`).includes(token), `${name}, ${status}: ${describeError(error, 'Crew')}`);
      }
      const platform = new PlatformClient({ createTransport: () => ({ request: async () => ({ status: 500, headers: {}, bodyText: JSON.stringify({ error: `bad token ${spelled}` }) }), close: async () => undefined }) });
      const refused = await failure(platform.deployments({ baseUrl: 'https://app.crewai.com', token }));
      assert.ok(refused instanceof PlatformError, String(refused));
      assert.ok(!shown(`${refused.message}\n${refused.serverWords ?? ''}`).includes(token), `${name}: ${refused.serverWords}`);
    }
  });
});

describe('security: every request has a total deadline (issue 14, finding 7)', () => {
  it('a body dripping one byte at a time ends as a timeout once the total deadline passes, and frees the request', async () => {
    const server = createServer(drippingBody(50));
    const sockets = new Set<Socket>();
    server.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The gap between bytes (50 ms) never reaches the body timeout; only the total deadline can end it.
    const settings = { ...DEFAULT_NETWORK_SETTINGS, bodyTimeoutMs: 5_000, headersTimeoutMs: 5_000, totalTimeoutMs: 1_000 };
    const client = new CrewClient({ getToken: async () => CANARY, sleep: async () => undefined, retry: { attempts: 1 }, createTransport: () => createTransport(settings, {}) });
    try {
      const error = await failure(client.getStatus(url, 'k1'));
      assert.ok(error instanceof CrewApiError && error.kind === 'timeout', String(error));
      assert.match(error.message, /did not finish answering in time/);
      assert.ok(!everyText(error).includes(CANARY));
    } finally {
      await client.dispose();
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('the caller can still cancel before the deadline (an abort, not a timeout)', async () => {
    const server = createServer(drippingBody(50));
    const sockets = new Set<Socket>();
    server.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new CrewClient({ getToken: async () => CANARY, sleep: async () => undefined, retry: { attempts: 1 }, createTransport: () => createTransport({ ...DEFAULT_NETWORK_SETTINGS, totalTimeoutMs: 60_000 }, {}) });
    const controller = new AbortController();
    server.once('request', () => setImmediate(() => controller.abort())); // once the server has started answering
    try {
      const error = await failure(client.kickoff(url, { inputs: {} }, { signal: controller.signal }));
      assert.ok(error instanceof Error && error.name === 'AbortError', String(error));
    } finally {
      await client.dispose();
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('security: smaller rules (issue 14, finding 9)', () => {
  it('refuses a token with non-ASCII characters at entry (it could never be sent in a header)', () => {
    for (const token of ['tökén-abc', 'abc\u202Edef', 'abc—def', '🔑abc']) {
      const check = checkToken(token);
      assert.ok(!check.ok && check.problem === 'nonAscii', `${JSON.stringify(token)}: ${JSON.stringify(check)}`);
    }
    assert.deepEqual(checkToken('abc.DEF_123-~+/='), { ok: true, token: 'abc.DEF_123-~+/=' });
  });

  it('a kickoff id must look like one: bounded length, no markup, no controls', async () => {
    for (const id of ['a'.repeat(40 * 1024 * 1024), 'x'.repeat(300), '<script>alert(1)</script>', 'id with spaces', 'evil\u202Eid', 'new\nline', '../../etc']) {
      const client = clientWith(CANARY, () => ({ status: 200, headers: {}, bodyText: JSON.stringify({ kickoff_id: id }) }));
      const error = await failure(client.kickoff('https://crew.example.com', { inputs: {} }));
      assert.ok(error instanceof CrewApiError && error.kind === 'badResponse', `${id.slice(0, 30)}: ${String(error).slice(0, 200)}`);
      assert.ok(error.message.length < 400, 'the message does not quote the id');
    }
    for (const id of ['6f140412-8094-43fc-a6f0-70e65f912172', 'abc_DEF.123:45', '42']) {
      const client = clientWith(CANARY, () => ({ status: 200, headers: {}, bodyText: JSON.stringify({ kickoff_id: id }) }));
      assert.equal(await client.kickoff('https://crew.example.com', { inputs: {} }), id);
    }
    const resumed = clientWith(CANARY, () => ({ status: 200, headers: {}, bodyText: JSON.stringify({ kickoff_id: 'y'.repeat(100_000) }) }));
    // The crew took the resume (2xx): its unusable id is dropped, never followed nor quoted, and no failure invites a second resume.
    assert.deepEqual(await resumed.resume('https://crew.example.com', { executionId: 'e', taskId: 't', humanFeedback: '', isApprove: true }), { kind: 'resumed' });
  });

  it('task names and the Save As default name carry no bidi or control characters', () => {
    const snapshot = normaliseStatus({ state: 'RUNNING', last_executed_task: { name: 'report\u202Etxt.exe\u202C\u2066x\u2069', output: 'o' } }, 200);
    assert.equal(snapshot.lastTask?.name, 'reporttxt.exex');
    assert.equal(snapshot.tasks[0].name, 'reporttxt.exex');
    assert.equal(safeFileName('Crew\u202E: evil\u202C run/1\u0007'), 'Crew evil run 1');
    assert.equal(safeFileName('\u202E\u202C'), 'output');
  });
});

describe('Webview pages', () => {
  it('one CSP for every page: nonce scripts only, no base URL, no form target', async () => {
    const { pageCsp, escapeHtml } = await import('../../src/ui/webviewPage');
    const csp = pageCsp('vscode-resource:', 'abc').split('; ');
    assert.deepEqual(csp, ["default-src 'none'", 'style-src vscode-resource:', 'font-src vscode-resource:', "script-src 'nonce-abc'", "base-uri 'none'", "form-action 'none'"]);
    // The run view's page may start its markdown worker from a blob: URL, and nothing more.
    assert.deepEqual(pageCsp('vscode-resource:', 'abc', true).split('; '), [...csp.slice(0, 4), 'worker-src blob:', ...csp.slice(4)]);
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
  });
});
