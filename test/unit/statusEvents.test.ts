import * as assert from 'node:assert/strict';
import { normaliseStatus } from '../../src/api/normalize';
import { EVENT_LIMITS, readEvent, readEventLog } from '../../src/api/statusEvents';
import { readStatusBody } from '../../src/api/statusBody';

describe('The event log of a status (status-events.md)', () => {
  const started = {
    type: 'tool_usage_started',
    timestamp: '2026-10-01T10:00:01.250Z',
    event_id: 'e-7',
    parent_event_id: 'e-3',
    emission_sequence: 7,
    task_id: 't-1',
    task_name: 'research',
    agent_id: 'a-1',
    agent_role: 'Researcher',
    tool_name: 'search',
    tool_args: { q: 'llamas' },
    source_type: 'agent',
  };

  it('reads every field it knows, and keeps the rest clipped in extra', () => {
    const event = readEvent({ ...started, shiny_new_field: 'x'.repeat(1000) });
    assert.deepEqual(
      { ...event, extra: undefined },
      {
        key: 'id:e-7',
        type: 'tool_usage_started',
        at: Date.parse('2026-10-01T10:00:01.250Z'),
        seq: 7,
        id: 'e-7',
        parentId: 'e-3',
        taskId: 't-1',
        taskName: 'research',
        agentId: 'a-1',
        agentRole: 'Researcher',
        toolName: 'search',
        toolArgs: '{"q":"llamas"}',
        extra: undefined,
      },
    );
    assert.ok(event?.extra?.['shiny_new_field']?.startsWith('xxx'));
    assert.ok(event!.extra!['shiny_new_field'].length < 400, 'clipped');
  });

  it('reads usage, ends and times given as seconds; an entry without an id is keyed by its content', () => {
    const done = readEvent({ type: 'llm_call_completed', timestamp: 1_790_000_000.5, started_event_id: 'e-1', usage: { prompt_tokens: 10, completion_tokens: '5', total_tokens: 15 } });
    assert.equal(done?.at, 1_790_000_000_500);
    assert.equal(done?.startedId, 'e-1');
    assert.deepEqual(done?.usage, { promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    assert.match(done!.key, /^h:/);
    assert.equal(readEvent({ ...done, key: undefined })?.key === readEvent({ type: 'x' })?.key, false);
    assert.equal(readEvent({ type: 'memory_saved', a: 1 })?.key, readEvent({ type: 'memory_saved', a: 1 })?.key, 'the same summary, the same key');
    assert.notEqual(readEvent({ type: 'memory_saved', a: 1 })?.key, readEvent({ type: 'memory_saved', a: 2 })?.key);
  });

  it('strips control and bidi characters from names; an entry that is no object is skipped', () => {
    const event = readEvent({ type: 'task_started', task_name: 'a\u202eb\u0007c\nd' });
    assert.equal(event?.taskName, 'abc d');
    assert.equal(readEvent('task_started'), undefined);
    assert.equal(readEvent(null), undefined);
  });

  it('a status without event fields has no log; null fields (an older runtime) are a log that is not present', () => {
    assert.equal(normaliseStatus({ state: 'RUNNING' }).eventLog, undefined);
    const old = normaliseStatus({ state: 'RUNNING', events: null, events_count: null, progress: null, source: 'application' }).eventLog;
    assert.equal(old?.present, false);
    assert.deepEqual(old?.events, []);
    assert.equal(old?.source, 'application');
  });

  it('reads the counts, totals and origin of a status', () => {
    const log = normaliseStatus({
      state: 'RUNNING',
      events: [started, { type: 'tool_usage_finished', started_event_id: 'e-7', event_id: 'e-8' }],
      events_count: 40,
      events_by_type: { tool_usage_started: 1, tool_usage_finished: 1, odd: 'many' },
      usage_metrics: { total_tokens: 120, prompt_tokens: 100, completion_tokens: 20, successful_requests: 3 },
      triggered_by: { type: 'user', id: 'u-1' },
      execution_origin: 'api',
      source: 'memory',
    }).eventLog;
    assert.equal(log?.present, true);
    assert.deepEqual(log?.events.map((e) => e.key), ['id:e-7', 'id:e-8']);
    assert.equal(log?.count, 40);
    assert.deepEqual(log?.byType, { tool_usage_started: 1, tool_usage_finished: 1 });
    assert.deepEqual(log?.usage, { totalTokens: 120, promptTokens: 100, completionTokens: 20, successfulRequests: 3 });
    assert.deepEqual(log?.triggeredBy, { type: 'user', id: 'u-1' });
    assert.equal(log?.origin, 'api');
  });

  it('the raw body kept for the raw view notes the event list rather than copying it', () => {
    const snapshot = normaliseStatus({ state: 'RUNNING', events: [started, started], events_count: 2 });
    assert.deepEqual(snapshot.raw, { state: 'RUNNING', events: "[2 events: see the run's trace]", events_count: 2 });
    assert.equal(snapshot.eventLog?.events.length, 2);
  });

  it('a reply listing more events than it may read keeps the newest and counts the rest', () => {
    const events = Array.from({ length: EVENT_LIMITS.perReply + 300 }, (_, i) => ({ type: 'llm_stream_chunk', event_id: `e-${i}` }));
    const log = readEventLog({ events });
    assert.equal(log?.events.length, EVENT_LIMITS.perReply);
    assert.equal(log?.events[0].id, 'e-300');
    assert.equal(log?.notRead, 300);
  });

  it('a 10 MB event is read as a few KB', () => {
    const event = readEvent({ type: 'tool_usage_error', error: 'e'.repeat(10 * 1024 * 1024), tool_args: 'a'.repeat(1024 * 1024) });
    assert.ok(JSON.stringify(event).length < EVENT_LIMITS.errorChars + EVENT_LIMITS.toolArgsChars + 1000);
  });
});

describe('A hostile event log', () => {
  const token = 'sk-live-0123456789abcdef0123456789';

  it('a token echoed inside an event is redacted before it is read', () => {
    const body = JSON.stringify({ state: 'RUNNING', events: [{ type: 'tool_usage_started', event_id: 'e1', tool_args: { auth: `Bearer ${token}` }, note: token }] });
    const read = readStatusBody(new TextEncoder().encode(body), 200, token);
    assert.ok(read.ok);
    const text = JSON.stringify(read.ok && read.snapshot.eventLog);
    assert.ok(!text.includes(token), text);
    assert.match(text, /tool_usage_started/);
  });

  it('10⁵ events in one reply: the newest are read, the rest counted, and the snapshot stays small', () => {
    const events = Array.from({ length: 100_000 }, (_, i) => ({ type: 'llm_stream_chunk', event_id: `e-${i}`, timestamp: 1_790_000_000 + i }));
    const read = readStatusBody(new TextEncoder().encode(JSON.stringify({ state: 'RUNNING', events, events_count: 100_000 })), 200, token);
    assert.ok(read.ok);
    const log = read.ok ? read.snapshot.eventLog : undefined;
    assert.equal(log?.events.length, EVENT_LIMITS.perReply);
    assert.equal((log?.notRead ?? 0) + (log?.events.length ?? 0), 100_000, 'every listed event is either read or counted');
    assert.equal(log?.events.at(-1)?.id, 'e-99999', 'the newest is read');
    assert.equal(log?.events[0].id, `e-${100_000 - EVENT_LIMITS.perReply}`);
    assert.ok(JSON.stringify(log).length < 2_000_000);
  });

  it('types, ids and times of every odd kind read without throwing', () => {
    const odd = [
      { type: 42, event_id: { nested: true }, timestamp: 'yesterday' },
      { type: '', timestamp: -5, emission_sequence: -1 },
      { type: 'x'.repeat(10_000), parent_event_id: 'p'.repeat(10_000) },
      { type: 'task_started', timestamp: '9999-12-31T23:59:59Z' },
      { type: 'task_started', usage: { total_tokens: 'NaN', prompt_tokens: Infinity } },
      [],
      'a string',
    ];
    const log = readEventLog({ events: odd });
    assert.equal(log?.events.length, 5, 'what is no object is skipped');
    for (const event of log!.events) {
      assert.ok(event.type.length <= EVENT_LIMITS.labelChars + 40);
      assert.ok((event.parentId?.length ?? 0) <= EVENT_LIMITS.labelChars + 40);
    }
    assert.equal(log?.events[1].at, undefined, 'a negative time is no time');
    assert.equal(log?.events[4].usage, undefined, 'no finite figure, no usage');
  });
});
