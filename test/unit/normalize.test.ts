import * as assert from 'node:assert/strict';
import { interpretOutputText } from '../../src/api/finalOutput';
import { normaliseStateWord, normaliseStatus, UNNAMED_TASK } from '../../src/api/normalize';
import type { RunState, StatusSnapshot, TaskOutput } from '../../src/api/types';
import { mergeTaskOutputs } from '../../src/runTracking/taskMerge';
import { type Reply, statusBodies } from '../fixtures/crewApiBodies';

const parse = (reply: Reply): StatusSnapshot => normaliseStatus(reply.body, reply.httpStatus);

describe('normaliseStateWord', () => {
  const table: [string, RunState][] = [
    ['PENDING', 'queued'],
    ['queued', 'queued'],
    ['Received', 'queued'],
    ['STARTED', 'running'],
    ['running', 'running'],
    ['RETRY', 'running'],
    ['PAUSED', 'awaitingFeedback'],
    ['pending human input', 'awaitingFeedback'],
    ['PENDING_HUMAN_INPUT', 'awaitingFeedback'],
    ['awaiting-human-input', 'awaitingFeedback'],
    ['SUCCESS', 'succeeded'],
    ['completed', 'succeeded'],
    ['Succeeded', 'succeeded'],
    ['done', 'succeeded'],
    ['FINISHED', 'succeeded'],
    ['FAILED', 'failed'],
    ['FAILURE', 'failed'],
    ['error', 'failed'],
    ['REVOKED', 'cancelled'],
    ['cancelled', 'cancelled'],
    ['Canceled', 'cancelled'],
    ['STOPPED', 'cancelled'],
    ['NOT FOUND', 'notFound'],
    ['  not  found ', 'notFound'],
    ['Not-Found', 'notFound'],
    ['not_found', 'notFound'],
    ['COMPLETE', 'unknown'],
    ['HIBERNATING', 'unknown'],
    ['', 'unknown'],
    ['   ', 'unknown'],
    ['constructor', 'unknown'],
  ];
  for (const [word, expected] of table) {
    it(`maps ${JSON.stringify(word)} to ${expected}`, () => {
      assert.equal(normaliseStateWord(word), expected);
    });
  }

  it('returns unknown for a non-string smuggled past the type', () => {
    assert.equal(normaliseStateWord(7 as unknown as string), 'unknown');
  });
});

describe('normaliseStatus: documented family', () => {
  it('reads a running body with docs progress and current_task', () => {
    const reply = statusBodies.docsRunning;
    assert.deepEqual(parse(reply), {
      state: 'running',
      rawState: 'running',
      currentTask: 'gather_sources',
      progress: { unit: 'task', completed: 1, total: 4 },
      tasks: [],
      raw: reply.body,
    });
  });

  it('reads a completed body: result.output is the final output, result.tasks the task list', () => {
    const reply = statusBodies.docsCompleted;
    assert.deepEqual(parse(reply), {
      state: 'succeeded',
      rawState: 'completed',
      tasks: [
        { name: 'gather_sources', output: 'Sources: five food guides.', agent: 'Scout', taskId: 'gather_sources', executionTime: 12.5 },
        {
          name: 'write_plan',
          output: 'A three-day plan for Lisbon with food markets and museums.',
          agent: 'Planner',
          taskId: 'write_plan',
          executionTime: 30,
        },
      ],
      tasksSource: 'result',
      finalOutput: { kind: 'markdown', text: 'A three-day plan for Lisbon with food markets and museums.' },
      executionTime: 42.5,
      raw: reply.body,
    });
  });

  it('reads an error body: docs `error` is the error text', () => {
    const reply = statusBodies.docsError;
    assert.deepEqual(parse(reply), {
      state: 'failed',
      rawState: 'error',
      tasks: [],
      error: 'Task execution failed: quota exceeded for search tool',
      executionTime: 7.25,
      raw: reply.body,
    });
  });

  it('treats HTTP 404 as not found, marked as an HTTP 404, with the server\'s own words', () => {
    const reply = statusBodies.docsNotFound404;
    assert.deepEqual(parse(reply), {
      state: 'notFound',
      message: 'Execution not found: No execution found with ID: 1234',
      httpNotFound: true,
      tasks: [],
      raw: reply.body,
    });
  });

  it('treats HTTP 404 as not found even when the body says RUNNING', () => {
    assert.equal(normaliseStatus({ state: 'RUNNING' }, 404).state, 'notFound');
  });
});

