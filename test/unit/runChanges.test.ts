// A run's change events (runTracking/changes.ts) and the log's words for them (runs/runChangeText.ts).
// Issue 20, item 12: the log wrote "Task research_task finished" twice and some lines out of order. A run's
// changes are worked out from what the run had accumulated, not from the previous body alone.
import * as assert from 'node:assert/strict';
import { normaliseStatus } from '../../src/api/normalize';
import type { StatusSnapshot } from '../../src/api/types';
import { describeChanges } from '../../src/runTracking/changes';
import type { RunChange } from '../../src/runTracking/model';
import { mergeTaskOutputs } from '../../src/runTracking/taskMerge';
import { foldSnapshot } from '../../src/runTracking/snapshotFold';
import { feedbackAnswered, newRun } from '../../src/runTracking/transitions';
import { changeLine, changeLines } from '../../src/runs/runChangeText';

import { type Reply, statusBodies } from '../fixtures/crewApiBodies';

/** The log's line, with the error level marked. */
const word = (changes: RunChange[]): string[] =>
  changes.map((change) => {
    const { text, error } = changeLine(change);
    return error ? `error: ${text}` : text;
  });

const parse = (reply: Reply): StatusSnapshot => normaliseStatus(reply.body, reply.httpStatus);

/** As a run sees two polls: the tasks it had accumulated after `previous`, then after `next`. */
function described(previous: StatusSnapshot | undefined, next: StatusSnapshot): string[] {
  const before = previous === undefined ? [] : mergeTaskOutputs([], previous);
  return word(describeChanges(previous, next, before, mergeTaskOutputs(before, next)));
}

const task = (name: string, output: string) => ({ name, agent: `${name} agent`, output });

/** A live crew of three tasks, as the service reports it poll after poll: only the latest task, then the whole list. */
const polls = [
  { state: 'RUNNING', status: 'Running', progress: { unit: 'task', completed: 0, total: 3, current: 'research_task' } },
  { state: 'RUNNING', status: 'Running', progress: { unit: 'task', completed: 1, total: 3, current: 'analysis_task' }, last_executed_task: task('research_task', 'Notes') },
  { state: 'RUNNING', status: 'Running', progress: { unit: 'task', completed: 2, total: 3, current: 'reporting_task' }, last_executed_task: task('analysis_task', 'Scores') },
  {
    state: 'SUCCESS',
    status: null,
    progress: { unit: 'task', completed: 3, total: 3 },
    last_executed_task: task('reporting_task', 'Report'),
    result: { raw: 'Report', tasks_output: [task('research_task', 'Notes'), task('analysis_task', 'Scores'), task('reporting_task', 'Report')] },
  },
];

function runLines(): string[][] {
  const { record, details } = newRun('r1', { crewUrl: 'https://crew.example', crewName: 'Crew', kickoffId: 'k1', inputs: {} }, 0);
  return polls.map((body, i) => word(foldSnapshot(record, details, normaliseStatus(body), i + 1)));
}

describe('run change events (issue 20, item 12)', () => {
  it('names each finished task once over the whole run, even when the last body lists every task again', () => {
    const finished = runLines().flat().filter((line) => /finished/.test(line));
    assert.deepEqual(finished, ['Task research_task finished (research_task agent)', 'Task analysis_task finished (analysis_task agent)', 'Task reporting_task finished (reporting_task agent)']);
  });

  it('says what finished before what comes next, and the run ends after its last task', () => {
    const [first, second, , last] = runLines();
    assert.deepEqual(first, ['Run is running', 'Progress: 0 of 3 tasks', 'Working on research_task']);
    assert.deepEqual(second, ['Task research_task finished (research_task agent)', 'Progress: 1 of 3 tasks', 'Working on analysis_task']);
    assert.deepEqual(last, ['Task reporting_task finished (reporting_task agent)', 'Progress: 3 of 3 tasks', 'Run succeeded']);
  });
});

