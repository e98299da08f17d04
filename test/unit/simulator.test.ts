// The crew simulator, exercised over real HTTP with node's global fetch as the client.

import * as assert from 'node:assert/strict';
import { parseInputsBody } from '../../src/api/inputsBody';
import { normaliseStatus } from '../../src/api/normalize';
import { demoCrews, startSimulator, type CrewConfig, type ReadFaultKind, type Simulator } from '../../src/simulator/server';

const SCALE = 0.01;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Small crews with known tokens; at SCALE a task takes 50 ms and PENDING 20 ms. */
function testCrews(): CrewConfig[] {
  return [
    {
      id: 'alpha',
      name: 'Alpha Crew',
      kind: 'crew',
      inputs: ['topic', 'audience'],
      orgToken: 'org-alpha',
      userToken: 'user-alpha',
      pendingMs: 2000,
      tasks: [
        { name: 'research_task', agent: 'Researcher', description: 'Research {topic}', durationMs: 5000, output: '# Notes on {topic} for {audience}' },
        { name: 'analysis_task', agent: 'Analyst', durationMs: 5000, output: { json: { topic: '{topic}', score: 7 } } },
        { name: 'writing_task', agent: 'Writer', durationMs: 5000, output: 'Final report on {topic}' },
      ],
    },
    {
      id: 'review',
      name: 'Review Crew',
      kind: 'crew',
      inputs: ['topic'],
      orgToken: 'org-review',
      userToken: 'user-review',
      pendingMs: 2000,
      tasks: [
        { name: 'draft_task', agent: 'Writer', durationMs: 3000, output: 'Draft about {topic}' },
        { name: 'review_task', agent: 'Editor', durationMs: 3000, humanInput: true, output: 'Polished text about {topic}' },
        { name: 'publish_task', agent: 'Publisher', durationMs: 3000, output: { fencedJson: { title: '{topic}', published: true } } },
      ],
    },
    {
      id: 'flow',
      name: 'Test Flow',
      kind: 'flow',
      inputs: ['id', 'topic'],
      defaults: { topic: 'default ideas' },
      orgToken: 'org-flow',
      userToken: 'user-flow',
      pendingMs: 2000,
      tasks: [
        { name: 'generate', agent: 'Generator', durationMs: 5000, output: 'Ideas on {topic}' },
        { name: 'pitch', agent: 'Pitcher', durationMs: 5000, output: { json: { pitch: '{topic}' } } },
      ],
    },
  ];
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body; undefined when the body is not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are probed field by field
  json: any;
}

