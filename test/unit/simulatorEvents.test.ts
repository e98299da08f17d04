// The event log a simulated live status carries (status-events.md; src/simulator/eventLog.ts). A run's state is
// a pure function of time, so these tests read each body at moments they choose: no clock, no waiting. The runs
// start through the kickoff endpoint and are read through statusNow, so every crew knob is resolved as a
// request would resolve it.

import * as assert from 'node:assert/strict';
import { RateLimiter } from '../../src/simulator/faults';
import { kickoff, statusNow } from '../../src/simulator/runEndpoints';
import type { SimRun } from '../../src/simulator/runEngine';
import { startSimulator, type CrewConfig, type SimulatorOptions } from '../../src/simulator/server';
import type { CrewState, SimWorld } from '../../src/simulator/world';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** At time scale 1: PENDING 1 s, then tasks of 4, 6 and 5 s. */
function crewConfig(patch: Partial<CrewConfig> = {}): CrewConfig {
  return {
    id: 'alpha',
    name: 'Alpha Crew',
    kind: 'crew',
    inputs: ['topic'],
    pendingMs: 1000,
    failWhenInputContains: '#fail',
    slowToolWhenInputContains: '#slowtool',
    tasks: [
      { name: 'research_task', agent: 'Researcher', durationMs: 4000, output: 'Notes on {topic}' },
      { name: 'analysis_task', agent: 'Analyst', durationMs: 6000, output: { json: { topic: '{topic}' } } },
      { name: 'writing_task', agent: 'Writer', durationMs: 5000, output: 'Report on {topic}' },
    ],
    ...patch,
  };
}

const RUN_MS = 1000 + 4000 + 6000 + 5000;

