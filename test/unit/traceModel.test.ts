// Issue 49: a run's span tree from its event log (status-events.md: pairing and nesting), built as polls bring
// events. The log is the crew's: broken or hostile logs must still make a bounded tree, without looping or throwing.
import * as assert from 'node:assert/strict';
import type { RunEvent } from '../../src/api/types';
import type { Span } from '../../src/runTracking/trace/span';
import { Trace } from '../../src/runTracking/trace/traceModel';

/** Events with ids e1, e2, … one millisecond apart, unless the fields say otherwise. */
function events() {
  let n = 0;
  return (type: string, fields: Partial<RunEvent> = {}): RunEvent => {
    n++;
    const id = 'id' in fields ? fields.id : `e${n}`;
    return { key: `id:${id ?? `anon${n}`}`, id, type, at: 1_000 + n, ...fields };
  };
}

/** Each span as `depth kind name state`, in display order. */
function rows(trace: Trace): string[] {
  return trace.spans.map((s) => `${'  '.repeat(s.depth)}${s.kind} ${s.name} ${s.state}`);
}

function only(trace: Trace, match: (span: Span) => boolean): Span {
  const found = trace.spans.filter(match);
  assert.equal(found.length, 1, `one span expected, found ${found.length}:\n${rows(trace).join('\n')}`);
  return found[0];
}

/** Events whose every field counts how often it is read. */
function counting(list: RunEvent[]): { events: RunEvent[]; reads: () => number } {
  let reads = 0;
  const wrapped = list.map((event) => {
    const copy = {} as RunEvent;
    for (const [field, value] of Object.entries(event)) {
      Object.defineProperty(copy, field, { enumerable: true, get: () => (reads++, value) });
    }
    return copy;
  });
  return { events: wrapped, reads: () => reads };
}

/** A crew of `tasks` tasks, each an agent making `calls` model calls and a tool call: 4 + 4 × calls + 2 events a task… */
function crewLog(ev: ReturnType<typeof events>, tasks: number, calls: number): RunEvent[] {
  const log = [ev('crew_kickoff_started', { id: 'crew' })];
  for (let t = 0; t < tasks; t++) {
    log.push(ev('task_started', { id: `t${t}`, taskId: `T${t}`, taskName: `task ${t}` }));
    log.push(ev('agent_execution_started', { id: `a${t}`, agentId: `A${t}`, agentRole: 'Researcher', taskId: `T${t}` }));
    for (let c = 0; c < calls; c++) {
      log.push(ev('llm_call_started', { id: `l${t}.${c}`, callId: `c${t}.${c}`, agentId: `A${t}`, taskId: `T${t}`, model: 'gpt-4o' }));
      log.push(ev('llm_call_completed', { id: `lc${t}.${c}`, callId: `c${t}.${c}`, agentId: `A${t}`, usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 } }));
    }
    log.push(ev('tool_usage_started', { id: `u${t}`, toolName: 'search', agentId: `A${t}`, toolArgs: '{"q":"x"}' }));
    log.push(ev('tool_usage_finished', { id: `uf${t}`, toolName: 'search', agentId: `A${t}`, fromCache: true }));
    log.push(ev('agent_execution_completed', { id: `ac${t}`, agentId: `A${t}`, taskId: `T${t}` }));
    log.push(ev('task_completed', { id: `tc${t}`, taskId: `T${t}` }));
  }
  return log;
}