describe('normaliseStatus: live family', () => {
  it('reads PENDING as queued with the status as message', () => {
    const reply = statusBodies.livePending;
    assert.deepEqual(parse(reply), {
      state: 'queued',
      rawState: 'PENDING',
      message: 'Task is pending',
      tasks: [],
      raw: reply.body,
    });
  });

  it('reads STARTED as running', () => {
    assert.equal(parse(statusBodies.liveStarted).state, 'running');
    assert.equal(parse(statusBodies.liveStarted).message, 'Task is started');
  });

  it('reads a full RUNNING crew body', () => {
    const reply = statusBodies.liveRunningFullCrew;
    const lastTask: TaskOutput = {
      name: 'collect_facts',
      output: 'Fact list: 1, 2, 3',
      agent: 'Researcher',
      description: 'Collect facts about the topic',
    };
    assert.deepEqual(parse(reply), {
      state: 'running',
      rawState: 'RUNNING',
      message: 'Task is Running',
      currentTask: 'draft_post',
      currentAgent: 'Writer',
      progress: { unit: 'task', completed: 1, total: 3, current: 'draft_post', currentAgent: 'Writer' },
      lastTask,
      tasks: [lastTask],
      tasksSource: 'last_executed_task',
      usage: { total_tokens: 310, prompt_tokens: 200, completion_tokens: 110, successful_requests: 2 },
      eventLog: {
        present: true,
        events: [{ key: normaliseStatus(reply.body).eventLog!.events[0].key, type: 'task_completed', at: Date.parse('2026-10-01T09:01:10Z') }],
        count: 9,
        usage: { totalTokens: 310, promptTokens: 200, completionTokens: 110, successfulRequests: 2 },
        origin: 'api',
        source: 'application',
      },
      raw: reply.body,
    });
  });

  it('never takes an intermediate last task output as the final output while running', () => {
    assert.equal(parse(statusBodies.liveRunningFullCrew).finalOutput, undefined);
  });

  it('reads flow progress with a null total as steps of unknown total', () => {
    assert.deepEqual(parse(statusBodies.liveRunningFlowNullTotal).progress, { unit: 'step', completed: 3, total: null });
    assert.deepEqual(parse(statusBodies.liveRunningFlowNoUnit).progress, { unit: 'step', completed: 5, total: null });
  });

  it('reads last_step in the prompt/thought/tool variant and stringifies an object tool_input', () => {
    assert.deepEqual(parse(statusBodies.liveRunningStepPromptVariant).lastStep, {
      prompt: 'Find recent papers',
      thought: 'Thought: search first',
      tool: 'search_tool',
      toolInput: '{"query":"agents 2026","limit":5}',
      result: 'Three papers found',
    });
  });

  it('reads last_step in the action/result variant', () => {
    assert.deepEqual(parse(statusBodies.liveRunningStepActionVariant).lastStep, {
      action: 'Delegating to Writer',
      result: 'Draft requested',
    });
  });

  it('ignores the empty `{}` placeholders of last_step and last_executed_task', () => {
    const snapshot = normaliseStatus({ state: 'RUNNING', last_step: {}, last_executed_task: {} });
    assert.equal(snapshot.lastStep, undefined);
    assert.equal(snapshot.lastTask, undefined);
    assert.deepEqual(snapshot.tasks, []);
  });

  it('reads last_executed_task sent as a plain string as that task output', () => {
    const snapshot = parse(statusBodies.liveRunningLastTaskString);
    const expected: TaskOutput = { name: UNNAMED_TASK, output: 'Plain string output of the latest task' };
    assert.deepEqual(snapshot.lastTask, expected);
    assert.deepEqual(snapshot.tasks, [expected]);
  });

  it('reads SUCCESS with a string result as Markdown, status null giving no message', () => {
    const snapshot = parse(statusBodies.liveSuccessStringResult);
    assert.equal(snapshot.state, 'succeeded');
    assert.equal(snapshot.message, undefined);
    assert.deepEqual(snapshot.finalOutput, { kind: 'markdown', text: '# Report\n\nAll good.' });
    assert.deepEqual(snapshot.usage, { total_tokens: 1500, prompt_tokens: 1000, completion_tokens: 500, successful_requests: 4 });
  });

  it('reads JSON inside the result string as JSON, pretty-printed', () => {
    assert.deepEqual(parse(statusBodies.liveSuccessJsonInString).finalOutput, {
      kind: 'json',
      text: '{\n  "answer": "42",\n  "sources": [\n    "a",\n    "b"\n  ]\n}',
      json: { answer: '42', sources: ['a', 'b'] },
    });
  });

  it('reads JSON inside a ```json fence', () => {
    assert.deepEqual(parse(statusBodies.liveSuccessFencedJson).finalOutput, {
      kind: 'json',
      text: '{\n  "verdict": "ship",\n  "score": 9\n}',
      json: { verdict: 'ship', score: 9 },
    });
  });

  it('keeps prose that merely contains a fence as Markdown', () => {
    assert.deepEqual(parse(statusBodies.liveSuccessFenceInsideProse).finalOutput, {
      kind: 'markdown',
      text: 'Here it is:\n```json\n{"a": 1}\n```',
    });
  });

  it('prefers result_json over result', () => {
    assert.deepEqual(parse(statusBodies.liveSuccessResultJson).finalOutput, {
      kind: 'json',
      text: '{\n  "lead": "Acme",\n  "score": 0.8\n}',
      json: { lead: 'Acme', score: 0.8 },
    });
  });

  it('reads tasks_output as the complete task list', () => {
    const snapshot = parse(statusBodies.liveSuccessTasksOutput);
    assert.equal(snapshot.tasksSource, 'tasks_output');
    assert.deepEqual(snapshot.tasks, [
      { name: 'collect_facts', output: 'Fact list: 1, 2, 3', agent: 'Researcher', description: 'Collect facts' },
      { name: 'write_article', output: 'Final article text', agent: 'Writer', description: 'Write article' },
    ]);
    assert.deepEqual(snapshot.finalOutput, { kind: 'markdown', text: 'Final article text' });
  });

  it('falls back to the last task output for a succeeded run without result', () => {
    assert.deepEqual(parse(statusBodies.liveSuccessOnlyLastTask).finalOutput, { kind: 'markdown', text: 'Wrapped up.' });
  });

  it('reads the minimal Semantic Kernel shape and ignores an unrecognised last_step', () => {
    const snapshot = parse(statusBodies.liveSuccessSkMinimal);
    assert.equal(snapshot.state, 'succeeded');
    assert.equal(snapshot.lastStep, undefined);
    assert.deepEqual(snapshot.finalOutput, { kind: 'markdown', text: 'Done and dusted' });
  });

  it('reads FAILED: the exception text in `status` is the error', () => {
    const reply = statusBodies.liveFailed;
    assert.deepEqual(parse(reply), {
      state: 'failed',
      rawState: 'FAILED',
      message: "TypeError: 'NoneType' object is not subscriptable",
      tasks: [],
      error: "TypeError: 'NoneType' object is not subscriptable",
      raw: reply.body,
    });
  });

  it('reads Celery FAILURE as failed', () => {
    const snapshot = parse(statusBodies.liveFailure);
    assert.equal(snapshot.state, 'failed');
    assert.equal(snapshot.error, 'RuntimeError: worker lost');
  });

  it('a failed run whose reason is only in its result shows that reason (#46)', () => {
    assert.equal(normaliseStatus({ state: 'FAILED', result: 'ValueError: the search tool is not configured' }).error, 'ValueError: the search tool is not configured');
    assert.equal(normaliseStatus({ status: 'failed', result: { error: 'Rate limit reached for gpt-4o' } }).error, 'Rate limit reached for gpt-4o');
    assert.equal(normaliseStatus({ state: 'FAILED', result: { message: 'Crew stopped: max iterations' } }).error, 'Crew stopped: max iterations');
    // Its own error field still comes first; a succeeded run's result is its output, never an error.
    assert.equal(normaliseStatus({ state: 'FAILED', error: 'The real reason', result: 'Partial text' }).error, 'The real reason');
    assert.equal(normaliseStatus({ state: 'SUCCESS', result: 'Done' }).error, undefined);
  });

  it('reads REVOKED as cancelled, RETRY as running, QUEUED/RECEIVED as queued', () => {
    assert.equal(parse(statusBodies.liveRevoked).state, 'cancelled');
    assert.equal(parse(statusBodies.liveRevoked).error, undefined);
    assert.equal(parse(statusBodies.liveRetry).state, 'running');
    assert.equal(parse(statusBodies.liveQueued).state, 'queued');
    assert.equal(parse(statusBodies.liveReceived).state, 'queued');
  });

  it('reads NOT FOUND with HTTP 200 as not found (never success)', () => {
    const reply = statusBodies.liveNotFound200;
    assert.deepEqual(parse(reply), {
      state: 'notFound',
      rawState: 'NOT FOUND',
      message: 'Task not found or Invalid kickoff id',
      tasks: [],
      raw: reply.body,
    });
  });

  it('keeps an unknown state word as unknown with the word preserved', () => {
    const snapshot = parse(statusBodies.liveUnknownWord);
    assert.equal(snapshot.state, 'unknown');
    assert.equal(snapshot.rawState, 'HIBERNATING');
    assert.equal(snapshot.message, 'Sleeping');
  });

  it('parses a body handed over as JSON text', () => {
    assert.equal(normaliseStatus('{"state":"RUNNING"}').state, 'running');
    assert.equal(normaliseStatus('\uFEFF {"status":"completed","result":{"output":"x"}} ').finalOutput?.text, 'x');
  });

  it('shows a result object without `output` whole as JSON', () => {
    assert.deepEqual(normaliseStatus({ state: 'SUCCESS', result: { response: 'hi' } }).finalOutput, {
      kind: 'json',
      text: '{\n  "response": "hi"\n}',
      json: { response: 'hi' },
    });
  });

  it('reads the docs result output when it is itself JSON text', () => {
    assert.deepEqual(normaliseStatus({ status: 'completed', result: { output: '[1,2]' } }).finalOutput, {
      kind: 'json',
      text: '[\n  1,\n  2\n]',
      json: [1, 2],
    });
  });

  it('reads a number result as text and ignores an empty result_json object', () => {
    assert.deepEqual(normaliseStatus({ state: 'SUCCESS', result: 42, result_json: {} }).finalOutput, { kind: 'markdown', text: '42' });
  });
});