describe('an unfamiliar status body (issue 31)', () => {
  it('keeps the last known state: a paused run stays waiting, with no new "waiting" change when it pauses again', () => {
    const { record, details } = newRun('r1', { crewUrl: 'https://crew.example', crewName: 'Crew', kickoffId: 'k1', inputs: {} }, 0);
    const paused = { state: 'PAUSED', status: 'Waiting for review', task_id: 'task-1', last_executed_task: task('draft_post', 'Draft v1') };
    const first = word(foldSnapshot(record, details, normaliseStatus(paused), 1));
    assert.ok(first.some((line) => /feedback/i.test(line)), `the first pause is told: ${JSON.stringify(first)}`);
    for (const [i, body] of [{}, { message: 'busy' }, { state: 'REBALANCING' }].entries()) {
      const between = word(foldSnapshot(record, details, normaliseStatus(body), 2 + 2 * i));
      assert.equal(record.state, 'awaitingFeedback', `${JSON.stringify(body)} keeps the run waiting`);
      assert.equal(record.needsFeedback, true);
      assert.equal(record.taskId, 'task-1');
      assert.deepEqual(between, [], `${JSON.stringify(body)} changes nothing`);
      const again = word(foldSnapshot(record, details, normaliseStatus(paused), 3 + 2 * i));
      assert.deepEqual(again, [], 'the same pause is not told again');
    }
    assert.deepEqual(details.history.map((h) => h.state), ['queued', 'awaitingFeedback']);
  });

  it('a pause the service still reports just after it took the feedback is not a new wait (one notice per round)', () => {
    const { record: started, details } = newRun('r1', { crewUrl: 'https://crew.example', crewName: 'Crew', kickoffId: 'k1', inputs: {} }, 0);
    const paused = { state: 'PAUSED', status: 'Waiting for review', task_id: 'task-1', last_executed_task: task('draft_post', 'Draft v1') };
    foldSnapshot(started, details, normaliseStatus(paused), 1_000);
    assert.equal(started.needsFeedback, true);
    const round = { at: 2_000, approve: false, feedback: 'shorter', taskId: 'task-1', output: 'Draft v1' };
    const record = feedbackAnswered(started, details, round, 2_000);
    assert.equal(record.needsFeedback, false);
    // The status lags: the same pause, a moment later.
    const stale = word(foldSnapshot(record, details, normaliseStatus(paused), 3_000));
    assert.equal(record.state, 'running');
    assert.equal(record.needsFeedback, false, 'not waiting again');
    assert.ok(!stale.some((line) => /feedback|wait/i.test(line)), `no wait is told: ${JSON.stringify(stale)}`);
    // The task ran again and pauses with its new output: that is the next round's wait.
    const next = { ...paused, last_executed_task: task('draft_post', 'Draft v2') };
    foldSnapshot(record, details, normaliseStatus(next), 5_000);
    assert.equal(record.needsFeedback, true, 'a new output to review is a new wait');
  });

  it('the same pause long after the feedback is a wait again (the crew produced the same output)', () => {
    const { record: started, details } = newRun('r1', { crewUrl: 'https://crew.example', crewName: 'Crew', kickoffId: 'k1', inputs: {} }, 0);
    const paused = { state: 'PAUSED', task_id: 'task-1', last_executed_task: task('draft_post', 'Draft v1') };
    foldSnapshot(started, details, normaliseStatus(paused), 1_000);
    const record = feedbackAnswered(started, details, { at: 2_000, approve: false, feedback: 'again', taskId: 'task-1', output: 'Draft v1' }, 2_000);
    foldSnapshot(record, details, normaliseStatus(paused), 2_000 + 5 * 60_000);
    assert.equal(record.needsFeedback, true);
  });

  it('still shows "unknown" for a run that never had a state Crew Runs knows', () => {
    const { record, details } = newRun('r1', { crewUrl: 'https://crew.example', crewName: 'Crew', kickoffId: 'k1', inputs: {} }, 0);
    foldSnapshot(record, details, normaliseStatus({ state: 'REBALANCING' }), 1);
    assert.equal(record.state, 'unknown');
  });
});

