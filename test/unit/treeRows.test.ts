// Issue #52, findings 1 and 6, the pure part: what a run row says and where (its name, then its whole state,
// then what may be cut), and when its text next moves on with time alone (so the tree wakes for that row
// only then). The drawn page is checked by the integration suite "Tree labels at the default width".
import * as assert from 'node:assert/strict';
import type * as RunRowsModule from '../../src/crews/runRows';
import type * as FormatModule from '../../src/ui/format';
import { makeRun } from './chatTools.test';
import { requireWithFakeVscode } from './helpers/fakeVscode';

const runRows = requireWithFakeVscode<typeof RunRowsModule>(require.resolve('../../src/crews/runRows'));
const format = requireWithFakeVscode<typeof FormatModule>(require.resolve('../../src/ui/format'));

const LONG = 'Crew Runs onboarding research for the s…';
const NOW = Date.UTC(2026, 0, 1, 12);

describe('tree rows (#52)', () => {
  it('a batch row\'s number follows the state; "#2" ends the label, short', () => {
    const batch = runRows.runRow(makeRun({ label: 'Edge cases of the importer', state: 'succeeded', finishedAt: NOW, batch: { source: 'edge.csv', row: 1 } }), { stopHidden: false }, NOW);
    assert.match(batch.label, /^Edge cases of t/, `the name keeps its room: ${batch.label}`);
    assert.equal(batch.description, 'succeeded · row 1 · just now');
    const second = runRows.runRow(makeRun({ label: LONG, state: 'succeeded', finishedAt: NOW }), { stopHidden: false, ordinal: 2 }, NOW);
    assert.match(second.label, /^Crew Runs on…/, `the name keeps its room: ${second.label}`);
    assert.match(second.label, /… #2$/, 'the ordinal ends the label, so look-alikes differ as drawn');
    assert.equal(second.description, 'succeeded · just now');
  });

  it('a suite case\'s run says "eval" after its state, and its tooltip which suite and case (#50)', () => {
    const run = makeRun({ label: 'cats, friendly', state: 'succeeded', finishedAt: NOW, batch: { source: 'Echo Crew › writes about its topic', row: 1, suite: true } });
    assert.equal(runRows.runRow(run, { stopHidden: false }, NOW).description, 'succeeded · eval · just now');
    const tooltip = runRows.runTooltip(run, {}) as unknown as { value: string };
    assert.match(tooltip.value, /\$\(beaker\) Eval\\: Echo Crew › writes about its topic/);
    assert.doesNotMatch(tooltip.value, /Row 1/);
  });

  it('the label gives way to the whole state, also with two action icons; a waiting run\'s progress is left out', () => {
    const waiting = runRows.runRow(makeRun({ label: LONG, needsFeedback: true, state: 'awaitingFeedback', progress: { completed: 1, total: 2, unit: 'task' } }), { stopHidden: false }, NOW);
    assert.ok(waiting.description.startsWith('needs feedback · '), waiting.description);
    assert.ok(waiting.label.length >= 8 && waiting.label.endsWith('…'), waiting.label);
    const running = runRows.runRow(makeRun({ label: LONG, progress: { completed: 0, total: 1, unit: 'task' } }), { stopHidden: false }, NOW);
    assert.ok(running.description.startsWith('running 0/1 · '), running.description);
    assert.ok(running.label.length > waiting.label.length, 'one icon fewer: more of the name');
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
});
