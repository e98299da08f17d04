// Issue 14, finding 3: merging task outputs runs on every poll; a crew listing tens of thousands of tasks must cost
// time linear in them, and only the first MAX_TASK_OUTPUTS are kept (the log says so).
import * as assert from 'node:assert/strict';
import { normaliseStatus } from '../../src/api/normalize';
import type { StatusSnapshot, TaskOutput } from '../../src/api/types';
import { describeChanges } from '../../src/runTracking/changes';
import { MAX_TASK_OUTPUTS, mergeTaskOutputs } from '../../src/runTracking/taskMerge';
import { changeLine } from '../../src/runs/runChangeText';

import { manyTasksStatusBody } from '../fixtures/hostileCorpus';

/** Tasks whose `output` counts how often it is read: a linear merge reads each a few times, a quadratic one thousands. */
function countingTasks(count: number, make: (i: number) => Omit<TaskOutput, 'output'> & { output: string }): { tasks: TaskOutput[]; reads: () => number } {
  let reads = 0;
  const tasks = Array.from({ length: count }, (_, i) => {
    const { output, ...rest } = make(i);
    const task = { ...rest } as TaskOutput;
    Object.defineProperty(task, 'output', { enumerable: true, get: () => (reads++, output) });
    return task;
  });
  return { tasks, reads: () => reads };
}

function complete(tasks: TaskOutput[]): StatusSnapshot {
  return { state: 'running', rawState: 'RUNNING', tasks, tasksSource: 'result' } as StatusSnapshot;
}

describe('task merging with huge task lists (issue 14, finding 3)', () => {
  it('32,000 listed tasks: the first MAX_TASK_OUTPUTS are kept, in order, and merging again changes nothing', () => {
    const snapshot = normaliseStatus(JSON.parse(manyTasksStatusBody(32_000)), 200);
    assert.equal(snapshot.tasksListed, 32_000, 'the body really lists 32,000 tasks');
    const once = mergeTaskOutputs([], snapshot);
    assert.equal(once.length, MAX_TASK_OUTPUTS);
    assert.deepEqual(once.slice(0, 2).map((t) => t.name), ['task 0', 'task 1']);
    assert.equal(once[MAX_TASK_OUTPUTS - 1].name, `task ${MAX_TASK_OUTPUTS - 1}`);
    assert.deepEqual(mergeTaskOutputs(once, snapshot), once);
  });

  for (const [what, make] of [
    ['distinct tasks', (i: number) => ({ name: `task ${i}`, taskId: `id${i}`, output: `out ${i}` })],
    ['one name, one output, distinct ids', (i: number) => ({ name: 'same', taskId: `id${i}`, output: 'same output' })],
    ['one name, distinct outputs, no ids', (i: number) => ({ name: 'same', output: `out ${i}` })],
    ['unnamed tasks with one output', () => ({ name: 'Unnamed task', output: 'same output' })],
  ] as const) {
    it(`reads each task's output a bounded number of times: ${what} (complete list and latest-task bodies)`, () => {
      const known = countingTasks(3000, make);
      const listed = countingTasks(3000, make);
      mergeTaskOutputs(known.tasks, complete(listed.tasks));
      mergeTaskOutputs(known.tasks, { ...complete(listed.tasks), tasksSource: 'last_executed_task' });
      describeChanges(complete(known.tasks), complete(listed.tasks), known.tasks, listed.tasks);
      const perTask = (known.reads() + listed.reads()) / 6000;
      assert.ok(perTask < 25, `${perTask.toFixed(1)} reads of each task's output`);
    });
  }

  it('says in the log how many tasks a crew listed and how many are kept, and names at most 20 per poll', () => {
    const snapshot = normaliseStatus(JSON.parse(manyTasksStatusBody(32_000)), 200);
    const lines = describeChanges(undefined, snapshot, [], mergeTaskOutputs([], snapshot)).map((change) => changeLine(change).text);
    assert.ok(lines.includes(`The crew listed 32000 tasks; only the first ${MAX_TASK_OUTPUTS} are kept.`), lines.join('\n'));
    assert.ok(lines.length <= 25, `${lines.length} lines`);
    assert.ok(lines.includes(`${MAX_TASK_OUTPUTS - 20} more tasks finished`), lines.join('\n'));
  });
});