describe('describeChanges', () => {
  it('describes a first snapshot in full', () => {
    assert.deepEqual(described(undefined, parse(statusBodies.liveRunningFullCrew)), [
      'Run is running',
      'Task collect_facts finished (Researcher)',
      'Progress: 1 of 3 tasks',
      'Working on draft_post (Writer)',
    ]);
  });

  it('returns [] when only timestamps and counters changed', () => {
    const before = statusBodies.liveRunningFullCrew.body;
    const after = {
      ...before,
      events_count: 10,
      progress: { ...before.progress, updated_at: '2026-10-01T09:02:00Z', duration_seconds: 120 },
    };
    assert.deepEqual(described(normaliseStatus(before), normaliseStatus(after)), []);
  });

  it('reports progress and a new current task', () => {
    const before = normaliseStatus({ state: 'RUNNING', progress: { completed: 1, total: 3, current: 'a' } });
    const after = normaliseStatus({ state: 'RUNNING', progress: { completed: 2, total: 3, current: 'b' } });
    assert.deepEqual(described(before, after), ['Progress: 2 of 3 tasks', 'Working on b']);
  });

  it('reports flow progress as a step, not a fraction', () => {
    assert.deepEqual(described(parse(statusBodies.liveRunningFlowNoUnit), parse(statusBodies.liveRunningFlowNullTotal)), ['Progress: step 3']);
  });

  it('reports a failure with its error, at the error level', () => {
    assert.deepEqual(described(parse(statusBodies.liveStarted), parse(statusBodies.liveFailed)), [
      'Run failed',
      "error: TypeError: 'NoneType' object is not subscriptable",
    ]);
  });

  it('reports success after the task that finished it', () => {
    assert.deepEqual(described(parse(statusBodies.liveStarted), parse(statusBodies.liveSuccessOnlyLastTask)), ['Task wrap_up finished', 'Run succeeded']);
  });

  it('reports waiting for feedback with the task name, and a retried output', () => {
    const paused = parse(statusBodies.pausedWithTaskId);
    assert.deepEqual(described(parse(statusBodies.liveStarted), paused), ['Task draft_post finished', 'Run is waiting for human feedback on draft_post']);
    const pausedAgain = normaliseStatus({ state: 'PAUSED', last_executed_task: { name: 'draft_post', output: 'Draft v2' } });
    assert.deepEqual(described(paused, pausedAgain), ['Task draft_post has a new output']);
  });

  it('reports an unfamiliar state word once, and a different one again', () => {
    const first = parse(statusBodies.liveUnknownWord);
    assert.deepEqual(described(parse(statusBodies.liveStarted), first), ['Service reported an unfamiliar state "HIBERNATING"; still watching']);
    assert.deepEqual(described(first, parse(statusBodies.liveUnknownWord)), []);
    assert.deepEqual(described(first, normaliseStatus({ state: 'DREAMING' })), ['Service reported an unfamiliar state "DREAMING"; still watching']);
  });

  it('reports not found without calling the run finished', () => {
    assert.deepEqual(described(parse(statusBodies.liveStarted), parse(statusBodies.liveNotFound200)), [
      'Service does not know this run (it may still be starting, paused for review, or expired)',
    ]);
  });

  it('says so when a body carries no state at all', () => {
    assert.deepEqual(described(undefined, normaliseStatus(null)), ['Service sent a status without a state; still watching']);
  });

  it('a task name that reads like an error stays at the info level', () => {
    const next = normaliseStatus({ state: 'RUNNING', last_executed_task: { name: 'Error: x', output: 'o' } });
    assert.deepEqual(described(normaliseStatus({ state: 'RUNNING' }), next), ['Task Error: x finished']);
  });
});

describe('a run pausing for review (issue 52, item 12)', () => {
  it('names the waiting task once: no "Working on" it in the poll that says it waits for feedback on it', () => {
    const lines = changeLines([
      { kind: 'progress', unit: 'task', completed: 2, total: 3 },
      { kind: 'working', task: 'review_task', agent: 'Chief Editor' },
      { kind: 'state', state: 'awaitingFeedback', feedbackTask: 'review_task' },
    ]).map((l) => l.text);
    assert.deepEqual(lines, ['Progress: 2 of 3 tasks', 'Run is waiting for human feedback on review_task']);
  });

  it('keeps "Working on" another task, and any task while the run is not waiting', () => {
    assert.deepEqual(
      changeLines([
        { kind: 'working', task: 'draft_task' },
        { kind: 'state', state: 'awaitingFeedback', feedbackTask: 'review_task' },
      ]).map((l) => l.text),
      ['Working on draft_task', 'Run is waiting for human feedback on review_task'],
    );
    assert.deepEqual(changeLines([{ kind: 'working', task: 'review_task' }]).map((l) => l.text), ['Working on review_task']);
  });
});