describe('trace model (issue 49)', () => {
  it('pairs an end with the start its startedId names, over the order of starts', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([
      ev('tool_usage_started', { id: 'first', toolName: 'search' }),
      ev('tool_usage_started', { id: 'second', toolName: 'search' }),
      ev('tool_usage_finished', { id: 'end', startedId: 'second', toolName: 'search' }),
    ]);
    assert.equal(trace.span('id:second')?.state, 'ok');
    assert.deepEqual(trace.span('id:second')?.eventKeys, ['id:second', 'id:end']);
    assert.equal(trace.span('id:second')?.endType, 'tool_usage_finished');
    assert.equal(trace.span('id:first')?.state, 'running');
    assert.equal(trace.size, 2);
  });

  it('without ids, pairs by family, identity and order: the oldest open start that fits', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([
      ev('llm_call_started', { id: undefined, agentId: 'A', model: 'gpt-4o' }),
      ev('llm_call_started', { id: undefined, agentId: 'A', model: 'gpt-4o' }),
      ev('tool_usage_started', { id: undefined, toolName: 'search' }),
      ev('tool_usage_started', { id: undefined, toolName: 'write' }),
      ev('llm_call_completed', { id: undefined, agentId: 'A' }),
      ev('tool_usage_finished', { id: undefined, toolName: 'write' }),
    ]);
    assert.deepEqual(
      trace.spans.map((s) => `${s.name} ${s.state}`),
      ['gpt-4o ok', 'gpt-4o running', 'search running', 'write ok'],
    );
  });

  it('nests by parentId, depth first, children by start time (a late child goes in its place)', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([
      ev('crew_kickoff_started', { id: 'crew' }),
      ev('task_started', { id: 'task', parentId: 'crew', taskName: 'Research' }),
      ev('agent_execution_started', { id: 'agent', parentId: 'task', agentRole: 'Researcher' }),
      ev('llm_call_started', { id: 'call2', parentId: 'agent', model: 'gpt-4o', at: 5_000 }),
    ]);
    trace.add([ev('tool_usage_started', { id: 'tool', parentId: 'agent', toolName: 'search', at: 4_000 })]);
    assert.deepEqual(rows(trace), ['crew Crew running', '  task Research running', '    agent Researcher running', '      tool search running', '      llm gpt-4o running']);
    assert.equal(trace.span('id:call2')?.parentId, 'id:agent');
  });

  it('nests by containment where no parentId is given: crew → task → agent → calls, flow → method → crew', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([
      ev('flow_started', { flowName: 'Pipeline' }),
      ev('method_execution_started', { methodName: 'research', flowName: 'Pipeline' }),
      ev('crew_kickoff_started'),
      ev('task_started', { taskId: 'T1', taskName: 'Find' }),
      ev('task_started', { taskId: 'T2', taskName: 'Write' }),
      ev('agent_execution_started', { agentId: 'A1', agentRole: 'Finder', taskId: 'T1' }),
      ev('llm_call_started', { agentId: 'A1', model: 'gpt-4o-mini' }),
      // A delegated coworker's call names another agent: it still nests in the task it names.
      ev('tool_usage_started', { toolName: 'search', agentRole: 'Coworker', taskId: 'T2' }),
      ev('flow_paused', { flowName: 'Pipeline' }),
    ]);
    assert.deepEqual(rows(trace), [
      'flow Pipeline running',
      '  method research running',
      '    crew Crew running',
      '      task Find running',
      '        agent Finder running',
      '          llm gpt-4o-mini running',
      '      task Write running',
      '        tool search running',
      '  event flow_paused ok',
    ]);
  });

  it('marks failures with their error text: an end of the failing family, or a failure type of its own', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([
      ev('crew_kickoff_started', { id: 'crew' }),
      ev('task_started', { id: 'task', taskId: 'T' }),
      ev('agent_execution_started', { id: 'agent', agentId: 'A', taskId: 'T' }),
      ev('tool_usage_started', { id: 'tool', toolName: 'search', agentId: 'A' }),
      ev('tool_usage_error', { toolName: 'search', agentId: 'A', error: 'rate limited' }),
      ev('tool_selection_error', { toolName: 'no_such_tool', agentId: 'A', error: 'unknown tool' }),
      ev('llm_call_started', { id: 'call', agentId: 'A' }),
      ev('llm_call_failed', { startedId: 'call', error: 'timeout' }),
      ev('agent_execution_error', { agentId: 'A', error: 'gave up' }),
      ev('task_failed', { taskId: 'T', error: 'gave up' }),
      ev('crew_kickoff_failed', { error: 'gave up' }),
    ]);
    const tool = trace.span('id:tool');
    assert.deepEqual([tool?.state, tool?.error, tool?.endType], ['failed', 'rate limited', 'tool_usage_error']);
    const lone = only(trace, (s) => s.type === 'tool_selection_error');
    assert.deepEqual([lone.kind, lone.state, lone.error, lone.parentId], ['tool', 'failed', 'unknown tool', 'id:agent']);
    assert.deepEqual([trace.span('id:call')?.state, trace.span('id:call')?.error], ['failed', 'timeout']);
    assert.ok(['id:crew', 'id:task', 'id:agent'].every((id) => trace.span(id)?.state === 'failed'));
  });

  it('after the run ended, open spans are lost and drawn to its end; a late end still closes them', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([ev('crew_kickoff_started', { id: 'crew', at: 1_000 }), ev('task_started', { id: 'task', taskId: 'T', at: 2_000 })]);
    assert.deepEqual(trace.settle(false, 9_000), { added: [], updated: [] }, 'a running run changes nothing');
    const settled = trace.settle(true, 9_000);
    assert.deepEqual(settled.updated.sort(), ['id:crew', 'id:task']);
    assert.deepEqual([trace.span('id:task')?.state, trace.span('id:task')?.end], ['lost', 9_000]);
    assert.deepEqual(trace.settle(true, 9_000).updated, [], 'settling again changes nothing');
    trace.add([ev('task_completed', { taskId: 'T', at: 8_000 })]);
    assert.deepEqual([trace.span('id:task')?.state, trace.span('id:task')?.end], ['ok', 8_000]);
    trace.settle(false, 10_000);
    assert.deepEqual([trace.span('id:crew')?.state, trace.span('id:crew')?.end], ['running', undefined], 'a run that goes on (resumed)');
  });

  it('keeps types it does not know as rows: unknown starts and ends still pair', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([
      ev('agent_execution_started', { id: 'agent', agentId: 'A' }),
      ev('memory_query_started', { id: 'mq', agentId: 'A' }),
      ev('memory_query_completed', { startedId: 'mq', agentId: 'A' }),
      ev('knowledge_search_query', { agentId: 'A' }),
      ev('mcp_connection_failed', { error: 'refused' }),
      ev('unknown', { id: undefined }),
      ev('something_new'),
    ]);
    assert.deepEqual(rows(trace), [
      'agent A running',
      '  event memory_query_started ok',
      '  event knowledge_search_query ok',
      '  event mcp_connection_failed failed',
      '  event unknown ok',
      '  event something_new ok',
    ]);
  });

  it('counts stream chunks on their model call instead of listing them', () => {
    const ev = events();
    const trace = new Trace();
    const calls = [ev('agent_execution_started', { agentId: 'A' }), ev('llm_call_started', { id: 'call', callId: 'c1', agentId: 'A' })];
    const chunks = Array.from({ length: 5_000 }, (_, i) => ev(i % 5 === 0 ? 'llm_thinking_chunk' : 'llm_stream_chunk', { callId: 'c1' }));
    const change = trace.add([...calls, ...chunks]);
    assert.equal(trace.size, 2);
    assert.deepEqual([trace.span('id:call')?.chunks, trace.span('id:call')?.thinkingChunks], [4_000, 1_000]);
    assert.equal(change.added.length, 2);
    const more = trace.add([ev('llm_stream_chunk', { agentId: 'A' }), ev('llm_stream_chunk', { agentId: 'A' })]);
    assert.deepEqual(more, { added: [], updated: ['id:call'] }, 'chunks without a call id go to the open call of their agent');
    // With no model call to count them on, they make one row per enclosing span and chunk type.
    const orphans = new Trace();
    orphans.add(Array.from({ length: 300 }, () => ev('llm_stream_chunk')));
    assert.deepEqual(
      orphans.spans.map((s) => [s.kind, s.name, s.chunks]),
      [['event', 'llm_stream_chunk', 300]],
    );
  });

  it('parent ids that form a cycle, or name the event itself, still make a tree', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([ev('task_started', { id: 'a', parentId: 'b', taskId: 'A' }), ev('task_started', { id: 'b', parentId: 'a', taskId: 'B' }), ev('agent_execution_started', { id: 'c', parentId: 'c' })]);
    assert.deepEqual(rows(trace), ['task A running', '  task B running', '    agent agent_execution_started running']);
    // A chain 10,000 deep: drawn without recursion, each span once.
    const chain = new Trace();
    chain.add(Array.from({ length: 10_000 }, (_, i) => ev('task_started', { id: `n${i}`, parentId: `n${i - 1}`, taskId: `${i}` })));
    assert.equal(chain.spans.length, 10_000);
    assert.equal(chain.spans.at(-1)?.depth, 9_999);
  });

  it('repeated event ids: the first start is the one an end names; the same event twice is taken once', () => {
    const ev = events();
    const trace = new Trace();
    const start = ev('task_started', { id: 'x', taskId: 'T', at: 1_000 });
    trace.add([start, start, { ...start, key: 'h:other', at: 1_500 }]);
    trace.add([ev('task_completed', { startedId: 'x', at: 2_000 }), start]);
    assert.deepEqual(
      trace.spans.map((s) => `${s.id} ${s.state}`),
      ['id:x ok', 'h:other running'],
    );
    // A second end naming the same start (an error after a finish) updates it: a failure outranks a success.
    trace.add([ev('task_failed', { startedId: 'x', error: 'late', at: 3_000 })]);
    assert.deepEqual([trace.span('id:x')?.state, trace.span('id:x')?.error, trace.span('id:x')?.end], ['failed', 'late', 3_000]);
  });

  it('an end without a start is a row of its own; a start that comes later takes it over under the same id', () => {
    const ev = events();
    const trace = new Trace();
    const first = trace.add([ev('task_completed', { id: 'end', taskId: 'T', taskName: 'Write', at: 5_000 })]);
    const row = trace.span('id:end');
    assert.deepEqual([row?.start, row?.end, row?.state, row?.name, row?.type], [undefined, 5_000, 'ok', 'Write', 'task_completed']);
    assert.deepEqual(first.added, ['id:end']);
    const second = trace.add([ev('task_started', { id: 'start', taskId: 'T', at: 4_000 })]);
    assert.deepEqual(second, { added: [], updated: ['id:end'] });
    assert.deepEqual([row?.start, row?.end, row?.type, trace.size], [4_000, 5_000, 'task_started', 1]);
    // A start later than an early end of its family, without an id naming it, is another span (a retry).
    trace.add([ev('task_completed', { id: 'end2', taskId: 'U', at: 6_000 }), ev('task_started', { id: 'start2', taskId: 'U', at: 7_000 })]);
    assert.equal(trace.size, 3);
  });

  it('times out of order: an end stamped before its start still pairs through startedId; future times are kept', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([ev('task_started', { id: 'late', taskId: 'T', at: 5_000 }), ev('task_completed', { id: 'end', startedId: 'late', taskId: 'T', at: 3_000 })]);
    assert.equal(trace.size, 1);
    // The end sorts first, so it made the row: the row keeps its id when the start joins it.
    const span = trace.span('id:end');
    assert.deepEqual([span?.start, span?.end, span?.state, span?.type, span?.eventKeys], [5_000, 3_000, 'ok', 'task_started', ['id:end', 'id:late']]);
    const future = Date.UTC(3000, 0, 1);
    trace.add([ev('task_started', { id: 'future', taskId: 'F', at: future }), ev('task_started', { id: 'nan', taskId: 'N', at: Number.NaN })]);
    assert.deepEqual(
      trace.spans.map((s) => s.id),
      ['id:end', 'id:future', 'id:nan'],
      'a time that is no number sorts after the event it came after',
    );
    trace.settle(true, 10_000);
    assert.deepEqual([trace.span('id:future')?.state, trace.span('id:future')?.end], ['lost', future], 'never drawn ending before it started');
    assert.equal(trace.span('id:nan')?.start, undefined);
  });

  it('span ids are stable: the key of the event that made the span, whatever comes later', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([ev('crew_kickoff_started', { id: 'crew' })]);
    const before = trace.span('id:crew');
    trace.add([ev('task_started', { taskId: 'T' }), ev('crew_kickoff_completed', { extra: { crew_name: 'Research crew' } })]);
    assert.equal(trace.span('id:crew'), before);
    assert.deepEqual([before?.state, before?.name], ['ok', 'Research crew'], 'a placeholder name gives way to a real one');
  });

  it('adding 50 events to a 10,000-event trace changes only the spans they touch', () => {
    const ev = events();
    const trace = new Trace();
    const log = crewLog(ev, 400, 10); // 1 + 400 × 26 = 10,401 events
    trace.add(log);
    assert.ok(trace.size > 5_000);
    const more: RunEvent[] = [ev('task_started', { id: 'new', taskId: 'TN' }), ev('agent_execution_started', { id: 'newAgent', agentId: 'AN', taskId: 'TN' })];
    for (let c = 0; c < 24; c++) {
      more.push(ev('llm_call_started', { callId: `n${c}`, agentId: 'AN' }), ev('llm_call_completed', { callId: `n${c}`, agentId: 'AN' }));
    }
    const change = trace.add([...log.slice(-500), ...more]); // an overlapping window: the kept events are ignored
    assert.equal(more.length, 50);
    assert.equal(change.added.length, 26);
    assert.deepEqual(change.updated.sort(), [], 'starts and ends in the same add are only "added"');
    const ended = trace.add([ev('agent_execution_completed', { agentId: 'AN' }), ev('task_completed', { taskId: 'TN' })]);
    assert.deepEqual(ended, { added: [], updated: ['id:newAgent', 'id:new'] });
  });

  it('takes each event with a bounded number of reads of its fields, even when nothing pairs', () => {
    const ev = events();
    const normal = counting(crewLog(ev, 300, 10));
    new Trace().add(normal.events);
    const perEvent = normal.reads() / normal.events.length;
    assert.ok(perEvent < 60, `${perEvent.toFixed(0)} reads of each event of a crew's log`);
    // Hostile: 5,000 tool calls that never end and 5,000 ends of other tools. A pairing that looked at every open
    // start would read thousands of fields per event; a bounded one, a few hundred at most.
    const starts = Array.from({ length: 5_000 }, (_, i) => ev('tool_usage_started', { toolName: `tool${i}`, agentId: 'A' }));
    const ends = Array.from({ length: 5_000 }, (_, i) => ev('tool_usage_finished', { toolName: `other${i}`, agentId: 'A' }));
    const hostile = counting([...starts, ...ends]);
    const trace = new Trace();
    trace.add(hostile.events);
    assert.equal(trace.size, 10_000);
    const hostilePerEvent = hostile.reads() / hostile.events.length;
    assert.ok(hostilePerEvent < 600, `${hostilePerEvent.toFixed(0)} reads of each event of a hostile log`);
  });

  it('holds at most maxSpans rows and counts the events it could not show', () => {
    const ev = events();
    const trace = new Trace({ maxSpans: 10 });
    trace.add(Array.from({ length: 100 }, () => ev('something_happened')));
    assert.equal(trace.size, 10);
    assert.equal(trace.notShown, 90);
  });
});
