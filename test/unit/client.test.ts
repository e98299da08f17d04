import * as assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CrewClient, type CrewClientOptions } from '../../src/api/client';
import { CrewApiError, type CrewApiErrorKind } from '../../src/api/errors';
import { createTransport } from '../../src/api/transport';
import { DEFAULT_NETWORK_SETTINGS, type NetworkSettings } from '../../src/api/transportTypes';
import { demoCrews, startSimulator, type Simulator } from '../../src/simulator/server';
import type { CrewConfig } from '../../src/simulator/types';

const crew: CrewConfig = {
  id: 'research',
  name: 'Research',
  kind: 'crew',
  inputs: ['topic', 'audience'],
  tasks: [
    { name: 'research_task', agent: 'Researcher', durationMs: 200, output: '# Notes on {topic}' },
    { name: 'report_task', agent: 'Writer', durationMs: 200, output: { json: { title: '{topic}', points: 3 } } },
  ],
  orgToken: 'org-token-canary-1234567890',
  userToken: 'user-token-canary-0987654321',
};
const reviewCrew: CrewConfig = {
  id: 'review',
  name: 'Review',
  kind: 'crew',
  inputs: ['draft'],
  tasks: [
    { name: 'draft_task', agent: 'Writer', durationMs: 100, output: 'Draft: {draft}', humanInput: true },
    { name: 'publish_task', agent: 'Editor', durationMs: 100, output: 'Published' },
  ],
  orgToken: 'review-token-canary-1111',
  userToken: 'review-user-canary-2222',
};
const TOKENS = [crew.orgToken!, crew.userToken!, reviewCrew.orgToken!, reviewCrew.userToken!];

/** Every message of every error the tests see, to prove no token ever appears in one. */
const seenMessages: string[] = [];

async function expectError(promise: Promise<unknown>, kind: CrewApiError['kind']): Promise<CrewApiError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof CrewApiError, `expected a CrewApiError, got ${String(e)}`);
    seenMessages.push(e.message, e.serverMessage ?? '', JSON.stringify(e.body ?? null));
    assert.equal(e.kind, kind, `expected ${kind}, got ${e.kind}: ${e.message}`);
    return e;
  }
  assert.fail(`expected a ${kind} error`);
}

function clientFor(sim: { crews: readonly { url: string; orgToken: string }[] } | undefined, options: Partial<CrewClientOptions> = {}) {
  const sleeps: number[] = [];
  const client = new CrewClient({
    getToken: async (url) => sim?.crews.find((c) => c.url === url)?.orgToken,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    ...options,
  });
  return { client, sleeps };
}

