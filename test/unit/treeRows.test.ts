// Issue #52, findings 1 and 6, the pure part: what a run row says and where (its name, then its whole state,
// then what may be cut), and when its text next moves on with time alone (so the tree wakes for that row
// only then). The drawn page is checked by the integration suite "Tree labels at the default width".
import * as assert from 'node:assert/strict';
import type * as RunRowsModule from '../../src/sidebar/runRows';
import type * as FormatModule from '../../src/ui/format';
import type * as BatchesTreeModule from '../../src/batches/batchesTree';
import type { Batch } from '../../src/batches/core/model';
import { makeRun } from './chatTools.test';
import { requireWithFakeVscode } from './helpers/fakeVscode';

const runRows = requireWithFakeVscode<typeof RunRowsModule>(require.resolve('../../src/sidebar/runRows'));
const format = requireWithFakeVscode<typeof FormatModule>(require.resolve('../../src/ui/format'));

const LONG = 'Crew Runs onboarding research for the s…';
const NOW = Date.UTC(2026, 0, 1, 12);

describe('tree rows (#52)', () => {
  it('a batch row\'s number and the time follow the state where the whole name fits with them; "#2" ends the label, short', () => {
    const short = runRows.runRow(makeRun({ label: 'Edge', state: 'succeeded', finishedAt: NOW, batch: { source: 'edge.csv', row: 1 } }), { stopHidden: false }, NOW);
    assert.equal(short.label, 'Edge');
    assert.equal(short.description, 'succeeded · row 1', 'the row\'s number before the time, which has no room left');
    const batch = runRows.runRow(makeRun({ label: 'Edge cases of the importer', state: 'succeeded', finishedAt: NOW, batch: { source: 'edge.csv', row: 1 } }), { stopHidden: false }, NOW);
    assert.match(batch.label, /^Edge cases of t/, `the name keeps its room: ${batch.label}`);
    assert.equal(batch.description, 'succeeded', 'a longer name: the number and the time give way whole, to the tooltip');
    const second = runRows.runRow(makeRun({ label: LONG, state: 'succeeded', finishedAt: NOW }), { stopHidden: false, ordinal: 2 }, NOW);
    assert.match(second.label, /^Crew Runs on…/, `the name keeps its room: ${second.label}`);
    assert.match(second.label, /… #2$/, 'the ordinal ends the label, so look-alikes differ as drawn');
    assert.equal(second.description, 'succeeded');
    const aged = runRows.runRow(makeRun({ label: 'Aged', state: 'succeeded', finishedAt: NOW - 12 * 60_000 }), { stopHidden: false }, NOW);
    assert.equal(aged.description, 'succeeded · 12 min ago', 'a short name leaves room for the time');
  });

  it('a suite case\'s run says "eval" after its state, and its tooltip which suite and case (#50)', () => {
    const run = makeRun({ label: 'cats, friendly', state: 'succeeded', finishedAt: NOW, batch: { source: 'Echo Crew › writes about its topic', row: 1, suite: true } });
    assert.equal(runRows.runRow(run, { stopHidden: false }, NOW).description, 'succeeded · eval', 'as a batch row\'s number: after the state (the time has no room left at the default width)');
    const tooltip = runRows.runTooltip(run, {}) as unknown as { value: string };
    assert.match(tooltip.value, /\$\(beaker\) Eval\\: Echo Crew › writes about its topic/);
    assert.doesNotMatch(tooltip.value, /Row 1/);
  });

  it('the label gives way to the whole state, also with two action icons; a waiting run\'s progress is left out', () => {
    const waiting = runRows.runRow(makeRun({ label: LONG, needsFeedback: true, state: 'awaitingFeedback', progress: { completed: 1, total: 2, unit: 'task' } }), { stopHidden: false }, NOW);
    assert.equal(waiting.description, 'needs feedback');
    assert.ok(waiting.label.length >= 8 && waiting.label.endsWith('…'), waiting.label);
    const running = runRows.runRow(makeRun({ label: LONG, progress: { completed: 0, total: 1, unit: 'task' } }), { stopHidden: false }, NOW);
    assert.equal(running.description, 'running', 'the progress and the time give way before the name');
    assert.ok(running.label.length > waiting.label.length, 'one icon fewer: more of the name');
    const shortRunning = runRows.runRow(makeRun({ label: 'Short', startedAt: NOW, progress: { completed: 0, total: 1, unit: 'task' } }), { stopHidden: false }, NOW);
    assert.equal(shortRunning.description, 'running 0/1 · <1m', 'a short name keeps them');
  });

  it('a task row keeps its name whole: its agent follows only where all of it fits (the tooltip has it anyway)', () => {
    const task = (name: string, agent: string, current = false) => runRows.taskTreeItem({ runId: 'r', task: { name, agent, output: '' }, index: 0, current });
    assert.equal(task('review_task', 'Editor').description, 'Editor', 'a short agent fits');
    const long = task('research_task', 'Senior Research Analyst');
    assert.equal(long.label, 'research_task');
    assert.ok(!long.description, `the agent would be cut at the default width: ${String(long.description)}`);
    assert.equal(task('research_task', 'Senior Research Analyst', true).description, 'in progress', 'the task under way says so');
  });

  it('a run no longer watched says why instead of the state it last saw, which its tooltip keeps', () => {
    const stopped = makeRun({ label: 'Stopped in window A while it ran', state: 'running', watching: false, stopReason: 'user' });
    const row = runRows.runRow(stopped, { stopHidden: false }, NOW);
    assert.equal(row.description, 'not watching');
    assert.match(row.label, /^Stopped in/);
    assert.match(runRows.runTooltip(stopped, {}, NOW).value, /running · not watching/);
    const noToken = runRows.runRow(makeRun({ state: 'running', watching: false, stopReason: 'noToken' }), { stopHidden: false }, NOW);
    assert.equal(noToken.description, 'no token');
  });

  it('the tooltip has what the row leaves out: the row\'s number, the progress, the time', () => {
    const run = makeRun({ label: 'Edge cases of the importer', state: 'succeeded', finishedAt: NOW - 5 * 60_000, batch: { source: 'edge.csv', row: 3 } });
    const tooltip = runRows.runTooltip(run, {}, NOW).value;
    assert.match(tooltip, /succeeded · 5 min ago/);
    assert.match(tooltip, /Row 3 of edge/);
  });

  it('says when its text next changes: the next minute, hour, day…', () => {
    const ended = NOW - 30_000;
    const row = runRows.runRow(makeRun({ state: 'succeeded', finishedAt: ended }), { stopHidden: false }, NOW);
    assert.equal(row.changesAt, ended + 60_000);
    assert.equal(format.formatRelative(ended, row.changesAt! - 1), format.formatRelative(ended, NOW), 'the same text until then');
    assert.notEqual(format.formatRelative(ended, row.changesAt!), format.formatRelative(ended, NOW), 'another one then');
    for (const age of [0, 59_999, 60_000, 5 * 60_000 + 1, 3_600_000 - 1, 3_600_000, 5 * 3_600_000 + 7, 86_400_000 * 2 + 5, 86_400_000 * 40, 86_400_000 * 364, 86_400_000 * 800]) {
      const at = NOW - age;
      const next = format.relativeChangesAt(at, NOW);
      assert.ok(next > NOW, `after now (age ${age})`);
      assert.equal(format.formatRelative(at, next - 1), format.formatRelative(at, NOW), `unchanged before (age ${age})`);
      assert.notEqual(format.formatRelative(at, next), format.formatRelative(at, NOW), `changed at (age ${age})`);
    }
    const running = runRows.runRow(makeRun({ startedAt: NOW - 90_000 }), { stopHidden: false }, NOW);
    assert.equal(running.changesAt, NOW - 90_000 + 120_000);
    const stopped = runRows.runRow(makeRun({ watching: false }), { stopHidden: false }, NOW);
    assert.equal(stopped.changesAt, undefined, 'a row without a time never changes by itself');
  });

  it('an imported crew whose redeploy failed: the build log’s first error next to it, clipped, and whole in the tooltip (#51)', () => {
    const error = 'pip install failed: No matching distribution found for crewai-tools==0.0.0-missing';
    const item = runRows.crewTreeItem({ name: 'Research', url: 'https://research.example', source: 'user' } as never, {
      hasChildren: false,
      activity: undefined,
      hasToken: true,
      health: 'ready',
      deployment: { state: 'failed', words: 'Provisioning Failed, try again.', firstError: error },
    });
    assert.equal(item.description, 'ready · deploy failed: pip install failed: No matching distribution found for crew…');
    const tooltip = (item.tooltip as { value: string }).value;
    assert.match(tooltip, /First error in the build log\\: pip install failed\\: No matching/);
    assert.match(tooltip, /crewai\\-tools\\=\\=0\\.0\\.0\\-missing$/, "the whole line");
    const online = runRows.crewTreeItem({ name: 'Research', url: 'https://research.example', source: 'user' } as never, { hasChildren: false, activity: undefined, hasToken: true, health: 'ready', deployment: { state: 'online', words: 'Crew is Online', firstError: error } });
    assert.equal(online.description, 'ready · online');
  });
});

// #52 (the walkthrough): the Batches view's row read "Self-hosted Crew: t… 3/3 · 1 failed": the crew's name kept,
// the file that tells two batches apart cut to one letter.
describe('a batch\'s row (#52)', () => {
  it('is named by its file first, then its crew: the file stays in sight at the default width', () => {
    const { batchItem } = requireWithFakeVscode<typeof BatchesTreeModule>(require.resolve('../../src/batches/batchesTree'));
    const rows = ['one', 'two', 'three'].map((topic, index) => ({ index, inputs: { topic }, status: 'sent' as const, kickoffId: `k-${index}`, result: { state: index === 1 ? ('failed' as const) : ('succeeded' as const), finishedAt: NOW } }));
    const item = batchItem({ id: 'b-1', crewUrl: 'https://crew.example', crewName: 'Self-hosted Crew', source: 'topics.csv', inputNames: ['topic'], concurrency: 3, createdAt: NOW, rows } as unknown as Batch);
    assert.match(String(item.label), /^topics\.csv on Self-h/, `the file first, whole: ${String(item.label)}`);
    assert.equal(item.description, '3/3 · 1 failed');
  });
});
