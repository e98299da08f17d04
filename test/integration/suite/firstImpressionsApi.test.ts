// Issue 20, item 12, as a user reads it in the Crew Runs log: a three-task crew's run names each finished
// task once (the last body lists every task again) and in the order things happened.
import * as assert from 'assert';
import type { CrewConfig, Simulator } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import { waitForLog } from '../helpers';
import { type Api, addSimulatorCrews, cleanUp, kickOff, runLogLines, testApi, waitForRun } from './support/monitoring';

const THREE_TASKS: CrewConfig = {
  id: 'three',
  name: 'Three Tasks',
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 500,
  // The live dialect reports only the last task's output: a task is named in order only if a poll sees it
  // ended before the next one does. After a change the poller waits 1.25 s, then 1.9, then 2.8: 4.5 s tasks
  // always get a poll in between, with 3 s to spare for a busy machine (2.5 s tasks could be skipped under load).
  tasks: [
    { name: 'research_task', agent: 'Researcher', durationMs: 4500, output: 'Notes on {topic}.' },
    { name: 'analysis_task', agent: 'Analyst', durationMs: 4500, output: 'Scores for {topic}.' },
    { name: 'reporting_task', agent: 'Reporter', durationMs: 4500, output: '# Report on {topic}' },
  ],
};

describe('First impressions › log', function () {
  this.timeout(120_000);
  let api: Api;
  let sim: Simulator;
  const runIds = new Set<string>();

  before(async () => {
    api = await testApi();
    sim = await startSimulator({ timeScale: 1, dialect: 'live', crews: [THREE_TASKS], seed: 3 });
  });

  after(async () => {
    await cleanUp(api, runIds);
    await sim?.close();
  });

  it('the log names each finished task once, before what comes next, and the run ends after its last task', async () => {
    const crews = await addSimulatorCrews(api, sim, 'Log');
    const runId = await kickOff(crews.three.url, { topic: 'Order' });
    runIds.add(runId);
    const run = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the run succeeded');
    await waitForLog(/Order\] Final output:/);
    const lines = await runLogLines(run);
    const finished = lines.filter((line) => / finished /.test(line));
    assert.deepStrictEqual(
      finished,
      ['info: Task research_task finished (Researcher)', 'info: Task analysis_task finished (Analyst)', 'info: Task reporting_task finished (Reporter)'],
      JSON.stringify(lines),
    );
    const at = (line: string) => lines.indexOf(line);
    assert.ok(at('info: Task research_task finished (Researcher)') < at('info: Working on analysis_task (Analyst)'), JSON.stringify(lines));
    assert.ok(at('info: Task analysis_task finished (Analyst)') < at('info: Working on reporting_task (Reporter)'), JSON.stringify(lines));
    assert.ok(at('info: Task reporting_task finished (Reporter)') < at('info: Run succeeded'), JSON.stringify(lines));
    assert.ok(at('info: Run succeeded') < at('info: Final output:'), JSON.stringify(lines));
  });
});