describe('normaliseStatus: self-hosted servers returning crewai\'s own objects', () => {
  const messages = [{ role: 'system', content: 'You are a researcher' }, { role: 'assistant', content: 'x'.repeat(5000) }];
  const taskOutputs = [
    { description: 'Research AI agents for engineers', name: 'research_task', expected_output: 'Notes', summary: 'Research AI agents...', raw: '# Notes', pydantic: null, json_dict: null, agent: 'Researcher', output_format: 'raw', messages },
    { description: 'Score the findings', name: null, expected_output: 'JSON', summary: 'Score the findings...', raw: '{"score": 9}', pydantic: null, json_dict: { score: 9 }, agent: 'Analyst', output_format: 'json', messages },
    { description: 'Write the report', name: 'report_task', summary: 'Write the report...', raw: '# Report\n\nAll good.', agent: 'Writer', output_format: 'raw', messages },
  ];
  const tokenUsage = { total_tokens: 1250, prompt_tokens: 800, cached_prompt_tokens: 100, completion_tokens: 450, successful_requests: 6 };
  const crewOutput = { raw: '# Report\n\nAll good.', pydantic: null, json_dict: null, tasks_output: taskOutputs, token_usage: tokenUsage };

  it('a CrewOutput result: the final output is `raw` as Markdown, never the object dumped', () => {
    const snapshot = normaliseStatus({ id: 'r1', status: 'completed', result: crewOutput, duration_seconds: 42.5 });
    assert.equal(snapshot.state, 'succeeded');
    assert.deepEqual(snapshot.finalOutput, { kind: 'markdown', text: '# Report\n\nAll good.' });
  });

  it('prefers json_dict, then pydantic, then raw', () => {
    const json = normaliseStatus({ status: 'completed', result: { ...crewOutput, json_dict: { verdict: 'ship' }, pydantic: { verdict: 'model' } } });
    assert.deepEqual(json.finalOutput?.json, { verdict: 'ship' });
    const pydantic = normaliseStatus({ status: 'completed', result: { ...crewOutput, pydantic: { verdict: 'model' } } });
    assert.deepEqual(pydantic.finalOutput?.json, { verdict: 'model' });
    const emptyDict = normaliseStatus({ status: 'completed', result: { ...crewOutput, json_dict: {} } });
    assert.equal(emptyDict.finalOutput?.kind, 'markdown');
  });

  it('reads its tasks_output as the task outputs (raw, else json_dict; summary names an unnamed task), without the messages', () => {
    const snapshot = normaliseStatus({ status: 'completed', result: crewOutput });
    assert.equal(snapshot.tasksSource, 'tasks_output');
    assert.deepEqual(
      snapshot.tasks.map((task) => [task.name, task.agent, task.output]),
      [
        ['research_task', 'Researcher', '# Notes'],
        ['Score the findings...', 'Analyst', '{"score": 9}'],
        ['report_task', 'Writer', '# Report\n\nAll good.'],
      ],
    );
    assert.ok(!JSON.stringify(snapshot.tasks).includes('You are a researcher'), 'LLM messages are not task output');
    assert.ok(JSON.stringify(snapshot.raw).includes('You are a researcher'), 'but they stay in the raw body');
  });

  it('a TaskOutput with an empty raw falls back to its json_dict', () => {
    const snapshot = normaliseStatus({ status: 'completed', result: { raw: 'done', tasks_output: [{ name: 't', raw: '', json_dict: { a: 1 } }] } });
    assert.equal(snapshot.tasks[0].output, '{"a":1}');
  });

  it('reads its token_usage as the run\'s token usage', () => {
    assert.deepEqual(normaliseStatus({ status: 'completed', result: crewOutput }).usage, tokenUsage);
  });

  it('reads a CrewOutput under `output` as well, and a flow\'s plain value there', () => {
    const snapshot = normaliseStatus({ state: 'Completed', output: crewOutput });
    assert.equal(snapshot.state, 'succeeded');
    assert.equal(snapshot.finalOutput?.text, '# Report\n\nAll good.');
    assert.equal(snapshot.tasks.length, 3);
    assert.equal(normaliseStatus({ status: 'completed', output: 'Flow finished: 3 ideas' }).finalOutput?.text, 'Flow finished: 3 ideas');
  });

  it('a CrewOutput with nothing in it yet gives no output rather than the object', () => {
    assert.equal(normaliseStatus({ status: 'running', result: { raw: '', json_dict: null, tasks_output: [] } }).finalOutput, undefined);
  });

  it('reads duration_seconds, execution_time and elapsed as the duration', () => {
    assert.equal(normaliseStatus({ status: 'completed', duration_seconds: 42.5 }).executionTime, 42.5);
    assert.equal(normaliseStatus({ status: 'completed', execution_time: 7 }).executionTime, 7);
    assert.equal(normaliseStatus({ status: 'running', elapsed: '12.25' }).executionTime, 12.25);
  });

  it('reads state words in any case', () => {
    const cases: [string, RunState][] = [['running', 'running'], ['Running', 'running'], ['completed', 'succeeded'], ['Completed', 'succeeded'], ['error', 'failed'], ['ERROR', 'failed'], ['pending', 'queued'], ['cancelled', 'cancelled']];
    for (const [word, state] of cases) {
      assert.equal(normaliseStatus({ status: word }).state, state, word);
    }
  });

  it('a bare HTTP 404 is not found in the server\'s words, marked as HTTP, unlike the hosted NOT FOUND body', () => {
    const forgotten = normaliseStatus({ detail: 'Run 1234 not found' }, 404);
    assert.equal(forgotten.state, 'notFound');
    assert.equal(forgotten.httpNotFound, true);
    assert.equal(forgotten.message, 'Run 1234 not found');
    const hosted = normaliseStatus({ state: 'NOT FOUND', status: 'Task not found or Invalid kickoff id' }, 200);
    assert.equal(hosted.state, 'notFound');
    assert.equal(hosted.httpNotFound, undefined);
  });
});

