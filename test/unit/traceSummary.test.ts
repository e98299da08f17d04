// Issue 49: what a run's trace adds up to — counts, tokens, the failure to jump to, the slow and the costly calls.
import * as assert from 'node:assert/strict';
import type { RunEvent } from '../../src/api/types';
import type { Span } from '../../src/runTracking/trace/span';
import { Trace } from '../../src/runTracking/trace/traceModel';
import { summarise } from '../../src/runTracking/trace/traceSummary';

function events() {
  let n = 0;
  return (type: string, fields: Partial<RunEvent> = {}): RunEvent => {
    n++;
    return { key: `id:${fields.id ?? `e${n}`}`, id: `e${n}`, type, at: 1_000 + n, ...fields };
  };
}

describe('trace summary (issue 49)', () => {
  it('counts spans by kind and state, sums the tokens of model calls and notes calls without usage', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([
      ev('crew_kickoff_started', { at: 1_000 }),
      ev('task_started', { taskId: 'T' }),
      ev('agent_execution_started', { agentId: 'A' }),
      ev('llm_call_started', { callId: 'c1', model: 'gpt-4o' }),
      ev('llm_call_completed', { callId: 'c1', usage: { promptTokens: 1_000, completionTokens: 200, cachedPromptTokens: 400, totalTokens: 1_200 } }),
      ev('llm_call_started', { callId: 'c2', model: 'gpt-4o' }),
      ev('llm_call_completed', { callId: 'c2' }),
      ev('llm_call_started', { callId: 'c3', model: 'gpt-4o' }),
      ev('llm_call_completed', { callId: 'c3', usage: { promptTokens: 50, completionTokens: 5 } }),
      ev('tool_usage_started', { toolName: 'search' }),
      ev('tool_usage_error', { toolName: 'search', error: 'down' }),
      ev('llm_call_started', { callId: 'c4' }),
      ev('crew_kickoff_completed', { at: 61_000, usage: { totalTokens: 99_999 } }),
    ]);
    const summary = summarise(trace);
    assert.deepEqual(
      { ...summary, failing: summary.failing?.id, slowest: undefined, tokenHogs: summary.tokenHogs.map((s) => s.eventKeys[0]) },
      {
        start: 1_000,
        end: 61_000,
        durationMs: 60_000,
        spans: 8,
        tasks: 1,
        agents: 1,
        modelCalls: 4,
        toolCalls: 1,
        errors: 1,
        running: 3,
        lost: 0,
        tokens: { prompt: 1_050, completion: 205, cached: 400, total: 1_255, callsWithoutUsage: 1 },
        failing: 'id:e10',
        slowest: undefined,
        tokenHogs: ['id:e4', 'id:e8'],
      },
    );
  });

  it('the failing span is the failed leaf that failed first, not the parents its failure failed', () => {
    const ev = events();
    const trace = new Trace();
    trace.add([
      ev('crew_kickoff_started', { id: 'crew' }),
      ev('task_started', { id: 'task', taskId: 'T' }),
      ev('agent_execution_started', { id: 'agent', agentId: 'A', taskId: 'T' }),
      ev('tool_usage_started', { id: 'tool', toolName: 'search', agentId: 'A' }),
      ev('tool_usage_error', { toolName: 'search', agentId: 'A', error: 'rate limited' }),
      ev('llm_call_started', { id: 'call', agentId: 'A' }),
      ev('llm_call_failed', { startedId: 'call', error: 'timeout' }),
      ev('agent_execution_error', { agentId: 'A', error: 'gave up' }),
      ev('task_failed', { taskId: 'T', error: 'gave up' }),
      ev('crew_kickoff_failed', { error: 'gave up' }),
    ]);
    const summary = summarise(trace);
    assert.equal(summary.failing?.id, 'id:tool');
    assert.equal(summary.failing?.error, 'rate limited');
    assert.equal(summary.errors, 5);
    // A parent failed on its own (no failed child) is the failing span itself.
    const alone = new Trace();
    alone.add([ev('task_started', { id: 'only', taskId: 'T' }), ev('agent_execution_started', { agentId: 'A' }), ev('task_failed', { taskId: 'T' })]);
    assert.equal(summarise(alone).failing?.id, 'id:only');
    assert.equal(summarise(new Trace()).failing, undefined);
  });

  it('lists the slowest leaves and the hungriest model calls, at most N, most first', () => {
    const span = (id: string, fields: Partial<Span>): Span => ({ id, depth: 1, parentId: 'root', kind: 'llm', name: id, type: 'llm_call_started', state: 'ok', eventKeys: [id], ...fields });
    const spans: Span[] = [
      { id: 'root', depth: 0, kind: 'crew', name: 'crew', type: 'crew_kickoff_started', state: 'ok', start: 0, end: 100_000, eventKeys: ['root'] },
      span('a', { start: 0, end: 10, usage: { totalTokens: 5 } }),
      span('b', { start: 0, end: 500, usage: { promptTokens: 900, completionTokens: 100 } }),
      span('c', { start: 0, end: 200, usage: { totalTokens: 50 } }),
      span('d', { start: 100, end: 50, usage: { totalTokens: 5_000 } }), // ends before it starts: no duration
      span('e', { kind: 'tool', start: 0, end: 300, usage: { totalTokens: 1e9 } }), // not a model call: no tokens
      span('f', { start: 0, end: 10_000, state: 'lost' }),
    ];
    const summary = summarise(spans, 3);
    assert.deepEqual(summary.slowest.map((s) => s.id), ['f', 'b', 'e']);
    assert.deepEqual(summary.tokenHogs.map((s) => s.id), ['d', 'b', 'c']);
    assert.deepEqual(summarise(spans, 0).slowest, []);
    assert.equal(summarise(spans).lost, 1);
  });
});