async function waitForState(client: CrewClient, url: string, kickoffId: string, states: string[]) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const snapshot = await client.getStatus(url, kickoffId);
    if (states.includes(snapshot.state)) {
      return snapshot;
    }
    assert.ok(Date.now() < deadline, `run stayed ${snapshot.state}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  sockets.forEach((s) => s.destroy());
  return new Promise((resolve) => server.close(() => resolve()));
}

for (const dialect of ['live', 'docs'] as const) {
  describe(`CrewClient against the simulator (${dialect} dialect)`, () => {
    let sim: Simulator;
    let client: CrewClient;
    let url: string;

    before(async () => {
      sim = await startSimulator({ dialect, timeScale: 0.05, crews: [crew, reviewCrew], seed: 1 });
      url = sim.crewUrl('research');
      client = clientFor(sim).client;
    });
    after(async () => {
      await client.dispose();
      await sim.close();
    });

    it('lists inputs', async () => {
      assert.deepEqual(await client.getInputs(url), { described: true, inputs: [{ name: 'topic' }, { name: 'audience' }] });
    });

    it('kicks off and follows a run to its final output', async () => {
      const kickoffId = await client.kickoff(url, { inputs: { topic: 'Agents', audience: 'devs' } });
      assert.match(kickoffId, /^[0-9a-f-]{36}$/);
      const done = await waitForState(client, url, kickoffId, ['succeeded', 'failed']);
      assert.equal(done.state, 'succeeded');
      assert.equal(done.finalOutput?.kind, 'json');
      assert.deepEqual(done.finalOutput?.json, { title: 'Agents', points: 3 });
    });

    it('reports 401 as unauthorized, without the token in the message', async () => {
      const wrong = 'wrong-token-canary-5555';
      const error = await expectError(client.getInputs(url, { token: wrong }), 'unauthorized');
      assert.equal(error.status, 401);
      assert.ok(!error.message.includes(wrong));
    });

    it('reports missing inputs with their names (422)', async () => {
      const error = await expectError(client.kickoff(url, { inputs: { topic: 'x' } }), 'missingInputs');
      assert.equal(error.status, 422);
      assert.deepEqual(error.missingInputs, ['audience']);
    });

    it('returns an unknown kickoff id as state notFound, not an error', async () => {
      const snapshot = await client.getStatus(url, '00000000-0000-4000-8000-000000000000');
      assert.equal(snapshot.state, 'notFound');
    });

    it('maps a malformed body to the dialect\'s error (docs 400, live plain-text 500)', async () => {
      const mangling = new CrewClient({
        getToken: async () => crew.orgToken,
        createTransport: (settings) => {
          const real = createTransport(settings);
          return { request: (req) => real.request({ ...req, body: '{"inputs": ' }), close: () => real.close() };
        },
      });
      const error = await expectError(mangling.kickoff(url, { inputs: {} }), dialect === 'docs' ? 'badRequest' : 'server');
      assert.equal(error.status, dialect === 'docs' ? 400 : 500);
      await mangling.dispose();
    });

    it('resumes a paused run: documented body first, camelCase once when the live service asks', async () => {
      const reviewUrl = sim.crewUrl('review');
      const kickoffId = await client.kickoff(reviewUrl, { inputs: { draft: 'hello' } });
      const paused = await waitForState(client, reviewUrl, kickoffId, ['awaitingFeedback']);
      assert.ok(paused.feedback?.taskId, 'task id exposed while paused');
      assert.match(paused.feedback?.output ?? '', /Draft: hello/);
      const before = sim.resumes.length;
      const result = await client.resume(reviewUrl, { executionId: kickoffId, taskId: paused.feedback!.taskId!, humanFeedback: 'ok', isApprove: true });
      const styles = sim.resumes.slice(before).map((r) => `${r.style}:${r.status}`);
      if (dialect === 'live') {
        assert.deepEqual(styles, ['snake:422', 'camel:200']);
        assert.equal(result.kind, 'continuedAs');
        const newId = (result as { kickoffId: string }).kickoffId;
        assert.notEqual(newId, kickoffId);
        assert.equal((await waitForState(client, reviewUrl, newId, ['succeeded'])).state, 'succeeded');
      } else {
        assert.deepEqual(styles, ['snake:200']);
        assert.equal(result.kind, 'resumed');
        assert.equal((await waitForState(client, reviewUrl, kickoffId, ['succeeded'])).state, 'succeeded');
      }
    });

    it('does not resume a run that is not waiting (400)', async () => {
      const kickoffId = await client.kickoff(url, { inputs: { topic: 'a', audience: 'b' } });
      const error = await expectError(client.resume(url, { executionId: kickoffId, taskId: 'x', humanFeedback: '', isApprove: true }), 'badRequest');
      assert.equal(error.status, 400);
      assert.match(error.serverMessage ?? '', /not in pending human input state/i);
    });
  });
}

describe('CrewClient retries and faults', () => {
  let sim: Simulator;
  let url: string;

  before(async () => {
    sim = await startSimulator({ timeScale: 0.05, crews: [crew], seed: 7 });
    url = sim.crewUrl('research');
  });
  afterEach(() => sim.setFaults({}));
  after(() => sim.close());

  for (const kind of ['503', '429'] as const) {
    it(`retries reads on ${kind}, waiting at least Retry-After, then gives up with its kind`, async () => {
      sim.setFaults({ readFaultRate: 1, readFaultKinds: [kind], retryAfterSeconds: 2 });
      sim.requestLog.clear();
      const { client, sleeps } = clientFor(sim);
      const error = await expectError(client.getInputs(url), kind === '429' ? 'rateLimited' : 'server');
      assert.equal(error.retryAfterMs, 2000);
      assert.equal(sim.requestLog.counts('research').inputs, 3);
      assert.deepEqual(sleeps, [2000, 2000]);
      await client.dispose();
    });
  }

  it('retries a reset connection and a 502, and succeeds once the fault clears', async () => {
    for (const kind of ['reset', '502html'] as const) {
      sim.setFaults({ readFaultRate: 1, readFaultKinds: [kind] });
      const sleeps: number[] = [];
      // The fault clears while the client waits to retry.
      const { client } = clientFor(sim, { sleep: async (ms) => void (sleeps.push(ms), sim.setFaults({})) });
      assert.deepEqual(await client.getInputs(url), { described: true, inputs: [{ name: 'topic' }, { name: 'audience' }] });
      assert.equal(sleeps.length, 1, kind);
      assert.equal(sleeps[0], 500, 'first backoff is the base delay (jitter centred)');
      await client.dispose();
    }
  });

  it('does not retry a malformed body or a 500, and says what happened', async () => {
    for (const [kind, expected] of [['malformed', 'badResponse'], ['500', 'server']] as const) {
      sim.setFaults({ readFaultRate: 1, readFaultKinds: [kind] });
      sim.requestLog.clear();
      const { client, sleeps } = clientFor(sim);
      await expectError(client.getStatus(url, '00000000-0000-4000-8000-000000000000'), expected);
      assert.equal(sim.requestLog.counts('research').status, 1, kind);
      assert.deepEqual(sleeps, []);
      await client.dispose();
    }
  });

  it('drops a body larger than the cap instead of holding it', async () => {
    const { client } = clientFor(sim, { getNetworkSettings: (): NetworkSettings => ({ ...DEFAULT_NETWORK_SETTINGS, maxResponseBytes: 20 }) });
    const error = await expectError(client.getInputs(url), 'badResponse');
    assert.match(error.message, /dropped/);
    await client.dispose();
  });

  it('times out a stalled answer', async () => {
    sim.setFaults({ readFaultRate: 1, readFaultKinds: ['stall'], stallMs: 3000 });
    const { client } = clientFor(sim, {
      retry: { attempts: 1 },
      getNetworkSettings: () => ({ ...DEFAULT_NETWORK_SETTINGS, headersTimeoutMs: 300, bodyTimeoutMs: 300 }),
    });
    await expectError(client.getInputs(url), 'timeout');
    await client.dispose();
  });
});

describe('CrewClient never lets a token leave its crew', () => {
  let sim: Simulator;
  let other: Server;
  const otherSockets = new Set<Socket>();
  const otherRequests: IncomingMessage[] = [];
  let otherPort: number;

  before(async () => {
    sim = await startSimulator({ timeScale: 0.05, crews: [crew] });
    other = createServer((req, res) => {
      otherRequests.push(req);
      res.end('{}');
    });
    other.on('connection', (s) => otherSockets.add(s));
    otherPort = await listen(other);
  });
  after(async () => {
    await sim.close();
    await closeServer(other, otherSockets);
  });

  it('refuses a redirect to another origin and sends nothing there', async () => {
    sim.updateCrew('research', { redirectTo: `http://127.0.0.1:${otherPort}` });
    const { client } = clientFor(sim);
    for (const call of [() => client.getInputs(sim.crewUrl('research')), () => client.kickoff(sim.crewUrl('research'), { inputs: {} })]) {
      const error = await expectError(call(), 'refused');
      assert.equal(error.status, 302);
      assert.match(error.message, /redirect/);
    }
    assert.equal(otherRequests.length, 0, 'the other origin received no request');
    sim.updateCrew('research', { redirectTo: undefined });
    await client.dispose();
  });

  it('refuses plain http to a non-loopback host before sending anything', async () => {
    const { client } = clientFor(undefined, { getToken: async () => 'secret-canary-http' });
    const error = await expectError(client.getInputs('http://crew.example.com'), 'refused');
    assert.equal(error.urlProblem, 'insecureHttp', error.message);
    await client.dispose();
  });

  it('says "no token stored" (not "rejected") when none is stored, without sending a request', async () => {
    sim.requestLog.clear();
    const { client } = clientFor(undefined, { getToken: async () => undefined });
    await expectError(client.getInputs(sim.crewUrl('research')), 'noToken' as string as CrewApiErrorKind);
    assert.equal(sim.requestLog.entries.length, 0);
    await client.dispose();
  });

  it('redacts a token a server echoes back', async () => {
    const echoToken = 'echo-canary-token-777';
    const sockets = new Set<Socket>();
    const echo = createServer((req, res) => {
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ detail: `bad header ${req.headers.authorization}` }));
    });
    echo.on('connection', (s) => sockets.add(s));
    const port = await listen(echo);
    const { client } = clientFor(undefined, { getToken: async () => echoToken });
    const error = await expectError(client.getInputs(`http://127.0.0.1:${port}`), 'badRequest');
    assert.ok(!error.message.includes(echoToken));
    assert.ok(!JSON.stringify(error.body).includes(echoToken));
    assert.match(error.message, /Bearer \*\*\*/);
    await client.dispose();
    await closeServer(echo, sockets);
    TOKENS.push(echoToken);
  });

  it('never retries a kickoff, even after a network failure', async () => {
    let connections = 0;
    const sockets = new Set<Socket>();
    const resetting = createServer(() => undefined);
    resetting.on('connection', (s) => {
      connections++;
      sockets.add(s);
      s.destroy();
    });
    const port = await listen(resetting);
    const { client, sleeps } = clientFor(undefined, { getToken: async () => 'kickoff-canary' });
    await expectError(client.kickoff(`http://127.0.0.1:${port}`, { inputs: {} }), 'network');
    assert.equal(connections, 1);
    assert.deepEqual(sleeps, []);
    await expectError(client.getInputs(`http://127.0.0.1:${port}`), 'network');
    assert.equal(connections, 4, 'reads are retried: 3 attempts');
    await client.dispose();
    await closeServer(resetting, sockets);
  });

  /** A one-route server: every request gets `status` with `body` (JSON unless a string). */
  async function answering(status: number, body: unknown): Promise<{ url: string; close(): Promise<void> }> {
    const sockets = new Set<Socket>();
    const server = createServer((req, res) => {
      res.statusCode = status;
      res.setHeader('content-type', typeof body === 'string' ? 'text/html' : 'application/json');
      res.end(typeof body === 'string' ? body : JSON.stringify(body).replace('ECHO', String(req.headers.authorization)));
    });
    server.on('connection', (s) => sockets.add(s));
    const port = await listen(server);
    return { url: `http://127.0.0.1:${port}`, close: () => closeServer(server, sockets) };
  }

  it('reads a 404 or 405 on /inputs, or a body that is no input list, as "connected; inputs not described"', async () => {
    const cases: [number, unknown, RegExp][] = [
      [404, { detail: 'Not Found' }, /^Not Found$/],
      [405, { detail: 'Method Not Allowed' }, /^Method Not Allowed$/],
      [405, '', /^HTTP 405$/],
      [200, '<html><body><h1>Crew server</h1></body></html>', /^a reply that is no input list: Crew server$/],
      [200, { status: 'ok' }, /no input list: \{"status":"ok"\}/],
    ];
    for (const [status, body, reason] of cases) {
      const server = await answering(status, body);
      const { client } = clientFor(undefined, { getToken: async () => 'inputs-canary-token' });
      const inputs = await client.getInputs(server.url);
      assert.equal(inputs.described, false, `${status} ${JSON.stringify(body)}`);
      assert.match(inputs.described ? '' : inputs.reason, reason);
      await client.dispose();
      await server.close();
    }
  });

  it('a 2xx /resume whose body is an error is not taken as sent: it fails with the server\'s words', async () => {
    for (const body of [{ error: 'Execution is not waiting for input' }, { detail: 'Task not found' }]) {
      const server = await answering(200, body);
      const { client } = clientFor(undefined, { getToken: async () => 'resume-canary-token' });
      try {
        const error = await expectError(client.resume(server.url, { executionId: 'k1', taskId: 't1', humanFeedback: 'shorter', isApprove: false }), 'badResponse');
        assert.equal(error.serverMessage, Object.values(body)[0]);
        assert.equal(error.status, 200);
      } finally {
        await client.dispose();
        await server.close();
      }
    }
  });

  it('still reports a rejected token on /inputs as unauthorized', async () => {
    const server = await answering(401, { detail: 'Invalid token' });
    const { client } = clientFor(undefined, { getToken: async () => 'inputs-canary-token' });
    await expectError(client.getInputs(server.url), 'unauthorized');
    await client.dispose();
    await server.close();
  });

  it('reads the kickoff id under any of the keys self-hosted servers use', async () => {
    for (const key of ['kickoff_id', 'kickoffId', 'id', 'task_id', 'execution_id', 'run_id']) {
      const server = await answering(200, { [key]: 'run-42', status: 'accepted' });
      const { client } = clientFor(undefined, { getToken: async () => 'kickoff-canary-token' });
      assert.equal(await client.kickoff(server.url, { inputs: {} }), 'run-42', key);
      await client.dispose();
      await server.close();
    }
  });

  it('a kickoff reply without an id is an error naming what the server sent (clipped, token redacted)', async () => {
    const server = await answering(200, { status: 'accepted', echo: 'ECHO', padding: 'x'.repeat(1000) });
    const { client } = clientFor(undefined, { getToken: async () => 'kickoff-canary-token' });
    const error = await expectError(client.kickoff(server.url, { inputs: {} }), 'badResponse');
    assert.match(error.message, /named no run id \(looked for kickoff_id, kickoffId, id, task_id, execution_id, run_id\); it sent "\{"status":"accepted"/);
    assert.ok(!error.message.includes('kickoff-canary-token'), 'the echoed token is redacted');
    assert.match(error.message, /Bearer \*\*\*/);
    assert.ok(error.message.length < 600, 'the body is clipped');
    await client.dispose();
    await server.close();
    TOKENS.push('kickoff-canary-token', 'inputs-canary-token');
  });

  it('no error message seen in these tests contains a token', () => {
    assert.ok(seenMessages.length > 20, `only ${seenMessages.length} messages collected`);
    for (const token of TOKENS) {
      assert.ok(!seenMessages.some((m) => m.includes(token)), `token ${token.slice(0, 6)}… leaked`);
    }
  });
});

describe('demo crews', () => {
  it('include a crew with a human-feedback step', () => {
    assert.ok(demoCrews().some((c) => c.tasks.some((t) => t.humanInput)));
  });
});