describe('normaliseStatus: human in the loop', () => {
  const cases: [keyof typeof statusBodies, string][] = [
    ['pausedWithTaskId', 'task-uuid-1'],
    ['pausedWithPendingTaskId', 'task-uuid-2'],
    ['pausedWithLastTaskId', 'task-uuid-3'],
    ['pausedWithLastTaskTaskId', 'task-uuid-4'],
  ];
  for (const [name, taskId] of cases) {
    it(`finds the task id in ${name}`, () => {
      const snapshot = parse(statusBodies[name]);
      assert.equal(snapshot.state, 'awaitingFeedback');
      assert.deepEqual(snapshot.feedback, { taskId, taskName: 'draft_post', output: 'Draft v1' });
    });
  }

  it('prefers task_id over last_executed_task.id', () => {
    const snapshot = normaliseStatus({ state: 'PAUSED', task_id: 'top', last_executed_task: { id: 'nested', output: 'o' } });
    assert.equal(snapshot.feedback?.taskId, 'top');
  });

  it('still asks for feedback when no task id or output is present', () => {
    const snapshot = parse(statusBodies.pausedNoTaskId);
    assert.equal(snapshot.state, 'awaitingFeedback');
    assert.deepEqual(snapshot.feedback, {});
  });

  it('keeps a flow id', () => {
    assert.deepEqual(parse(statusBodies.pausedFlow).feedback, { flowId: 'flow-uuid-9' });
  });

  it('reads PENDING_HUMAN_INPUT with a numeric task_id and the webhook-style task_output', () => {
    const snapshot = parse(statusBodies.pendingHumanInput);
    assert.equal(snapshot.state, 'awaitingFeedback');
    assert.deepEqual(snapshot.feedback, { taskId: '77', output: 'Output to check' });
  });

  it('falls back to the result as the output to review', () => {
    const snapshot = parse(statusBodies.awaitingHumanInputHyphen);
    assert.equal(snapshot.state, 'awaitingFeedback');
    assert.deepEqual(snapshot.feedback, { output: 'Proposed answer' });
  });

  it('sets no feedback for a running run that happens to carry a task_id', () => {
    assert.equal(normaliseStatus({ state: 'RUNNING', task_id: 'x' }).feedback, undefined);
  });

  it('treats a live NOT FOUND during review as not found, not as feedback (the poller decides)', () => {
    assert.equal(parse(statusBodies.liveNotFound200).feedback, undefined);
  });
});