function flowConfig(patch: Partial<CrewConfig> = {}): CrewConfig {
  return crewConfig({
    id: 'ideas',
    name: 'Idea Flow',
    kind: 'flow',
    inputs: ['id', 'topic'],
    tasks: [
      { name: 'generate_ideas', agent: 'Generator', durationMs: 3000, output: 'Ideas on {topic}', humanInput: true },
      { name: 'write_pitch', agent: 'Pitcher', durationMs: 3000, output: 'Pitch on {topic}' },
    ],
    ...patch,
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire bodies are probed field by field
type Body = any;
interface WireEvent {
  type: string;
  timestamp: string;
  event_id: string;
  parent_event_id: string | null;
  started_event_id?: string;
  emission_sequence: number;
  task_id: string | null;
  task_name: string | null;
  agent_id: string | null;
  agent_role: string | null;
  source_type: string;
  [field: string]: unknown;
}

/** A simulator's state without its HTTP server: runs start and answer at the moments a test names. */
class Bench {
  readonly world: SimWorld;

  constructor(crews: CrewConfig[], options: SimulatorOptions = {}, timeScale = 1) {
    const states = new Map<string, CrewState>();
    for (const config of crews) {
      states.set(config.id, { config: { ...config, orgToken: 'org', userToken: 'user' }, limiter: new RateLimiter() });
    }
    this.world = { crews: states, runs: new Map(), resumes: [], options, timeScale, defaultDialect: options.dialect ?? 'live' };
  }

  crew(id: string): CrewState {
    return this.world.crews.get(id)!;
  }

  start(crewId: string, inputs: Record<string, string> = { topic: 'Rust' }): SimRun {
    const reply = kickoff(this.world, this.crew(crewId), JSON.stringify({ inputs }));
    assert.ok(reply.status === 200 || reply.status === 202, JSON.stringify(reply.body));
    const id = (reply.body as { kickoff_id?: string; id?: string }).kickoff_id ?? (reply.body as { id: string }).id;
    return this.world.runs.get(id)!;
  }

  /** The status body `at` ms after the kickoff. */
  status(run: SimRun, at: number): Body {
    const now = run.createdAt + at;
    run.advance(now);
    return statusNow(this.world, this.crew(run.crewId), run, now).body;
  }
}

const typesOf = (events: WireEvent[]) => events.map((event) => event.type);
const ENDS: Record<string, string[]> = {
  crew_kickoff_started: ['crew_kickoff_completed', 'crew_kickoff_failed'],
  task_started: ['task_completed', 'task_failed'],
  agent_execution_started: ['agent_execution_completed', 'agent_execution_error'],
  llm_call_started: ['llm_call_completed', 'llm_call_failed'],
  tool_usage_started: ['tool_usage_finished', 'tool_usage_error'],
  flow_started: ['flow_finished'],
  method_execution_started: ['method_execution_finished', 'method_execution_failed'],
};
const isStart = (type: string) => type in ENDS;

/**
 * The structure every log must have: unique UUIDs, sequence 1..n in time order, each end naming an earlier start of
 * its own family, each parent an earlier start that is still open when the child happens. Returns start id → end.
 */
function checkStructure(events: WireEvent[]): Map<string, WireEvent> {
  const byId = new Map<string, WireEvent>();
  const endOf = new Map<string, WireEvent>();
  events.forEach((event, i) => {
    assert.match(event.event_id, UUID);
    assert.match(event.timestamp, ISO_MS);
    assert.ok(!byId.has(event.event_id), `duplicate id ${event.event_id}`);
    assert.equal(event.emission_sequence, events[0].emission_sequence + i, 'emission_sequence counts up by one');
    if (i > 0) {
      assert.ok(event.timestamp >= events[i - 1].timestamp, `${event.type} is not earlier than the event before it`);
      assert.equal(event['previous_event_id'], events[i - 1].event_id);
    }
    if (event.started_event_id !== undefined) {
      const start = byId.get(event.started_event_id);
      assert.ok(start, `${event.type} #${event.emission_sequence} names a start that came before it`);
      assert.ok(ENDS[start.type]?.includes(event.type), `${event.type} ends a ${start.type}`);
      assert.ok(!endOf.has(start.event_id), `${start.type} ends once`);
      endOf.set(start.event_id, event);
    } else {
      assert.ok(!Object.values(ENDS).flat().includes(event.type), `${event.type} names its start`);
    }
    if (event.parent_event_id !== null) {
      const parent = byId.get(event.parent_event_id);
      assert.ok(parent && isStart(parent.type), `${event.type}'s parent is an earlier start`);
      assert.ok(!endOf.has(parent.event_id), `${event.type} comes before its parent ${parent.type} ends`);
      if (parent.task_id !== null) {
        assert.equal(event.task_id, parent.task_id, `${event.type} is in its parent's task`);
      }
    }
    byId.set(event.event_id, event);
  });
  return endOf;
}

describe('Simulator: the event log of a live status', () => {
  describe('a crew run', () => {
    const bench = new Bench([crewConfig()]);

    it('has no events while PENDING, then a log that only grows as time goes on, never ahead of it', () => {
      const run = bench.start('alpha');
      const pending = bench.status(run, 500);
      assert.equal(pending.state, 'PENDING');
      assert.deepEqual([pending.events, pending.events_count, pending.events_by_type, pending.last_event], [[], 0, {}, null]);

      let before: WireEvent[] = [];
      const counts: number[] = [];
      for (let at = 1000; at <= RUN_MS + 1000; at += 250) {
        const body = bench.status(run, at);
        const events: WireEvent[] = body.events;
        assert.deepEqual(events.slice(0, before.length), before, `at ${at} ms the log starts with what it held before`);
        assert.ok(events.every((event) => Date.parse(event.timestamp) <= run.createdAt + at), 'no event from the future');
        assert.equal(body.events_count, events.length);
        assert.deepEqual(body.last_event, events[events.length - 1] ?? null);
        counts.push(events.length);
        before = events;
      }
      assert.ok(new Set(counts).size > 10, `the log grew step by step: ${counts.join(' ')}`);
      assert.equal(before[0].type, 'crew_kickoff_started');
      assert.equal(before[before.length - 1].type, 'crew_kickoff_completed');
    });

    it('while a task runs, its scopes are open and the progress names it', () => {
      const run = bench.start('alpha');
      const body = bench.status(run, 1000 + 4000 + 3000);
      assert.equal(body.state, 'RUNNING');
      const events: WireEvent[] = body.events;
      const endOf = checkStructure(events);
      const open = events.filter((event) => isStart(event.type) && !endOf.has(event.event_id));
      assert.deepEqual(
        open.filter((event) => event.type !== 'llm_call_started' && event.type !== 'tool_usage_started').map((event) => [event.type, event.task_name]),
        [['crew_kickoff_started', null], ['task_started', 'analysis_task'], ['agent_execution_started', 'analysis_task']],
      );
      assert.deepEqual(
        [body.progress.unit, body.progress.completed, body.progress.total, body.progress.remaining, body.progress.current, body.progress.current_agent],
        ['task', 1, 3, 2, 'analysis_task', 'Analyst'],
      );
      assert.equal(body.progress.updated_at, events[events.length - 1].timestamp, 'a model or tool call updates the progress too');
      assert.equal(body.progress.duration_seconds, 7);
    });

    it('pairs every end with an earlier start and nests children inside open parents; a finished run leaves nothing open', () => {
      const run = bench.start('alpha');
      const body = bench.status(run, RUN_MS);
      assert.equal(body.state, 'SUCCESS');
      const events: WireEvent[] = body.events;
      const endOf = checkStructure(events);
      assert.deepEqual(events.filter((event) => isStart(event.type) && !endOf.has(event.event_id)), []);
      const byType = (type: string) => events.filter((event) => event.type === type);
      assert.deepEqual(byType('task_started').map((event) => event.task_name), ['research_task', 'analysis_task', 'writing_task']);
      assert.deepEqual(byType('task_started').map((event) => event.task_id), [...run.taskIds], 'the task ids /resume takes');
      for (const event of events) {
        assert.deepEqual(Object.keys(event).filter((key) => /prompt|messages|output|response/.test(key)), [], `${event.type} carries no prompt or output`);
        assert.equal(event.source_type, event.type.startsWith('crew_') ? 'crew' : event.type.startsWith('task_') ? 'task' : 'agent');
      }
      for (const tool of byType('tool_usage_started')) {
        assert.equal(typeof tool['tool_name'], 'string');
        assert.equal(typeof tool['tool_args'], 'object');
        const end = endOf.get(tool.event_id)!;
        assert.deepEqual([end['started_at'], end['finished_at'], typeof end['from_cache']], [tool.timestamp, end.timestamp, 'boolean']);
      }
      for (const call of byType('llm_call_started')) {
        const end = endOf.get(call.event_id)!;
        assert.deepEqual([end['model'], end['call_id'], end['call_type']], [call['model'], call['call_id'], 'llm_call']);
        assert.match(String(call['call_id']), UUID);
        assert.ok(['stop', 'tool_calls'].includes(String(end['finish_reason'])));
      }
      assert.equal(body.triggered_by.type, 'user');
      assert.match(body.triggered_by.id, UUID);
      assert.deepEqual([body.execution_origin, body.source], ['api', 'memory']);
    });

    it('sums the usage of its model calls so far into usage_metrics', () => {
      const run = bench.start('alpha');
      for (const at of [1000, 3000, 7000, 12_000, RUN_MS]) {
        const body = bench.status(run, at);
        const completions = (body.events as WireEvent[]).filter((event) => event.type === 'llm_call_completed');
        const sum = (key: string) => completions.reduce((total, event) => total + (event['usage'] as Record<string, number>)[key], 0);
        for (const usage of completions.map((event) => event['usage'] as Record<string, number>)) {
          assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
          assert.ok(usage.cached_prompt_tokens <= usage.prompt_tokens);
        }
        assert.deepEqual(body.usage_metrics, {
          total_tokens: sum('total_tokens'),
          prompt_tokens: sum('prompt_tokens'),
          cached_prompt_tokens: sum('cached_prompt_tokens'),
          completion_tokens: sum('completion_tokens'),
          successful_requests: completions.length,
        }, `at ${at} ms`);
      }
      assert.ok(bench.status(run, RUN_MS).usage_metrics.total_tokens > 0);
    });

    it('is the same log at every poll of the same moment, and the same shape for the same crew and inputs', () => {
      const run = bench.start('alpha');
      assert.deepEqual(bench.status(run, 9000), bench.status(run, 9000));
      const other = bench.start('alpha');
      const mine: WireEvent[] = bench.status(run, RUN_MS).events;
      const theirs: WireEvent[] = bench.status(other, RUN_MS).events;
      assert.deepEqual(typesOf(theirs), typesOf(mine));
      assert.deepEqual(theirs.map((event) => event['usage'] ?? null), mine.map((event) => event['usage'] ?? null));
      assert.notEqual(theirs[0].event_id, mine[0].event_id, 'ids are the run’s own');
    });

    it('#fail: a tool call raises, then the agent, the task and the crew fail with the same words', () => {
      const run = bench.start('alpha', { topic: 'Rust #fail' });
      const body = bench.status(run, 5000);
      assert.equal(body.state, 'FAILED');
      const events: WireEvent[] = body.events;
      checkStructure(events);
      assert.deepEqual(typesOf(events).slice(-5), ['tool_usage_started', 'tool_usage_error', 'agent_execution_error', 'task_failed', 'crew_kickoff_failed']);
      for (const event of events.slice(-4)) {
        assert.equal(event['error'], body.status, `${event.type} says the run's exception`);
      }
      assert.equal(events[events.length - 2].task_name, 'research_task');
      assert.equal(bench.status(run, RUN_MS).events_count, events.length, 'nothing after the failure');
    });

    it('failAtTask:1: the first task completes, the second fails in a tool call', () => {
      const failing = new Bench([crewConfig({ scenario: 'failAtTask:1' })]);
      const run = failing.start('alpha');
      const events: WireEvent[] = failing.status(run, RUN_MS).events;
      checkStructure(events);
      assert.deepEqual(events.filter((event) => event.type.startsWith('task_')).map((event) => [event.type, event.task_name]), [
        ['task_started', 'research_task'],
        ['task_completed', 'research_task'],
        ['task_started', 'analysis_task'],
        ['task_failed', 'analysis_task'],
      ]);
      assert.equal(events.filter((event) => event.type === 'tool_usage_error').length, 1);
    });

    it('#slowtool: one tool call of the first task takes far longer than any other, and the run that much longer', () => {
      const run = bench.start('alpha', { topic: 'Rust #slowtool' });
      const slowRunMs = RUN_MS + 2 * 4000;
      assert.equal(bench.status(run, RUN_MS).state, 'RUNNING');
      const body = bench.status(run, slowRunMs);
      assert.equal(body.state, 'SUCCESS');
      const tools = (body.events as WireEvent[])
        .filter((event) => event.type === 'tool_usage_finished')
        .map((event) => ({ task: event.task_name, ms: Date.parse(String(event['finished_at'])) - Date.parse(String(event['started_at'])) }))
        .sort((a, b) => b.ms - a.ms);
      assert.ok(tools.length >= 2, JSON.stringify(tools));
      assert.equal(tools[0].task, 'research_task');
      assert.ok(tools[0].ms >= 8000, `the slow call took ${tools[0].ms} ms`);
      assert.ok(tools[0].ms > 5 * tools[1].ms, `the slow call took ${tools[0].ms} ms, the next slowest ${tools[1].ms} ms`);
    });

    it('a stopped run keeps the log up to the stop and nothing after it', () => {
      const run = bench.start('alpha');
      const stopAt = run.createdAt + 7000;
      assert.equal(run.stop(stopAt), true);
      const body = bench.status(run, RUN_MS + 5000);
      assert.equal(body.state, 'REVOKED');
      const events: WireEvent[] = body.events;
      checkStructure(events);
      assert.ok(events.every((event) => Date.parse(event.timestamp) <= stopAt));
      assert.ok(!typesOf(events).includes('crew_kickoff_completed'));
      assert.deepEqual(events.map((event) => event.event_id), (bench.status(run, RUN_MS + 5000).events as WireEvent[]).map((event) => event.event_id));
    });

    it('the hang scenario leaves the last task’s last model call open', () => {
      const hanging = new Bench([crewConfig({ scenario: 'hang' })]);
      const run = hanging.start('alpha');
      const events: WireEvent[] = hanging.status(run, RUN_MS * 10).events;
      const endOf = checkStructure(events);
      const last = events[events.length - 1];
      assert.deepEqual([last.type, last.task_name, endOf.has(last.event_id)], ['llm_call_started', 'writing_task', false]);
    });

    it('a crew that hides the task id /resume takes hides it in its events too', () => {
      const hiding = new Bench([crewConfig({ exposeTaskId: false })]);
      const run = hiding.start('alpha');
      const body = hiding.status(run, RUN_MS);
      assert.ok(body.events.length > 0);
      assert.ok((body.events as WireEvent[]).every((event) => event.task_id === null));
      assert.ok(run.taskIds.every((id) => !JSON.stringify(body).includes(id)));
    });
  });

  describe('a flow run', () => {
    it('has flow and method events, pauses with flow_paused and method_execution_paused, and its method ends when a human answers', () => {
      const bench = new Bench([flowConfig()]);
      const run = bench.start('ideas', { topic: 'tools' });
      const paused = bench.status(run, 5000);
      assert.equal(paused.state, 'PAUSED');
      assert.deepEqual(typesOf(paused.events).slice(-3), ['agent_execution_completed', 'method_execution_paused', 'flow_paused']);
      assert.equal(paused.progress.total, null);

      run.retry(run.createdAt + 6000, 'more ideas', false); // asks for changes: the method runs again, then pauses again
      run.advance(run.createdAt + 9000);
      run.approve(run.createdAt + 10_000, false);
      const done = bench.status(run, 20_000);
      assert.equal(done.state, 'SUCCESS');
      const events: WireEvent[] = done.events;
      const endOf = checkStructure(events);
      assert.deepEqual(events.filter((event) => isStart(event.type) && !endOf.has(event.event_id)), []);
      assert.deepEqual(
        events.filter((event) => event.type.startsWith('method_') || event.type.startsWith('flow_')).map((event) => [event.type, event['method_name'] ?? null]),
        [
          ['flow_started', null],
          ['method_execution_started', 'generate_ideas'],
          ['method_execution_paused', 'generate_ideas'],
          ['flow_paused', null],
          ['method_execution_finished', 'generate_ideas'],
          ['method_execution_started', 'generate_ideas'],
          ['method_execution_paused', 'generate_ideas'],
          ['flow_paused', null],
          ['method_execution_finished', 'generate_ideas'],
          ['method_execution_started', 'write_pitch'],
          ['method_execution_finished', 'write_pitch'],
          ['flow_finished', null],
        ],
      );
      assert.ok(events.every((event) => event.type.startsWith('flow_') || event.type.startsWith('method_') ? event['flow_name'] === 'Idea Flow' : true));
      assert.ok(typesOf(events).includes('llm_call_completed'));
    });

    it('a failing flow ends in method_execution_failed after the tool error', () => {
      const bench = new Bench([flowConfig({ scenario: 'fail' })]);
      const run = bench.start('ideas');
      const events: WireEvent[] = bench.status(run, 10_000).events;
      checkStructure(events);
      assert.deepEqual(typesOf(events).slice(-3), ['tool_usage_error', 'agent_execution_error', 'method_execution_failed']);
    });
  });

  describe('what a crew sets', () => {
    it('a window: only the newest N events, while events_count and events_by_type count them all', () => {
      const bench = new Bench([crewConfig()]);
      const run = bench.start('alpha');
      const all: WireEvent[] = bench.status(run, RUN_MS).events;
      bench.crew('alpha').config.statusMaxEvents = 5; // a reply knob: the next reply follows it
      const narrow = bench.status(run, RUN_MS);
      assert.deepEqual(narrow.events, all.slice(-5));
      assert.equal(narrow.events_count, all.length);
      assert.equal(narrow.events[0].emission_sequence, all.length - 4);
      assert.equal(Object.values(narrow.events_by_type as Record<string, number>).reduce((a, b) => a + b, 0), all.length);
      assert.equal(narrow.events_by_type.task_started, 3);
      assert.deepEqual(narrow.last_event, all[all.length - 1]);
      bench.crew('alpha').config.statusMaxEvents = 0;
      const none = bench.status(run, RUN_MS);
      assert.deepEqual([none.events, none.events_count, none.last_event.type], [[], all.length, 'crew_kickoff_completed']);
    });

    it('a flush lag: a reply lists an event only that long after it happened (in simulated ms)', () => {
      const bench = new Bench([crewConfig({ statusEventFlushMs: 4000 })], {}, 0.5);
      const run = bench.start('alpha');
      const lagMs = 2000; // 4000 simulated ms at time scale 0.5
      const runMs = RUN_MS * 0.5;
      const done = bench.status(run, runMs);
      assert.equal(done.state, 'SUCCESS');
      assert.ok(done.events_count > 0);
      assert.ok((done.events as WireEvent[]).every((event) => Date.parse(event.timestamp) <= run.createdAt + runMs - lagMs));
      assert.ok(!typesOf(done.events).includes('crew_kickoff_completed'), 'the end is not flushed yet');
      assert.ok(done.usage_metrics.successful_requests > done.events_by_type.llm_call_completed, 'usage counts every call made');
      const flushed = bench.status(run, runMs + lagMs);
      assert.equal(flushed.last_event.type, 'crew_kickoff_completed');
      assert.ok(flushed.events_count > done.events_count);
      assert.deepEqual(bench.status(run, 0.5 * 1000 + lagMs - 1).events, [], 'not even the start before the lag');
    });

    it('the old runtime (crewai <= 1.15.21): event and progress fields null, the rest as before', () => {
      const bench = new Bench([crewConfig({ oldRuntime: true })]);
      const run = bench.start('alpha');
      for (const at of [7000, RUN_MS]) {
        const body = bench.status(run, at);
        assert.deepEqual([body.events, body.events_count, body.events_by_type, body.last_event, body.progress], [null, null, null, null, null], `at ${at} ms`);
        assert.ok(['RUNNING', 'SUCCESS'].includes(body.state));
        assert.ok(body.last_executed_task && body.usage_metrics.total_tokens > 0);
      }
    });

    it('the log switched off: event fields null, progress kept; a simulator-wide setting gives way to a crew’s own', () => {
      const bench = new Bench([crewConfig(), crewConfig({ id: 'own', oldRuntime: false, statusEvents: true })], { statusEvents: false, oldRuntime: true });
      const off = bench.status(bench.start('alpha'), 7000);
      assert.deepEqual([off.events, off.events_count, off.progress], [null, null, null], 'the simulator-wide old runtime');
      const own = bench.status(bench.start('own'), 7000);
      assert.ok(own.events.length > 0 && own.progress.current === 'analysis_task');

      const logOff = new Bench([crewConfig({ statusEvents: false })]);
      const body = logOff.status(logOff.start('alpha'), 7000);
      assert.deepEqual([body.events, body.events_count, body.events_by_type, body.last_event], [null, null, null, null]);
      assert.equal(body.progress.current, 'analysis_task');
    });

    it('the docs and self-hosted dialects carry no event log', () => {
      for (const dialect of ['docs', 'selfhosted'] as const) {
        const bench = new Bench([crewConfig({ dialect })]);
        const body = bench.status(bench.start('alpha'), RUN_MS);
        assert.ok(!['events', 'events_count', 'events_by_type', 'last_event', 'triggered_by', 'source'].some((key) => key in body), `${dialect}: ${Object.keys(body).join(', ')}`);
      }
    });
  });

  describe('over HTTP', () => {
    it('serves the log as JSON, and a crew turned into an old runtime answers null fields from its next reply', async () => {
      // Time scale 0: a run has ended by its first poll, so nothing here waits.
      const sim = await startSimulator({ timeScale: 0, crews: [{ ...crewConfig(), orgToken: 'org-alpha' }] });
      try {
        const headers = { Authorization: 'Bearer org-alpha', 'Content-Type': 'application/json' };
        const started = await fetch(`${sim.crewUrl('alpha')}/kickoff`, { method: 'POST', headers, body: JSON.stringify({ inputs: { topic: 'HTTP' } }) });
        const { kickoff_id: id } = (await started.json()) as { kickoff_id: string };
        const read = async (): Promise<Body> => (await fetch(`${sim.crewUrl('alpha')}/status/${id}`, { headers })).json();
        const body = await read();
        assert.equal(body.state, 'SUCCESS');
        checkStructure(body.events);
        assert.deepEqual([body.events[0].type, body.last_event.type, body.events_count], ['crew_kickoff_started', 'crew_kickoff_completed', body.events.length]);
        sim.updateCrew('alpha', { oldRuntime: true });
        const old = await read();
        assert.deepEqual([old.state, old.events, old.events_count, old.progress], ['SUCCESS', null, null, null]);
      } finally {
        await sim.close();
      }
    });
  });
});
