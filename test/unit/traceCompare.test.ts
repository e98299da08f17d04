// Issue 49: two runs' traces compared step by step — paired by task, agent and step order; added, missing, slower,
// failed and fixed steps; duration and token deltas; linear in the spans, counted in work, never timed.
import * as assert from 'node:assert/strict';
import type { RunEvent } from '../../src/api/types';
import type { Span } from '../../src/runTracking/trace/span';
import { COMPARE_LIMIT, type ComparedStep, compareTraces, SLOWER_MIN_MS, SLOWER_RATIO } from '../../src/runTracking/trace/traceCompare';
import { buildTrace } from '../../src/runTracking/trace/traceModel';

/** A step of an agent: a model call (its model optional) or a tool call, `ms` long. */
type Step = { llm: number; tokens?: number; model?: string; fail?: boolean } | { tool: string; ms: number; fail?: boolean };
interface TaskSpec {
  name: string;
  agent?: string;
  steps: Step[];
}

/** A crew run's events, each step starting when the one before ended; ids unique per call of `crewRun`. */
function crewRun(tasks: TaskSpec[]): { events: RunEvent[]; end: number } {
  let n = 0;
  let at = 1_000;
  const events: RunEvent[] = [];
  const ev = (type: string, fields: Partial<RunEvent> = {}): string => {
    const id = `e${++n}`;
    events.push({ key: `id:${id}`, id, type, at, ...fields });
    return id;
  };
  const crew = ev('crew_kickoff_started');
  tasks.forEach((task, t) => {
    const who = { taskId: `T${t}`, taskName: task.name, agentId: `A${t}`, agentRole: task.agent ?? 'Researcher' };
    const started = ev('task_started', { ...who, parentId: crew });
    const agent = ev('agent_execution_started', { ...who, parentId: started });
    for (const step of task.steps) {
      if ('llm' in step) {
        const call = ev('llm_call_started', { ...who, parentId: agent, callId: `c${n}`, model: step.model ?? 'gpt-4o' });
        at += step.llm;
        ev(step.fail ? 'llm_call_failed' : 'llm_call_completed', { ...who, startedId: call, usage: step.tokens === undefined ? undefined : { totalTokens: step.tokens } });
      } else {
        const call = ev('tool_usage_started', { ...who, parentId: agent, toolName: step.tool });
        at += step.ms;
        ev(step.fail ? 'tool_usage_error' : 'tool_usage_finished', { ...who, startedId: call, toolName: step.tool });
      }
      at += 10;
    }
    const failed = task.steps.some((s) => s.fail);
    ev(failed ? 'agent_execution_error' : 'agent_execution_completed', { ...who, startedId: agent });
    ev(failed ? 'task_failed' : 'task_completed', { ...who, startedId: started });
  });
  ev('crew_kickoff_completed', { startedId: crew });
  return { events, end: at };
}

function spansOf(tasks: TaskSpec[]): readonly Span[] {
  const { events, end } = crewRun(tasks);
  return buildTrace(events, true, end).spans;
}

/** Each step as `depth kind name verdict`, in the comparison's order. */
function rows(steps: readonly ComparedStep[]): string[] {
  return steps.map((s) => `${'  '.repeat(s.depth)}${s.kind} ${s.name} ${s.verdict}`);
}

const research: TaskSpec = {
  name: 'research',
  steps: [{ llm: 1_000, tokens: 100 }, { tool: 'search', ms: 300 }, { llm: 800, tokens: 50 }],
};
const writing: TaskSpec = { name: 'write', agent: 'Writer', steps: [{ llm: 2_000, tokens: 400 }] };