describe('normaliseStatus: garbage never throws and never guesses an end', () => {
  const garbage: [string, unknown][] = [
    ['null', statusBodies.nullBody.body],
    ['[]', statusBodies.emptyArray.body],
    ['"text"', statusBodies.textBody.body],
    ['42', statusBodies.numberBody.body],
    ['{}', statusBodies.emptyObject.body],
    ['nested nulls', statusBodies.nestedNulls.body],
    ['undefined', undefined],
    ['true', true],
    ['array of statuses', [{ state: 'SUCCESS' }]],
    ['JSON text of an array', '[{"state":"SUCCESS"}]'],
  ];
  for (const [name, body] of garbage) {
    it(`reads ${name} as unknown with the body kept raw`, () => {
      assert.deepEqual(normaliseStatus(body), { state: 'unknown', tasks: [], raw: body });
    });
  }

  it('ignores values of the wrong type field by field', () => {
    const reply = statusBodies.wrongTypes;
    assert.deepEqual(parse(reply), {
      state: 'unknown',
      lastStep: { action: 'just a string' },
      tasks: [],
      usage: { ok: 3 },
      raw: reply.body,
    });
  });

  it('survives a circular tool_input (not JSON, but must not throw)', () => {
    const toolInput: Record<string, unknown> = {};
    toolInput['self'] = toolInput;
    const snapshot = normaliseStatus({ state: 'RUNNING', last_step: { tool: 't', tool_input: toolInput } });
    assert.equal(snapshot.lastStep?.tool, 't');
    // Printed as a bounded copy: cut at the depth limit, not followed round the cycle forever.
    assert.match(snapshot.lastStep?.toolInput ?? '', /^\{"self":\{"self":.*nested deeper than 256 levels/);
  });

  it('never throws on a sweep of odd shapes in every field', () => {
    const oddValues: unknown[] = [null, undefined, 0, -1, 1.5, '', ' ', 'x', true, [], [null], {}, { a: null }, [[[]]]];
    const keys = [
      'state', 'status', 'result', 'result_json', 'progress', 'last_step', 'last_executed_task', 'tasks_output',
      'usage_metrics', 'execution_time', 'current_task', 'error', 'message', 'task_id', 'flow_id',
    ];
    for (const key of keys) {
      for (const value of oddValues) {
        for (const state of ['PAUSED', 'FAILED', 'SUCCESS']) {
          const snapshot = normaliseStatus({ state, [key]: value, progress: { [key]: value }, result: { [key]: value } });
          assert.ok(Array.isArray(snapshot.tasks));
        }
      }
    }
  });
});

describe('interpretOutputText', () => {
  it('treats JSON scalars as text, not JSON', () => {
    assert.deepEqual(interpretOutputText('"quoted"'), { kind: 'markdown', text: '"quoted"' });
    assert.deepEqual(interpretOutputText('12'), { kind: 'markdown', text: '12' });
  });

  it('accepts a bare ``` fence and surrounding whitespace', () => {
    assert.deepEqual(interpretOutputText('  ```\n{"a": true}\n```  '), { kind: 'json', text: '{\n  "a": true\n}', json: { a: true } });
  });

  it('keeps a fence with broken JSON as Markdown', () => {
    assert.deepEqual(interpretOutputText('```json\n{broken\n```'), { kind: 'markdown', text: '```json\n{broken\n```' });
  });

  it('returns undefined for blank text', () => {
    assert.equal(interpretOutputText('  \n '), undefined);
  });
});

// ---- mergeTaskOutputs ----

const running = (lastTask: unknown): StatusSnapshot => normaliseStatus({ state: 'RUNNING', last_executed_task: lastTask });
const draft = (output: string): unknown => ({ name: 'draft_post', output, agent: 'Writer' });

describe('mergeTaskOutputs', () => {
  it('accumulates the latest task of each poll, once each', () => {
    let known: TaskOutput[] = [];
    known = mergeTaskOutputs(known, running({ name: 'a', output: 'A out' }));
    known = mergeTaskOutputs(known, running({ name: 'a', output: 'A out' }));
    known = mergeTaskOutputs(known, running({ name: 'b', output: 'B out' }));
    known = mergeTaskOutputs(known, running({ name: 'b', output: 'B out' }));
    assert.deepEqual(known, [
      { name: 'a', output: 'A out' },
      { name: 'b', output: 'B out' },
    ]);
  });

  it('adds nothing for snapshots without tasks and does not modify the known list', () => {
    const known: readonly TaskOutput[] = Object.freeze([Object.freeze({ name: 'a', output: 'A' })]);
    const merged = mergeTaskOutputs(known, parse(statusBodies.docsRunning));
    assert.deepEqual(merged, [{ name: 'a', output: 'A' }]);
    assert.notEqual(merged, known);
  });

  it('keeps a retried task (new output after feedback) as a new entry with an attempt number', () => {
    let known: TaskOutput[] = [];
    known = mergeTaskOutputs(known, running(draft('Draft v1')));
    known = mergeTaskOutputs(known, running(draft('Draft v2')));
    known = mergeTaskOutputs(known, running(draft('Draft v2')));
    known = mergeTaskOutputs(known, running(draft('Draft v3')));
    assert.deepEqual(known, [
      { name: 'draft_post', output: 'Draft v1', agent: 'Writer' },
      { name: 'draft_post', output: 'Draft v2', agent: 'Writer', attempt: 2 },
      { name: 'draft_post', output: 'Draft v3', agent: 'Writer', attempt: 3 },
    ]);
  });

  it('lets a complete list win (order and fields) while keeping entries it lacks', () => {
    let known: TaskOutput[] = [];
    known = mergeTaskOutputs(known, running('A stray string output'));
    known = mergeTaskOutputs(known, running({ name: 'write_article', output: 'Final article text', id: 'uuid-w' }));
    known = mergeTaskOutputs(known, running({ name: 'collect_facts', output: 'Fact list: 1, 2, 3' }));
    const merged = mergeTaskOutputs(known, parse(statusBodies.liveSuccessTasksOutput));
    assert.deepEqual(merged, [
      { name: 'collect_facts', output: 'Fact list: 1, 2, 3', agent: 'Researcher', description: 'Collect facts' },
      { name: 'write_article', output: 'Final article text', agent: 'Writer', description: 'Write article', taskId: 'uuid-w' },
      { name: UNNAMED_TASK, output: 'A stray string output' },
    ]);
    // Seeing the complete list again changes nothing.
    assert.deepEqual(mergeTaskOutputs(merged, parse(statusBodies.liveSuccessTasksOutput)), merged);
  });

  it('names an unnamed string entry once the complete list reveals the same output', () => {
    const known = mergeTaskOutputs([], running('Fact list: 1, 2, 3'));
    const merged = mergeTaskOutputs(known, parse(statusBodies.liveSuccessTasksOutput));
    assert.deepEqual(merged.map((task) => task.name), ['collect_facts', 'write_article']);
  });

  it('keeps earlier attempts just before the listed final version', () => {
    let known: TaskOutput[] = [];
    known = mergeTaskOutputs(known, running({ name: 'collect_facts', output: 'Facts' }));
    known = mergeTaskOutputs(known, running(draft('Draft v1')));
    known = mergeTaskOutputs(known, running(draft('Draft v2')));
    const complete = normaliseStatus({
      state: 'SUCCESS',
      tasks_output: [
        { name: 'collect_facts', raw: 'Facts' },
        { name: 'draft_post', raw: 'Draft v2' },
        { name: 'publish', raw: 'Published' },
      ],
    });
    assert.deepEqual(mergeTaskOutputs(known, complete), [
      { name: 'collect_facts', output: 'Facts' },
      { name: 'draft_post', output: 'Draft v1', agent: 'Writer' },
      { name: 'draft_post', output: 'Draft v2', agent: 'Writer', attempt: 2 },
      { name: 'publish', output: 'Published' },
    ]);
  });

  it('numbers a listed output never seen while polling as a later attempt', () => {
    const known = mergeTaskOutputs([], running(draft('Draft v1')));
    const complete = normaliseStatus({ state: 'SUCCESS', tasks_output: [{ name: 'draft_post', raw: 'Draft v2' }] });
    assert.deepEqual(mergeTaskOutputs(known, complete), [
      { name: 'draft_post', output: 'Draft v1', agent: 'Writer' },
      { name: 'draft_post', output: 'Draft v2', attempt: 2 },
    ]);
  });

  it('takes the docs result.tasks list as is when nothing was seen before', () => {
    const snapshot = parse(statusBodies.docsCompleted);
    assert.deepEqual(mergeTaskOutputs([], snapshot), snapshot.tasks);
  });

  it('keeps plain-string tasks with different outputs as separate tasks, not attempts', () => {
    let known: TaskOutput[] = [];
    known = mergeTaskOutputs(known, running('First output'));
    known = mergeTaskOutputs(known, running('Second output'));
    known = mergeTaskOutputs(known, running('Second output'));
    assert.deepEqual(known, [
      { name: UNNAMED_TASK, output: 'First output' },
      { name: UNNAMED_TASK, output: 'Second output' },
    ]);
  });

  it('tells tasks apart by id when both sides have one', () => {
    let known: TaskOutput[] = [];
    known = mergeTaskOutputs(known, running({ id: 't1', name: 'same', output: 'one' }));
    known = mergeTaskOutputs(known, running({ id: 't2', name: 'same', output: 'two' }));
    assert.deepEqual(known.map((task) => task.attempt), [undefined, undefined]);
  });
});