async function call(
  sim: Simulator,
  crewId: string,
  path: string,
  init: { method?: string; token?: string | null; body?: unknown; rawBody?: string } = {},
): Promise<Answer> {
  const token = init.token === undefined ? `org-${crewId}` : init.token;
  const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` };
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(`${sim.crewUrl(crewId)}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

async function kickoff(sim: Simulator, crewId: string, inputs: Record<string, string> = { topic: 'Rust', audience: 'CTOs' }): Promise<string> {
  const answer = await call(sim, crewId, '/kickoff', { body: { inputs } });
  assert.equal(answer.status, 200, answer.text);
  return answer.json.kickoff_id as string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls /status until `done` holds, returning every body seen (the last one satisfies `done`). */
async function pollStatus(sim: Simulator, crewId: string, id: string, done: (a: Answer) => boolean, timeoutMs = 3000): Promise<Answer[]> {
  const seen: Answer[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call(sim, crewId, `/status/${id}`);
    seen.push(answer);
    if (done(answer)) {
      return seen;
    }
    if (Date.now() > deadline) {
      assert.fail(`status never satisfied the condition; last: ${answer.status} ${answer.text.slice(0, 300)}`);
    }
    await sleep(5);
  }
}

const liveState = (state: string) => (a: Answer) => a.json?.state === state;
const docsStatus = (status: string) => (a: Answer) => a.json?.status === status;

describe('crew simulator', function () {
  let sim: Simulator;

  before(async () => {
    sim = await startSimulator({ timeScale: SCALE, crews: testCrews(), seed: 1 });
  });

  after(async () => {
    await sim.close();
  });

  afterEach(() => {
    sim.setFaults({});
    for (const crew of testCrews()) {
      // Restore every knob a test may have changed.
      sim.updateCrew(crew.id, {
        ...crew,
        dialect: undefined,
        scenario: undefined,
        failureMessage: undefined,
        livePausedState: undefined,
        exposeTaskId: undefined,
        userTokenCanResume: undefined,
        rateLimitPerSecond: undefined,
        redirectTo: undefined,
        faults: undefined,
        liveResumeAcceptsUnknownExecution: undefined,
        liveLastExecutedTaskAsString: undefined,
        liveOmitProgress: undefined,
        notFoundForMs: undefined,
        inputDetails: undefined,
        selfHostedInputs: undefined,
      });
    }
  });

  describe('startup and crews', () => {
    it('serves each crew under its own base path with the configured tokens', () => {
      assert.deepEqual(
        sim.crews.map((crew) => [crew.id, crew.url, crew.orgToken, crew.userToken]),
        [
          ['alpha', `${sim.origin}/alpha`, 'org-alpha', 'user-alpha'],
          ['review', `${sim.origin}/review`, 'org-review', 'user-review'],
          ['flow', `${sim.origin}/flow`, 'org-flow', 'user-flow'],
        ],
      );
      assert.match(sim.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(sim.origin, `http://127.0.0.1:${sim.port}`);
      assert.throws(() => sim.crewUrl('nope'), /No crew/);
    });

    it('draws fresh random tokens per start when the config has none, and serves the demo crews by default', async () => {
      const first = await startSimulator();
      const second = await startSimulator();
      try {
        assert.deepEqual(
          first.crews.map((crew) => crew.id),
          ['research-crew', 'review-crew', 'idea-flow', 'selfhosted-crew', 'interview-crew', 'support-chat-flow', 'echo-crew'],
        );
        const tokens = [...first.crews, ...second.crews].flatMap((crew) => [crew.orgToken, crew.userToken]);
        assert.equal(new Set(tokens).size, tokens.length);
        for (const token of tokens) {
          assert.match(token, /^[0-9a-f]{32}$/);
        }
        assert.notEqual(first.port, second.port);
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    it('refuses duplicate or path-unsafe crew ids', async () => {
      const [alpha] = testCrews();
      await assert.rejects(startSimulator({ crews: [alpha, alpha] }), /Duplicate crew id/);
      await assert.rejects(startSimulator({ crews: [{ ...alpha, id: 'a/b' }] }), /URL path segment/);
    });
  });

  describe('demo crews', () => {
    const totalSeconds = (crew: CrewConfig): number => ((crew.pendingMs ?? 1500) + crew.tasks.reduce((sum, task) => sum + task.durationMs, 0)) / 1000;

    it('has a research crew, a review crew with human input and a flow, each taking 15-30 s', () => {
      const [research, review, flow] = demoCrews();
      assert.equal(research.name, 'Research Crew');
      assert.deepEqual(research.inputs, ['topic', 'audience']);
      assert.equal(research.tasks.length, 3);
      assert.ok(research.tasks.some((task) => typeof task.output === 'object' && 'json' in task.output));
      assert.equal(review.name, 'Review Crew');
      assert.ok(review.tasks.some((task) => task.humanInput));
      assert.equal(flow.name, 'Idea Flow');
      assert.equal(flow.kind, 'flow');
      assert.ok(flow.inputs.includes('id'));
      for (const crew of [research, review, flow]) {
        const seconds = totalSeconds(crew);
        assert.ok(seconds >= 15 && seconds <= 30, `${crew.name} takes ${seconds} s`);
      }
    });

    it('the self-hosted demo crew fails a run whose topic says #fail, as its input prompt tells, with a real-looking error', async () => {
      const demo = await startSimulator({ timeScale: 0.002 });
      try {
        const crew = demo.crews.find((c) => c.id === 'selfhosted-crew')!;
        const headers = { Authorization: `Bearer ${crew.orgToken}` };
        const schema = JSON.stringify(await (await fetch(`${crew.url}/inputs`, { headers })).json());
        assert.match(schema, /add #fail to see a run fail/);
        const start = async (topic: string) => {
          const reply = await fetch(`${crew.url}/kickoff`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ inputs: { topic, audience: 'a', tone: 'neutral' } }) });
          return ((await reply.json()) as { id: string }).id;
        };
        const failing = await start('pricing #fail');
        const fine = await start('pricing');
        for (let i = 0; i < 400 && !(demo.getRun(failing)?.finishedAt && demo.getRun(fine)?.finishedAt); i++) {
          await sleep(10);
        }
        assert.equal(demo.getRun(failing)?.phase, 'failed');
        assert.match(demo.getRun(failing)?.failure ?? '', /^litellm\.RateLimitError: .*exceeded your current quota/);
        assert.equal(demo.getRun(fine)?.phase, 'succeeded', 'only the trigger fails a run');
      } finally {
        await demo.close();
      }
    });

    it('runs the demo flow to SUCCESS with an open-ended progress total', async () => {
      const demo = await startSimulator({ timeScale: 0.002 });
      try {
        const flow = demo.crews.find((crew) => crew.id === 'idea-flow')!;
        const started = await fetch(`${flow.url}/kickoff`, { method: 'POST', headers: { Authorization: `Bearer ${flow.userToken}` }, body: '{}' });
        const { kickoff_id: id } = (await started.json()) as { kickoff_id: string };
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a status body, probed field by field
        let body: any;
        for (let i = 0; i < 200; i++) {
          body = await (await fetch(`${flow.url}/status/${id}`, { headers: { Authorization: `Bearer ${flow.orgToken}` } })).json();
          if (body.state === 'SUCCESS') {
            break;
          }
          await sleep(10);
        }
        assert.equal(body.state, 'SUCCESS');
        assert.equal(body.progress.total, null);
        assert.match(body.result, /offline mode for developer tools/);
      } finally {
        await demo.close();
      }
    });
  });

  describe('routing and auth', () => {
    for (const dialect of ['live', 'docs'] as const) {
      it(`GET /inputs lists names with either token (${dialect})`, async () => {
        sim.updateCrew('alpha', { dialect });
        for (const token of ['org-alpha', 'user-alpha']) {
          const answer = await call(sim, 'alpha', '/inputs', { token });
          assert.equal(answer.status, 200);
          assert.deepEqual(answer.json, { inputs: ['topic', 'audience'] });
        }
        assert.deepEqual((await call(sim, 'flow', '/inputs')).json, { inputs: ['id', 'topic'] });
      });
    }

    it('answers 401 in the live family for a missing, wrong or other crew\'s token', async () => {
      for (const token of [null, 'wrong', 'org-review']) {
        for (const [path, method] of [['/inputs', 'GET'], ['/kickoff', 'POST'], ['/status/x', 'GET'], ['/resume', 'POST']]) {
          const answer = await call(sim, 'alpha', path, { token, method });
          assert.equal(answer.status, 401, `${method} ${path} with ${token}`);
          assert.deepEqual(answer.json, { detail: 'Invalid or missing authentication credentials' });
        }
      }
    });

    it('answers 401 in the docs family', async () => {
      sim.updateCrew('alpha', { dialect: 'docs' });
      const answer = await call(sim, 'alpha', '/inputs', { token: 'wrong' });
      assert.equal(answer.status, 401);
      assert.deepEqual(answer.json, { error: 'Unauthorized', message: 'Invalid or missing bearer token' });
    });

    it('answers 404 for GET /, an unknown crew, a crew root and unknown paths, and 405 for a wrong method', async () => {
      const root = await fetch(`${sim.origin}/`);
      assert.equal(root.status, 404);
      assert.deepEqual(await root.json(), { detail: 'Not Found' });
      assert.equal((await fetch(`${sim.origin}/nope/inputs`, { headers: { Authorization: 'Bearer org-alpha' } })).status, 404);
      assert.equal((await call(sim, 'alpha', '')).status, 404);
      assert.equal((await call(sim, 'alpha', '/')).status, 404);
      assert.equal((await call(sim, 'alpha', '/status/')).status, 404);
      const wrongMethod = await call(sim, 'alpha', '/inputs', { method: 'POST' });
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.get('allow'), 'GET');
      sim.updateCrew('alpha', { dialect: 'docs' });
      const docs404 = await call(sim, 'alpha', '/nope');
      assert.equal(docs404.status, 404);
      assert.equal(docs404.json.error, 'Not Found');
    });
  });

  describe('POST /kickoff', () => {
    it('answers a UUID kickoff id and records the run with its inputs', async () => {
      const id = await kickoff(sim, 'alpha', { topic: 'Go', audience: 'SREs' });
      assert.match(id, UUID);
      const run = sim.getRun(id);
      assert.deepEqual(run?.inputs, { topic: 'Go', audience: 'SREs' });
      assert.equal(run?.crewId, 'alpha');
    });

    it('answers 422 naming the missing inputs in the live family', async () => {
      for (const body of [{ inputs: { topic: 'x' } }, { inputs: {} }, {}, { topic: 'x', audience: 'y' }]) {
        const answer = await call(sim, 'alpha', '/kickoff', { body });
        assert.equal(answer.status, 422);
        assert.match(answer.json.detail, /^Missing inputs: audience/);
      }
      assert.deepEqual((await call(sim, 'alpha', '/kickoff', { body: {} })).json, { detail: 'Missing inputs: audience, topic' });
    });

    it('answers 422 with details.missing_inputs in the docs family', async () => {
      sim.updateCrew('alpha', { dialect: 'docs' });
      const answer = await call(sim, 'alpha', '/kickoff', { body: { inputs: { audience: 'y' } } });
      assert.equal(answer.status, 422);
      assert.deepEqual(answer.json, { error: 'Validation Error', message: 'Missing required inputs', details: { missing_inputs: ['topic'] } });
    });

    it('answers malformed JSON with a plain-text 500 (live) and a 400 (docs)', async () => {
      const live = await call(sim, 'alpha', '/kickoff', { rawBody: '{"inputs": ' });
      assert.equal(live.status, 500);
      assert.equal(live.text, 'Internal Server Error');
      assert.match(live.headers.get('content-type') ?? '', /^text\/plain/);
      sim.updateCrew('alpha', { dialect: 'docs' });
      const docs = await call(sim, 'alpha', '/kickoff', { rawBody: '{"inputs": ' });
      assert.equal(docs.status, 400);
      assert.equal(docs.json.error, 'Bad Request');
    });

    it('answers 400 in either family when a crew checks its inputs and one is too long', async () => {
      sim.updateCrew('alpha', { maxInputLength: 5 });
      const live = await call(sim, 'alpha', '/kickoff', { body: { inputs: { topic: 'Go', audience: 'far too long' } } });
      assert.equal(live.status, 400);
      assert.deepEqual(live.json, { detail: "Input 'audience' is too long (at most 5 characters)" });
      sim.updateCrew('alpha', { dialect: 'docs' });
      const docs = await call(sim, 'alpha', '/kickoff', { body: { inputs: { topic: 'Go', audience: 'far too long' } } });
      assert.equal(docs.status, 400);
      assert.deepEqual(docs.json, { error: 'Invalid Request', message: "Input 'audience' is too long (at most 5 characters)" });
      sim.updateCrew('alpha', { maxInputLength: undefined });
    });

    it('starts a flow with an empty body (no input is required)', async () => {
      const answer = await call(sim, 'flow', '/kickoff', { method: 'POST' });
      assert.equal(answer.status, 200);
      assert.match(answer.json.kickoff_id, UUID);
    });
  });

  describe('GET /status, live dialect', () => {
    it('goes PENDING → RUNNING → SUCCESS; outputs are reconstructable only by polling', async () => {
      // 200 ms phases: wide enough to see each one on a busy machine.
      sim.updateCrew('alpha', { pendingMs: 20_000, tasks: testCrews()[0].tasks.map((task) => ({ ...task, durationMs: 20_000 })) });
      const id = await kickoff(sim, 'alpha');
      const seen = await pollStatus(sim, 'alpha', id, liveState('SUCCESS'));
      const states = seen.map((a) => a.json.state).filter((state, i, all) => state !== all[i - 1]);
      assert.deepEqual(states, ['PENDING', 'RUNNING', 'SUCCESS']);
      assert.equal(seen[0].json.status, 'Task is pending');

      const running = seen.find((a) => a.json.state === 'RUNNING' && a.json.last_executed_task)!;
      assert.equal(running.json.status, 'Task is Running');
      assert.equal(running.json.result, null);
      assert.equal(running.json.progress.unit, 'task');
      assert.equal(running.json.progress.total, 3);
      assert.equal(running.json.progress.remaining, 3 - running.json.progress.completed);
      assert.equal(typeof running.json.progress.current_agent, 'string');
      for (const key of ['started_at', 'updated_at']) {
        assert.ok(!Number.isNaN(Date.parse(running.json.progress[key])), key);
      }
      assert.equal(running.json.last_executed_task.kickoff_id, id);
      assert.equal(running.json.execution_origin, 'api');

      const snapshots = new Map<string, string>();
      for (const answer of seen) {
        const task = answer.json.last_executed_task;
        if (task) {
          snapshots.set(task.name, task.output);
        }
      }
      assert.deepEqual([...snapshots.keys()], ['research_task', 'analysis_task', 'writing_task']);
      assert.equal(snapshots.get('research_task'), '# Notes on Rust for CTOs');
      assert.deepEqual(JSON.parse(snapshots.get('analysis_task')!), { topic: 'Rust', score: 7 });

      const done = seen[seen.length - 1].json;
      assert.equal(done.status, null);
      assert.equal(done.result, 'Final report on Rust');
      assert.equal(done.result_json, null);
      assert.deepEqual(
        done.tasks_output.map((task: { name: string; raw: string }) => task.name),
        ['research_task', 'analysis_task', 'writing_task'],
      );
      assert.deepEqual(done.tasks_output[1].json_dict, { topic: 'Rust', score: 7 });
      assert.ok(done.usage_metrics.total_tokens > 0);
      assert.equal(done.progress.completed, 3);
    });

    it('reports a JSON final output as a string plus result_json, and fenced JSON as a fenced string', async () => {
      sim.updateCrew('alpha', {
        tasks: [{ name: 'only', agent: 'A', durationMs: 1000, output: { json: { answer: '{topic}', n: [1, 2] } } }],
      });
      const id = await kickoff(sim, 'alpha');
      const done = (await pollStatus(sim, 'alpha', id, liveState('SUCCESS'))).pop()!.json;
      assert.equal(typeof done.result, 'string');
      assert.deepEqual(JSON.parse(done.result), { answer: 'Rust', n: [1, 2] });
      assert.deepEqual(done.result_json, { answer: 'Rust', n: [1, 2] });

      sim.updateCrew('alpha', { tasks: [{ name: 'only', agent: 'A', durationMs: 1000, output: { fencedJson: { answer: '{topic}' } } }] });
      const fencedId = await kickoff(sim, 'alpha');
      const fenced = (await pollStatus(sim, 'alpha', fencedId, liveState('SUCCESS'))).pop()!.json;
      assert.match(fenced.result, /^```json\n[\s\S]*\n```$/);
      assert.deepEqual(JSON.parse(fenced.result.slice(8, -4)), { answer: 'Rust' });
      assert.equal(fenced.result_json, null);
    });

    it('generates large outputs of the requested size', async () => {
      sim.updateCrew('alpha', { tasks: [{ name: 'big', agent: 'A', durationMs: 1000, output: { repeat: '{topic} ', bytes: 300_000 } }] });
      const id = await kickoff(sim, 'alpha');
      const done = (await pollStatus(sim, 'alpha', id, liveState('SUCCESS'))).pop()!.json;
      assert.equal(done.result.length, 300_000);
      assert.ok(done.result.startsWith('Rust Rust '));
    });

    it('gives flows step progress with null total and remaining', async () => {
      sim.updateCrew('flow', { tasks: testCrews()[2].tasks.map((task) => ({ ...task, durationMs: 20_000 })) });
      const id = await kickoff(sim, 'flow', {});
      const seen = await pollStatus(sim, 'flow', id, liveState('SUCCESS'));
      const running = seen.find((a) => a.json.state === 'RUNNING')!;
      assert.equal(running.json.progress.unit, 'step');
      assert.equal(running.json.progress.total, null);
      assert.equal(running.json.progress.remaining, null);
      const done = seen[seen.length - 1].json;
      assert.deepEqual(done.result_json, { pitch: 'default ideas' });
    });

    it('answers an unknown kickoff id with HTTP 200 NOT FOUND', async () => {
      const answer = await call(sim, 'alpha', '/status/00000000-0000-4000-8000-000000000000');
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.json, { state: 'NOT FOUND', status: 'Task not found or Invalid kickoff id' });
      const otherCrewsRun = await kickoff(sim, 'review', { topic: 'x' });
      assert.equal((await call(sim, 'alpha', `/status/${otherCrewsRun}`)).json.state, 'NOT FOUND');
    });

    it('fails with the exception text in status (scenario fail)', async () => {
      sim.updateCrew('alpha', { scenario: 'fail', failureMessage: 'ValueError: boom' });
      const id = await kickoff(sim, 'alpha');
      const failed = (await pollStatus(sim, 'alpha', id, liveState('FAILED'))).pop()!.json;
      assert.equal(failed.status, 'ValueError: boom');
      assert.equal(failed.result, null);
      assert.equal(failed.progress, null);
      assert.equal(failed.last_executed_task, null);
      assert.equal(sim.getRun(id)?.phase, 'failed');
      assert.ok(sim.getRun(id)?.finishedAt);
    });

    it('fails at the given task after the earlier ones succeeded (failAtTask:N)', async () => {
      sim.updateCrew('alpha', { scenario: 'failAtTask:1' });
      const id = await kickoff(sim, 'alpha');
      const failed = (await pollStatus(sim, 'alpha', id, liveState('FAILED'))).pop()!.json;
      assert.equal(failed.status, "ValueError: Simulated failure in task 'analysis_task'");
      assert.equal(failed.last_executed_task.name, 'research_task');
      assert.deepEqual(
        sim.getRun(id)?.completedTasks.map((task) => task.name),
        ['research_task'],
      );
    });

    it('hides a new run for a while (notFoundAfterKickoff), then runs it', async () => {
      sim.updateCrew('alpha', { scenario: 'notFoundAfterKickoff', notFoundForMs: 20_000 });
      const id = await kickoff(sim, 'alpha');
      const seen = await pollStatus(sim, 'alpha', id, liveState('SUCCESS'));
      const states = seen.map((a) => a.json.state).filter((state, i, all) => state !== all[i - 1]);
      assert.equal(states[0], 'NOT FOUND');
      assert.equal(states.lastIndexOf('NOT FOUND'), 0, states.join(' → '));
    });

    it('never finishes the last task (hang) and never answers a lost run', async () => {
      sim.updateCrew('alpha', { scenario: 'hang' });
      const hanging = await kickoff(sim, 'alpha');
      sim.updateCrew('alpha', { scenario: 'lost' });
      const lost = await kickoff(sim, 'alpha');
      await sleep(400); // more than twice the run's length
      const body = (await call(sim, 'alpha', `/status/${hanging}`)).json;
      assert.equal(body.state, 'RUNNING');
      assert.equal(body.progress.current, 'writing_task');
      assert.equal(body.progress.completed, 2);
      assert.equal(sim.getRun(hanging)?.finishedAt, undefined);
      assert.equal((await call(sim, 'alpha', `/status/${lost}`)).json.state, 'NOT FOUND');
      assert.equal(sim.getRun(lost)?.phase, 'succeeded');
    });

    it('can send last_executed_task as a string and progress as null', async () => {
      sim.updateCrew('alpha', { liveLastExecutedTaskAsString: true, liveOmitProgress: true });
      const id = await kickoff(sim, 'alpha');
      const done = (await pollStatus(sim, 'alpha', id, liveState('SUCCESS'))).pop()!.json;
      assert.equal(done.last_executed_task, 'Final report on Rust');
      assert.equal(done.progress, null);
    });
  });

  describe('GET /status, docs dialect', () => {
    beforeEach(() => {
      sim.updateCrew('alpha', { dialect: 'docs' });
    });

    it('shows running with current_task and progress, then completed with result.output and tasks', async () => {
      const [research, analysis, writing] = testCrews()[0].tasks;
      sim.updateCrew('alpha', { tasks: [research, { ...analysis, durationMs: 20_000 }, writing] });
      const id = await kickoff(sim, 'alpha');
      const seen = await pollStatus(sim, 'alpha', id, docsStatus('completed'));
      const running = seen.find((a) => a.json.status === 'running' && a.json.current_task === 'analysis_task')!;
      assert.deepEqual(running.json.progress, { completed_tasks: 1, total_tasks: 3 });
      assert.ok(seen.every((a) => a.json.state === undefined));
      const done = seen[seen.length - 1].json;
      assert.equal(done.result.output, 'Final report on Rust');
      assert.deepEqual(
        done.result.tasks.map((task: Record<string, unknown>) => Object.keys(task).sort()),
        Array(3).fill(['agent', 'execution_time', 'output', 'task_id']),
      );
      assert.equal(done.result.tasks[0].task_id, 'research_task');
      assert.equal(done.result.tasks[0].output, '# Notes on Rust for CTOs');
      assert.equal(typeof done.execution_time, 'number');
      assert.ok(done.execution_time > 0);
    });

    it('shows error with the message and execution_time', async () => {
      sim.updateCrew('alpha', { scenario: 'fail', failureMessage: 'Task execution failed: bad key' });
      const id = await kickoff(sim, 'alpha');
      const failed = (await pollStatus(sim, 'alpha', id, docsStatus('error'))).pop()!.json;
      assert.equal(failed.error, 'Task execution failed: bad key');
      assert.equal(typeof failed.execution_time, 'number');
    });

    it('answers an unknown id with 404 Execution not found', async () => {
      const answer = await call(sim, 'alpha', '/status/abc');
      assert.equal(answer.status, 404);
      assert.deepEqual(answer.json, { error: 'Execution not found', message: 'No execution found with ID: abc' });
    });
  });

  describe('self-hosted dialect', () => {
    beforeEach(() => {
      sim.updateCrew('alpha', {
        dialect: 'selfhosted',
        inputDetails: { topic: { description: 'What to research' }, audience: { description: 'Who reads it', default: 'everyone', enum: ['everyone', 'CTOs'] } },
      });
    });

    it('describes its inputs with a JSON Schema, which the client reads with descriptions, defaults and enums', async () => {
      const answer = await call(sim, 'alpha', '/inputs');
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.json.required, ['topic']);
      assert.equal(answer.json.inputs, undefined, 'not the hosted shape');
      assert.deepEqual(parseInputsBody(answer.json), [
        { name: 'topic', type: 'string', description: 'What to research', required: true },
        { name: 'audience', type: 'string', description: 'Who reads it', default: 'everyone', enum: ['everyone', 'CTOs'], required: false },
      ]);
    });

    it('can have no /inputs route (404) or an unreadable one (an HTML page)', async () => {
      sim.updateCrew('alpha', { selfHostedInputs: 'absent' });
      const absent = await call(sim, 'alpha', '/inputs');
      assert.equal(absent.status, 404);
      assert.deepEqual(absent.json, { detail: 'Not Found' });
      sim.updateCrew('alpha', { selfHostedInputs: 'unreadable' });
      const page = await call(sim, 'alpha', '/inputs');
      assert.equal(page.status, 200);
      assert.match(page.text, /^<html>/);
      assert.equal(parseInputsBody(page.text), undefined);
    });

    it('answers a kickoff with the id under `id`; an input with a default may be left out', async () => {
      const answer = await call(sim, 'alpha', '/kickoff', { body: { inputs: { topic: 'Rust' } } });
      assert.equal(answer.status, 202, answer.text);
      assert.match(answer.json.id, UUID);
      assert.equal(answer.json.kickoff_id, undefined);
      const done = (await pollStatus(sim, 'alpha', answer.json.id, docsStatus('completed'))).pop()!.json;
      assert.equal(done.result.tasks_output[0].raw, '# Notes on Rust for everyone', 'the schema default fills the placeholder');
    });

    it('runs with lower-case states and elapsed, and finishes with a CrewOutput: raw, json_dict, tasks_output with messages, token_usage', async () => {
      const answer = await call(sim, 'alpha', '/kickoff', { body: { inputs: { topic: 'Rust', audience: 'CTOs' } } });
      const id = answer.json.id as string;
      const seen = await pollStatus(sim, 'alpha', id, docsStatus('completed'));
      const running = seen.find((a) => a.json.status === 'running')!;
      assert.equal(typeof running.json.elapsed, 'number');
      assert.deepEqual(running.json.progress.total, 3);
      const done = seen[seen.length - 1].json;
      assert.equal(typeof done.duration_seconds, 'number');
      assert.deepEqual(Object.keys(done.result).sort(), ['json_dict', 'pydantic', 'raw', 'tasks_output', 'token_usage']);
      assert.equal(done.result.raw, 'Final report on Rust');
      assert.equal(done.result.tasks_output.length, 3);
      assert.deepEqual(done.result.tasks_output[1].json_dict, { topic: 'Rust', score: 7 });
      assert.ok(done.result.tasks_output.every((task: { messages: unknown[] }) => task.messages.length === 3));
      assert.deepEqual(Object.keys(done.result.token_usage).sort(), ['cached_prompt_tokens', 'completion_tokens', 'prompt_tokens', 'successful_requests', 'total_tokens']);
      const snapshot = normaliseStatus(done, 200);
      assert.equal(snapshot.state, 'succeeded');
      assert.deepEqual(snapshot.finalOutput, { kind: 'markdown', text: 'Final report on Rust' });
      assert.deepEqual(snapshot.tasks.map((task) => task.name), ['research_task', 'analysis_task', 'writing_task']);
      assert.equal(snapshot.usage?.total_tokens, done.result.token_usage.total_tokens);
    });

    it('says error with the exception text', async () => {
      sim.updateCrew('alpha', { scenario: 'fail', failureMessage: 'ValueError: boom' });
      const id = (await call(sim, 'alpha', '/kickoff', { body: { inputs: { topic: 'Rust' } } })).json.id as string;
      const failed = (await pollStatus(sim, 'alpha', id, docsStatus('error'))).pop()!.json;
      assert.equal(failed.error, 'ValueError: boom');
    });

    it('answers an unknown (or forgotten) run with a bare HTTP 404 in FastAPI\'s shape, and errors likewise', async () => {
      const answer = await call(sim, 'alpha', '/status/abc');
      assert.equal(answer.status, 404);
      assert.deepEqual(answer.json, { detail: 'Run abc not found' });
      const unauthorized = await call(sim, 'alpha', '/inputs', { token: 'wrong' });
      assert.equal(unauthorized.status, 401);
      assert.equal(typeof unauthorized.json.detail, 'string');
      const missing = await call(sim, 'alpha', '/kickoff', { body: { inputs: {} } });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.json, { detail: 'Missing inputs: topic' });
    });

    it('is served by a demo crew', () => {
      const crew = demoCrews().find((c) => c.dialect === 'selfhosted');
      assert.ok(crew, 'a demo crew speaks the self-hosted dialect');
      assert.ok(Object.values(crew.inputDetails ?? {}).some((details) => details.enum !== undefined && details.default !== undefined));
    });
  });

  describe('human in the loop, docs dialect', () => {
    beforeEach(() => {
      sim.updateCrew('review', { dialect: 'docs' });
    });

    const resume = (body: unknown, token?: string) => call(sim, 'review', '/resume', { body, token });

    it('pauses after the human-input task with the task id, retries on feedback, and completes on approval', async () => {
      // Wide windows (200 ms) for the moments this test must catch: before the pause and during the retry.
      const [draft, review, publish] = testCrews()[1].tasks;
      sim.updateCrew('review', { pendingMs: 20_000, tasks: [draft, { ...review, durationMs: 20_000 }, publish] });
      const id = await kickoff(sim, 'review', { topic: 'Zig' });
      assert.equal((await resume({ execution_id: id, task_id: 'review_task', human_feedback: '', is_approve: true })).status, 400);

      const paused = (await pollStatus(sim, 'review', id, docsStatus('pending_human_input'))).pop()!.json;
      const taskId = sim.getRun(id)!.pausedTaskId!;
      assert.match(taskId, UUID);
      assert.equal(paused.task_id, taskId);
      assert.equal(paused.current_task, 'review_task');
      assert.equal(paused.task_output, 'Polished text about Zig');
      assert.deepEqual(paused.progress, { completed_tasks: 2, total_tasks: 3 });

      const wrongTask = await resume({ execution_id: id, task_id: '00000000-0000-4000-8000-000000000000', human_feedback: 'x', is_approve: true });
      assert.equal(wrongTask.status, 404);
      assert.deepEqual(wrongTask.json, { error: 'Not Found', message: 'Task ID not found' });
      const unknownRun = await resume({ execution_id: 'nope', task_id: taskId, human_feedback: 'x', is_approve: true });
      assert.equal(unknownRun.status, 404);
      assert.deepEqual(unknownRun.json, { error: 'Not Found', message: 'Execution ID not found' });

      const retry = await resume({ execution_id: id, task_id: taskId, human_feedback: 'Make it shorter', is_approve: false });
      assert.equal(retry.status, 200);
      assert.deepEqual(retry.json, { status: 'retrying', message: 'Task will be retried with your feedback' });
      assert.equal((await call(sim, 'review', `/status/${id}`)).json.status, 'running');
      const pausedAgain = (await pollStatus(sim, 'review', id, docsStatus('pending_human_input'))).pop()!.json;
      assert.equal(pausedAgain.task_id, taskId);
      assert.equal(pausedAgain.task_output, 'Polished text about Zig\n\nRevised after feedback: Make it shorter');

      // The docs name the task by name in their example; that works too.
      const approve = await resume({ execution_id: id, task_id: 'review_task', human_feedback: 'Great', is_approve: true });
      assert.deepEqual(approve.json, { status: 'resumed', message: 'Execution resumed successfully' });
      const done = (await pollStatus(sim, 'review', id, docsStatus('completed'))).pop()!.json;
      assert.equal(done.result.tasks[1].output, 'Polished text about Zig\n\nRevised after feedback: Make it shorter');
      assert.match(done.result.output, /^```json\n/);
      assert.equal((await resume({ execution_id: id, task_id: taskId, human_feedback: '', is_approve: true })).status, 400);

      const records = sim.resumes.filter((record) => record.runId === id);
      assert.deepEqual(
        records.map((record) => [record.style, record.status, record.action]),
        [
          ['snake', 400, undefined],
          ['snake', 404, undefined],
          ['snake', 200, 'retry'],
          ['snake', 200, 'approve'],
          ['snake', 400, undefined],
        ],
      );
      assert.deepEqual(sim.getRun(id)?.resumes.map((record) => record.action), ['retry', 'approve']);
      assert.deepEqual(records[2].body, { execution_id: id, task_id: taskId, human_feedback: 'Make it shorter', is_approve: false });
    });

    it('answers completed when the approved task was the last one', async () => {
      sim.updateCrew('review', { tasks: [{ name: 'review_task', agent: 'Editor', durationMs: 1000, humanInput: true, output: 'ok' }] });
      const id = await kickoff(sim, 'review', { topic: 'x' });
      await pollStatus(sim, 'review', id, docsStatus('pending_human_input'));
      const answer = await resume({ execution_id: id, task_id: sim.getRun(id)!.pausedTaskId, human_feedback: '', is_approve: true });
      assert.equal(answer.json.status, 'completed');
      assert.equal((await call(sim, 'review', `/status/${id}`)).json.status, 'completed');
    });

    it('answers 422 without execution_id and task_id, and 400 for malformed JSON', async () => {
      const answer = await resume({ human_feedback: 'x' });
      assert.equal(answer.status, 422);
      assert.deepEqual(answer.json.details.missing_fields, ['execution_id', 'task_id']);
      assert.equal((await call(sim, 'review', '/resume', { rawBody: 'nope' })).status, 400);
    });

    it('hides the task id when exposeTaskId is false', async () => {
      sim.updateCrew('review', { exposeTaskId: false });
      const id = await kickoff(sim, 'review', { topic: 'x' });
      const paused = (await pollStatus(sim, 'review', id, docsStatus('pending_human_input'))).pop()!;
      assert.equal(paused.json.task_id, undefined);
      assert.ok(!paused.text.includes(sim.getRun(id)!.pausedTaskId!));
    });
  });

  describe('human in the loop, live dialect', () => {
    const resume = (body: unknown, token?: string) => call(sim, 'review', '/resume', { body, token });

    async function pausedRun(): Promise<{ id: string; taskId: string; body: Answer }> {
      const id = await kickoff(sim, 'review', { topic: 'Zig' });
      const body = (await pollStatus(sim, 'review', id, (a) => sim.getRun(id)?.phase === 'paused' && a.json.state !== 'RUNNING')).pop()!;
      return { id, taskId: sim.getRun(id)!.pausedTaskId!, body };
    }

    it('shows PAUSED with last_executed_task.id, rejects snake_case with 422 and continues camelCase under a new id', async () => {
      sim.updateCrew('review', { pendingMs: 20_000 }); // 200 ms, to see the continuation's PENDING
      const { id, taskId, body } = await pausedRun();
      assert.equal(body.json.state, 'PAUSED');
      assert.equal(body.json.last_executed_task.id, taskId);
      assert.equal(body.json.last_executed_task.output, 'Polished text about Zig');
      assert.equal(body.json.result, null);

      const snake = await resume({ execution_id: id, task_id: taskId, human_feedback: 'ok', is_approve: true });
      assert.equal(snake.status, 422);
      assert.deepEqual(
        snake.json.detail.map((item: { loc: string[]; msg: string }) => [item.loc, item.msg]),
        [
          [['body', 'executionId'], 'Field required'],
          [['body', 'taskId'], 'Field required'],
        ],
      );
      assert.equal(sim.getRun(id)?.phase, 'paused');

      const camel = await resume({ executionId: id, taskId, humanFeedback: 'Looks good', isApprove: true });
      assert.equal(camel.status, 200);
      assert.deepEqual(Object.keys(camel.json), ['kickoff_id']);
      const newId = camel.json.kickoff_id as string;
      assert.match(newId, UUID);
      assert.notEqual(newId, id);

      assert.deepEqual((await call(sim, 'review', `/status/${id}`)).json, { state: 'NOT FOUND', status: 'Task not found or Invalid kickoff id' });
      const seen = await pollStatus(sim, 'review', newId, liveState('SUCCESS'));
      assert.equal(seen[0].json.state, 'PENDING');
      const done = seen[seen.length - 1].json;
      assert.equal(done.execution_origin, 'hitl-resume');
      assert.equal(done.progress.completed, 3);
      assert.equal(done.last_executed_task.kickoff_id, newId);
      assert.deepEqual(sim.getRun(newId)?.kickoffIds, [id, newId]);
      assert.equal(sim.getRun(id)?.kickoffId, newId);
      assert.deepEqual(
        sim.resumes.filter((record) => record.runId === id).map((record) => [record.style, record.status, record.newKickoffId]),
        [
          ['snake', 422, undefined],
          ['camel', 200, newId],
        ],
      );
    });

    it('retries on isApprove false: new id, revised output, paused again', async () => {
      const { id, taskId } = await pausedRun();
      const answer = await resume({ executionId: id, taskId, humanFeedback: 'More detail', isApprove: false });
      const newId = answer.json.kickoff_id as string;
      const paused = (await pollStatus(sim, 'review', newId, liveState('PAUSED'))).pop()!.json;
      assert.equal(paused.last_executed_task.output, 'Polished text about Zig\n\nRevised after feedback: More detail');
      assert.equal(paused.last_executed_task.id, taskId);
      assert.equal(sim.getRun(id)?.resumes[0].action, 'retry');
    });

    it('answers 400 when not waiting and 404 for an unknown execution or task', async () => {
      sim.updateCrew('review', { pendingMs: 20_000 });
      const id = await kickoff(sim, 'review', { topic: 'x' });
      const notWaiting = await resume({ executionId: id, taskId: 'whatever', humanFeedback: '', isApprove: true });
      assert.equal(notWaiting.status, 400);
      assert.deepEqual(notWaiting.json, { detail: 'Execution is not in pending human input state' });
      assert.equal((await resume({ executionId: 'nope', taskId: 'x', humanFeedback: '', isApprove: true })).status, 404);
      const { id: pausedId } = await pausedRun();
      // The live dialect wants the UUID: the task name is not enough.
      const byName = await resume({ executionId: pausedId, taskId: 'review_task', humanFeedback: '', isApprove: true });
      assert.equal(byName.status, 404);
      assert.deepEqual(byName.json, { detail: 'Task not found' });
      assert.equal((await call(sim, 'review', '/resume', { rawBody: '{' })).status, 500);
    });

    it('can show a waiting run as NOT FOUND and hide its task id', async () => {
      sim.updateCrew('review', { livePausedState: 'NOT FOUND' });
      const { id, body } = await pausedRun();
      assert.deepEqual(body.json, { state: 'NOT FOUND', status: 'Task not found or Invalid kickoff id' });
      assert.equal(sim.getRun(id)?.phase, 'paused');

      sim.updateCrew('review', { livePausedState: 'PAUSED', exposeTaskId: false });
      const hidden = await pausedRun();
      assert.equal(hidden.body.json.state, 'PAUSED');
      assert.equal(hidden.body.json.last_executed_task.id, undefined);
      assert.ok(!hidden.body.text.includes(hidden.taskId));
    });

    it('lets a narrower user token do everything but resume', async () => {
      sim.updateCrew('review', { userTokenCanResume: false });
      const { id, taskId } = await pausedRun();
      const body = { executionId: id, taskId, humanFeedback: '', isApprove: true };
      const denied = await resume(body, 'user-review');
      assert.equal(denied.status, 403);
      assert.equal(sim.getRun(id)?.phase, 'paused');
      assert.equal((await resume(body, 'org-review')).status, 200);
    });

    it('can accept an unknown execution like the live service, with a run that fails', async () => {
      sim.updateCrew('review', { liveResumeAcceptsUnknownExecution: true });
      const answer = await resume({ executionId: 'nope', taskId: 'x', humanFeedback: '', isApprove: true });
      assert.equal(answer.status, 200);
      const failed = (await pollStatus(sim, 'review', answer.json.kickoff_id, liveState('FAILED'))).pop()!.json;
      assert.equal(failed.status, "TypeError: 'NoneType' object is not subscriptable");
    });
  });

  describe('time scale', () => {
    it('scales every simulated duration and records the exact finish time', async () => {
      const id = await kickoff(sim, 'alpha');
      await pollStatus(sim, 'alpha', id, liveState('SUCCESS'));
      const run = sim.getRun(id)!;
      // (PENDING 2000 + 3 × 5000) × 0.01
      assert.ok(Math.abs(run.finishedAt! - run.createdAt - 170) < 1, `took ${run.finishedAt! - run.createdAt} ms`);
      assert.ok(run.finishedAt! <= Date.now());
      assert.ok(Math.abs(run.completedTasks[1].finishedAt - run.completedTasks[1].startedAt - 50) < 1);
    });

    it('rejects a negative time scale', async () => {
      await assert.rejects(startSimulator({ timeScale: -1 }), /timeScale/);
    });
  });

  describe('faults', () => {
    const only = (kind: ReadFaultKind, extra = {}) => sim.setFaults({ readFaultRate: 1, readFaultKinds: [kind], ...extra });

    it('500: plain-text Internal Server Error', async () => {
      only('500');
      const answer = await call(sim, 'alpha', '/inputs');
      assert.equal(answer.status, 500);
      assert.equal(answer.text, 'Internal Server Error');
    });

    it('502html: a gateway HTML page', async () => {
      only('502html');
      const answer = await call(sim, 'alpha', '/status/x');
      assert.equal(answer.status, 502);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(answer.text, /<title>502 Bad Gateway<\/title>/);
    });

    it('503 and 429 with Retry-After', async () => {
      only('503', { retryAfterSeconds: 7 });
      const unavailable = await call(sim, 'alpha', '/inputs');
      assert.equal(unavailable.status, 503);
      assert.equal(unavailable.headers.get('retry-after'), '7');
      only('429');
      const limited = await call(sim, 'alpha', '/inputs');
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '1');
    });

    it('reset: the connection drops without an answer', async () => {
      only('reset');
      await assert.rejects(call(sim, 'alpha', '/inputs'));
      await sleep(20);
      assert.deepEqual(
        sim.requestLog.entries.slice(-1).map((entry) => [entry.status, entry.fault]),
        [[0, 'reset']],
      );
    });

    it('malformed: 200 with a body that is not JSON', async () => {
      only('malformed');
      const answer = await call(sim, 'alpha', '/status/x');
      assert.equal(answer.status, 200);
      assert.equal(answer.json, undefined);
      assert.throws(() => JSON.parse(answer.text));
    });

    it('truncated: the body stops short of Content-Length', async () => {
      only('truncated');
      const response = await fetch(`${sim.crewUrl('alpha')}/inputs`, { headers: { Authorization: 'Bearer org-alpha' } });
      assert.equal(response.status, 200);
      assert.ok(Number(response.headers.get('content-length')) > 0);
      await assert.rejects(response.text());
    });

    it('stall: the answer is held for stallMs, then sent', async () => {
      only('stall', { stallMs: 250 });
      const started = Date.now();
      const answer = await call(sim, 'alpha', '/inputs');
      assert.ok(Date.now() - started >= 240, `answered after ${Date.now() - started} ms`);
      assert.deepEqual(answer.json, { inputs: ['topic', 'audience'] });
    });

    it('applies read faults to GET /inputs and GET /status only', async () => {
      sim.setFaults({ readFaultRate: 1, readFaultKinds: ['500'] });
      assert.equal((await call(sim, 'alpha', '/kickoff', { body: { inputs: { topic: 'a', audience: 'b' } } })).status, 200);
      assert.equal((await call(sim, 'alpha', '/resume', { body: {} })).status, 422);
      assert.equal((await call(sim, 'alpha', '/status/x')).status, 500);
    });

    it('adds latency to every request and a cold start to the first after idling', async () => {
      sim.setFaults({ latencyMs: 60 });
      const started = Date.now();
      await call(sim, 'alpha', '/kickoff', { body: {} });
      assert.ok(Date.now() - started >= 55);

      // Idle after 1 s: long enough that a loaded machine never idles the crew between two calls.
      const cold = await startSimulator({ crews: testCrews(), faults: { coldStartMs: 200, idleAfterMs: 1_000 } });
      try {
        const begin = Date.now();
        await call(cold, 'alpha', '/inputs');
        assert.ok(Date.now() - begin >= 190, 'the cold start is waited for');
        await call(cold, 'alpha', '/inputs');
        await call(cold, 'flow', '/inputs'); // warming one crew leaves the others cold
        await sleep(1_050);
        await call(cold, 'alpha', '/inputs');
        const coldness = cold.requestLog.entries.map((e) => [e.crewId, e.coldStart === true]);
        assert.deepEqual(coldness, [['alpha', true], ['alpha', false], ['flow', true], ['alpha', true]], 'cold first, warm next, cold again after idling');
      } finally {
        await cold.close();
      }
    });

    it('picks the same faults for the same seed and request order', async () => {
      const sequence = async (seed: number): Promise<number[]> => {
        const seeded = await startSimulator({ crews: testCrews(), seed, faults: { readFaultRate: 0.5, readFaultKinds: ['500', '503', '429'] } });
        try {
          const statuses: number[] = [];
          for (let i = 0; i < 30; i++) {
            statuses.push((await call(seeded, 'alpha', '/inputs')).status);
          }
          return statuses;
        } finally {
          await seeded.close();
        }
      };
      const first = await sequence(42);
      assert.deepEqual(await sequence(42), first);
      assert.notDeepEqual(await sequence(43), first);
      assert.ok(first.includes(200) && first.some((status) => status !== 200), first.join(','));
    });

    it('merges per-crew faults over the simulator\'s', async () => {
      sim.updateCrew('review', { faults: { readFaultRate: 1, readFaultKinds: ['503'] } });
      assert.equal((await call(sim, 'review', '/inputs')).status, 503);
      assert.equal((await call(sim, 'alpha', '/inputs')).status, 200);
    });

    it('rate-limits a crew with 429 and Retry-After', async () => {
      sim.updateCrew('alpha', { rateLimitPerSecond: 3 });
      const answers = await Promise.all(Array.from({ length: 6 }, () => call(sim, 'alpha', '/inputs')));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
      const limited = answers.find((a) => a.status === 429)!;
      assert.equal(limited.headers.get('retry-after'), '1');
      assert.deepEqual(limited.json, { detail: 'Too Many Requests' });
      assert.equal((await call(sim, 'flow', '/inputs')).status, 200, 'other crews are not limited');
      await sleep(1050);
      assert.equal((await call(sim, 'alpha', '/inputs')).status, 200);
      assert.equal(sim.requestLog.entries.filter((entry) => entry.fault === 'rateLimit').length, 3);
    });

    it('redirects every request of a crew to another origin', async () => {
      const elsewhere = await startSimulator({ crews: testCrews() });
      try {
        sim.updateCrew('alpha', { redirectTo: elsewhere.crewUrl('alpha') });
        const response = await fetch(`${sim.crewUrl('alpha')}/inputs`, { headers: { Authorization: 'Bearer org-alpha' }, redirect: 'manual' });
        assert.equal(response.status, 302);
        assert.equal(response.headers.get('location'), `${elsewhere.origin}/alpha/inputs`);
        // Following it, the other origin must never see the token.
        const followed = await fetch(`${sim.crewUrl('alpha')}/status/x`, { headers: { Authorization: 'Bearer org-alpha' } });
        assert.equal(followed.status, 401);
        assert.deepEqual(
          elsewhere.requestLog.entries.map((entry) => [entry.endpoint, entry.hasAuthorization]),
          [['status', false]],
        );
      } finally {
        await elsewhere.close();
      }
    });
  });

  describe('request log', () => {
    it('records endpoint, method, status and auth presence, counts per endpoint, and never stores tokens', async () => {
      sim.requestLog.clear();
      await call(sim, 'alpha', '/inputs');
      await call(sim, 'alpha', '/inputs', { token: null });
      const id = await kickoff(sim, 'alpha');
      await call(sim, 'alpha', `/status/${id}`, { token: 'user-alpha' });
      await call(sim, 'alpha', '/resume', { body: {} });
      await call(sim, 'alpha', '/elsewhere');
      await call(sim, 'flow', '/inputs', { token: 'bad-token-value' });
      await fetch(`${sim.origin}/`);
      await sleep(20);

      assert.deepEqual(sim.requestLog.counts('alpha'), { inputs: 2, kickoff: 1, status: 1, resume: 1, stop: 0, other: 1 });
      assert.deepEqual(sim.requestLog.counts(), { inputs: 3, kickoff: 1, status: 1, resume: 1, stop: 0, other: 2 });
      assert.deepEqual(
        sim.requestLog.entries.map((entry) => [entry.crewId, entry.endpoint, entry.method, entry.status, entry.hasAuthorization, entry.tokenKind]),
        [
          ['alpha', 'inputs', 'GET', 200, true, 'org'],
          ['alpha', 'inputs', 'GET', 401, false, 'none'],
          ['alpha', 'kickoff', 'POST', 200, true, 'org'],
          ['alpha', 'status', 'GET', 200, true, 'user'],
          ['alpha', 'resume', 'POST', 422, true, 'org'],
          ['alpha', 'other', 'GET', 404, true, 'org'],
          ['flow', 'inputs', 'GET', 401, true, 'invalid'],
          [undefined, 'other', 'GET', 404, false, 'none'],
        ],
      );
      const everything = JSON.stringify(sim.requestLog.entries);
      for (const secret of ['org-alpha', 'user-alpha', 'bad-token-value']) {
        assert.ok(!everything.includes(secret), secret);
      }
      assert.ok(sim.requestLog.entries.every((entry) => entry.time > 0 && entry.durationMs >= 0));

      sim.requestLog.clear();
      assert.deepEqual(sim.requestLog.counts(), { inputs: 0, kickoff: 0, status: 0, resume: 0, stop: 0, other: 0 });
    });
  });

  describe('runtime changes', () => {
    it('updateCrew changes tokens, dialect and scenario without a restart', async () => {
      const updated = sim.updateCrew('alpha', { orgToken: 'rotated' });
      assert.equal(updated.orgToken, 'rotated');
      assert.equal((await call(sim, 'alpha', '/inputs')).status, 401);
      assert.equal((await call(sim, 'alpha', '/inputs', { token: 'rotated' })).status, 200);
      sim.updateCrew('alpha', { orgToken: 'org-alpha', dialect: 'docs' });
      assert.equal((await call(sim, 'alpha', '/status/x')).status, 404);
      sim.updateCrew('alpha', { dialect: 'live', scenario: 'fail' });
      const id = await kickoff(sim, 'alpha');
      sim.updateCrew('alpha', { scenario: 'ok' });
      await pollStatus(sim, 'alpha', id, liveState('FAILED'));
      assert.throws(() => sim.updateCrew('nope', {}), /No crew/);
    });
  });

  describe('close()', () => {
    it('ends stalled requests and keep-alive connections at once', async () => {
      const closing = await startSimulator({ crews: testCrews() });
      await call(closing, 'alpha', '/inputs'); // leaves a keep-alive connection open
      closing.setFaults({ readFaultRate: 1, readFaultKinds: ['stall'], stallMs: 60_000 });
      const stalled = call(closing, 'alpha', '/inputs');
      await sleep(50);
      await closing.close();
      // Ended by close: its stall (60 s) is three times the test's timeout.
      await assert.rejects(stalled);
      await assert.rejects(fetch(`${closing.crewUrl('alpha')}/inputs`));
      await closing.close(); // a second close is harmless
    });
  });
});