describe('trace comparison (issue 49)', () => {
  it('two runs that did the same: every step the same, no deltas', () => {
    const result = compareTraces(spansOf([research, writing]), spansOf([research, writing]));
    assert.deepEqual(rows(result.steps), [
      'crew Crew same',
      '  task research same',
      '    agent Researcher same',
      '      llm gpt-4o same',
      '      tool search same',
      '      llm gpt-4o same',
      '  task write same',
      '    agent Writer same',
      '      llm gpt-4o same',
    ]);
    assert.equal(result.verdicts.same, 9);
    assert.ok(result.steps.every((s) => s.durationDeltaMs === 0));
    assert.deepEqual(result.totals.delta, { durationMs: 0, tokens: 0, modelCalls: 0, toolCalls: 0, errors: 0, steps: 0 });
    assert.equal(result.totals.a.tokens, 550);
    assert.equal(result.steps[1].a?.tokens, 150, 'a task counts its model calls’ tokens');
    assert.equal(result.steps[0].a?.tokens, 550);
  });

  it('a new tool call in b: added, where it happened, with its time and the totals that follow', () => {
    const more: TaskSpec = { ...research, steps: [research.steps[0], { tool: 'scrape', ms: 700 }, ...research.steps.slice(1)] };
    const result = compareTraces(spansOf([research, writing]), spansOf([more, writing]));
    assert.deepEqual(rows(result.steps).slice(2, 7), [
      '    agent Researcher same',
      '      llm gpt-4o same',
      '      tool scrape added',
      '      tool search same',
      '      llm gpt-4o same',
    ]);
    const added = result.steps.find((s) => s.verdict === 'added')!;
    assert.equal(added.a, undefined);
    assert.equal(added.b?.durationMs, 700);
    assert.equal(result.verdicts.added, 1);
    assert.equal(result.totals.delta.toolCalls, 1);
    assert.equal(result.totals.delta.steps, 1);
    assert.equal(result.totals.delta.durationMs, 710, 'the tool call and the gap after it');
  });

  it('a task b did not run: missing, with everything under it', () => {
    const result = compareTraces(spansOf([research, writing]), spansOf([research]));
    const missing = result.steps.filter((s) => s.verdict === 'missing');
    assert.deepEqual(rows(missing), ['  task write missing', '    agent Writer missing', '      llm gpt-4o missing']);
    assert.equal(missing[0].descendants, 2);
    assert.equal(missing[0].tokenDelta, -400);
    assert.equal(result.totals.delta.tokens, -400);
    assert.equal(result.totals.delta.modelCalls, -1);
  });

  it('a slower model call: slower, with its delta; the thresholds keep noise the same', () => {
    assert.equal(SLOWER_RATIO, 1.5);
    assert.equal(SLOWER_MIN_MS, 500);
    const slow: TaskSpec = { ...research, steps: [{ llm: 2_500, tokens: 180 }, ...research.steps.slice(1)] };
    const result = compareTraces(spansOf([research]), spansOf([slow]));
    const call = result.steps[3];
    assert.equal(call.verdict, 'slower');
    assert.equal(call.durationDeltaMs, 1_500);
    assert.equal(call.tokenDelta, 80);
    assert.equal(result.steps[2].verdict, 'slower', 'its agent is slower too (1,810 → 3,310 ms)');

    const noise = (a: number, b: number) => compareTraces(spansOf([{ name: 'n', steps: [{ llm: a }] }]), spansOf([{ name: 'n', steps: [{ llm: b }] }])).steps[3].verdict;
    assert.equal(noise(100, 400), 'same', '4× longer but only 300 ms');
    assert.equal(noise(2_000, 2_900), 'same', '900 ms longer but only 1.45×');
    assert.equal(noise(2_000, 3_000), 'slower');
    assert.equal(noise(3_000, 2_000), 'faster');
  });

  it('repeated calls pair in order: the Nth model call, the Nth call of each tool', () => {
    const a: TaskSpec = { name: 'loop', steps: [{ llm: 100 }, { tool: 'search', ms: 100 }, { llm: 100 }, { tool: 'search', ms: 100 }, { llm: 100 }] };
    const b: TaskSpec = { name: 'loop', steps: [{ llm: 100 }, { tool: 'search', ms: 100 }, { llm: 1_000 }, { tool: 'write', ms: 50 }, { tool: 'search', ms: 900 }, { llm: 100 }] };
    const result = compareTraces(spansOf([a]), spansOf([b]));
    assert.deepEqual(rows(result.steps).slice(3), [
      '      llm gpt-4o same',
      '      tool search same',
      '      llm gpt-4o slower',
      '      tool write added',
      '      tool search slower',
      '      llm gpt-4o same',
    ]);
    const second = result.steps.filter((s) => s.kind === 'tool' && s.name === 'search')[1];
    assert.equal(second.durationDeltaMs, 800);
  });

  it('a model call pairs with its counterpart whatever its model; the other name is kept', () => {
    const result = compareTraces(spansOf([{ name: 'n', steps: [{ llm: 100 }] }]), spansOf([{ name: 'n', steps: [{ llm: 100, model: 'gpt-4o-mini' }] }]));
    assert.equal(result.steps[3].verdict, 'same');
    assert.equal(result.steps[3].name, 'gpt-4o');
    assert.equal(result.steps[3].nameB, 'gpt-4o-mini');
  });

  it('a step that fails in b: failed; one that failed in a and ends well in b: fixed', () => {
    const broken: TaskSpec = { ...research, steps: [research.steps[0], { tool: 'search', ms: 300, fail: true }] };
    const ok: TaskSpec = { ...research, steps: research.steps.slice(0, 2) };
    const failed = compareTraces(spansOf([ok]), spansOf([broken]));
    assert.deepEqual(
      failed.steps.filter((s) => s.verdict === 'failed').map((s) => `${s.kind} ${s.name}`),
      ['task research', 'agent Researcher', 'tool search'],
    );
    assert.equal(failed.totals.delta.errors, 3);
    const fixed = compareTraces(spansOf([broken]), spansOf([ok]));
    assert.equal(fixed.verdicts.fixed, 3);
    assert.equal(fixed.verdicts.failed, 0);
  });

  it('tasks without names (their ids, new each run) pair by order', () => {
    const a = spansOf([{ name: '0f8fad5b-d9cb-469f-a165-70867728950e', steps: [{ llm: 100 }] }]);
    const b = spansOf([{ name: '7c9e6679-7425-40de-944b-e07fc1f90ae7', steps: [{ llm: 100 }] }]);
    assert.equal(compareTraces(a, b).verdicts.same, 4);
  });

  it('an empty side: every step of the other added or missing', () => {
    const spans = spansOf([research]);
    assert.equal(compareTraces([], spans).verdicts.added, spans.length);
    assert.equal(compareTraces(spans, []).verdicts.missing, spans.length);
    assert.deepEqual(compareTraces([], []).steps, []);
  });

  it('compares at most COMPARE_LIMIT spans of each, and says how many it left', () => {
    const big = spansOf([{ name: 'big', steps: Array.from({ length: COMPARE_LIMIT }, () => ({ llm: 1 })) }]);
    const result = compareTraces(big, big.slice(0, 100));
    assert.equal(result.notCompared.a, big.length - COMPARE_LIMIT);
    assert.equal(result.notCompared.b, 0);
    assert.equal(result.steps.length, COMPARE_LIMIT);
  });

  describe('work grows with the spans, not their square', () => {
    /** Spans whose every field read is counted. */
    function counting(spans: readonly Span[]): { spans: Span[]; reads: () => number } {
      let reads = 0;
      const wrapped = spans.map((span) => {
        const copy = {} as Span;
        for (const [field, value] of Object.entries(span)) {
          Object.defineProperty(copy, field, { enumerable: true, get: () => (reads++, value) });
        }
        return copy;
      });
      return { spans: wrapped, reads: () => reads };
    }

    /** Reads for a comparison of size n, over reads for a tenth of it: about 10 when linear. */
    function growth(make: (n: number) => [readonly Span[], readonly Span[]]): number {
      const work = (n: number) => {
        const [a, b] = make(n);
        const left = counting(a);
        const right = counting(b);
        compareTraces(left.spans, right.spans);
        return left.reads() + right.reads();
      };
      return work(4_000) / work(400);
    }

    const calls = (n: number, every = 0): Step[] => Array.from({ length: n }, (_, i) => (every > 0 && i % every === 0 ? { tool: 'scrape', ms: 5 } : { llm: 5 }));

    it('one agent making thousands of calls, b with a new tool call among every few', () => {
      const ratio = growth((n) => [spansOf([{ name: 'wide', steps: calls(n) }]), spansOf([{ name: 'wide', steps: calls(n, 3) }])]);
      assert.ok(ratio < 11, `work grew ${ratio.toFixed(1)}× for 10× the spans`);
    });

    it('thousands of tasks, half of them missing in b', () => {
      const tasks = (n: number, keep: (i: number) => boolean) =>
        Array.from({ length: n / 4 }, (_, i): TaskSpec => ({ name: `task ${i}`, steps: [{ llm: 5 }, { tool: 'search', ms: 5 }] })).filter((_, i) => keep(i));
      const ratio = growth((n) => [spansOf(tasks(n, () => true)), spansOf(tasks(n, (i) => i % 2 === 0))]);
      assert.ok(ratio < 11, `work grew ${ratio.toFixed(1)}× for 10× the spans`);
    });

    it('a chain of events each naming the one before as its parent, thousands deep', () => {
      const chain = (n: number, type: string) => {
        const events: RunEvent[] = Array.from({ length: n }, (_, i) => ({ key: `id:${type}${i}`, id: `${type}${i}`, parentId: i > 0 ? `${type}${i - 1}` : undefined, type, at: 1_000 + i }));
        return buildTrace(events, true, 1_000 + n).spans;
      };
      const deep = chain(4_000, 'memory_saved');
      assert.equal(deep[deep.length - 1].depth, 3_999, 'the chain nests');
      assert.equal(compareTraces(deep, deep).verdicts.same, 4_000);
      const ratio = growth((n) => [chain(n, 'memory_saved'), chain(n, 'knowledge_retrieval_started')]);
      assert.ok(ratio < 11, `work grew ${ratio.toFixed(1)}× for 10× the spans`);
    });
  });
});
