import * as assert from 'node:assert/strict';
import { exportedRows, resultsAsCsv, resultsAsJsonl } from '../../src/batches/core/export';
import { type Batch, outputPreview, unfinishedRerunOf } from '../../src/batches/core/model';
import { parseTable } from '../../src/batches/core/tableReader';
import { filterRows, firstLine, parseBatchPageMessage, type ResultRow, sortRows } from '../../src/batches/page/batchProtocol';
import type * as BatchResultsPanelModule from '../../src/batches/batchResultsPanel';
import type { RunStore } from '../../src/runTracking/runStore';
import type { TraceSettings } from '../../src/runView/traceFeed';
import { requireWithFakeVscode } from './helpers/fakeVscode';

describe('Batch results', () => {
  it('accepts only well-formed page messages and ignores the rest', () => {
    assert.deepEqual(parseBatchPageMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseBatchPageMessage({ type: 'openRun', index: 3 }), { type: 'openRun', index: 3 });
    assert.deepEqual(parseBatchPageMessage({ type: 'action', action: 'exportCsv' }), { type: 'action', action: 'exportCsv' });
    for (const bad of [
      null,
      'ready',
      [],
      { type: 'openRun', index: -1 },
      { type: 'openRun', index: 1.5 },
      { type: 'openRun', index: '2' },
      { type: 'action', action: 'removeBatch' },
      { type: 'action', action: 'command:workbench.action.terminal.new' },
      { type: 'rendered', report: { rowsRendered: 1, renderMs: Infinity } },
      { type: 'command', command: 'crewRuns.removeCrew' },
    ]) {
      assert.equal(parseBatchPageMessage(bad), undefined, JSON.stringify(bad));
    }
    const report = parseBatchPageMessage({ type: 'rendered', report: { rowsRendered: 5, renderMs: 2.5, filter: 'x'.repeat(500), extra: 1 } });
    assert.deepEqual(report, { type: 'rendered', report: { rowsRendered: 5, renderMs: 2.5, sortedBy: undefined, filter: 'x'.repeat(200) } });
  });

  const rows: ResultRow[] = [
    { index: 0, inputs: { topic: 'beta' }, stateKey: 'succeeded', state: 'Succeeded', durationMs: 3000, tokens: 10, output: 'fine', hasRun: true },
    { index: 1, inputs: { topic: 'alpha' }, stateKey: 'failed', state: 'Failed', durationMs: 1000, output: 'ValueError', hasRun: true },
    { index: 2, inputs: { topic: 'gamma' }, stateKey: 'skipped', state: 'skipped: missing input', note: 'Missing: audience', hasRun: false },
  ];

  it('sorts by any column, both ways, and filters by text and state', () => {
    assert.deepEqual(sortRows(rows, 'input:topic', false).map((r) => r.index), [1, 0, 2]);
    assert.deepEqual(sortRows(rows, 'duration', true).map((r) => r.index), [0, 1, 2]);
    assert.deepEqual(sortRows(rows, 'row', true).map((r) => r.index), [2, 1, 0]);
    assert.deepEqual(filterRows(rows, 'VALUEerror', '').map((r) => r.index), [1]);
    assert.deepEqual(filterRows(rows, 'missing', '').map((r) => r.index), [2]);
    assert.deepEqual(filterRows(rows, '', 'succeeded').map((r) => r.index), [0]);
  });

  it('finds a failed row by its error, sorts by it, and draws the error\'s first line that says something (#52)', () => {
    const failed: ResultRow = { index: 7, inputs: { topic: 'z' }, stateKey: 'failed', state: 'failed', error: '\n  ValueError: the importer broke\nTraceback (most recent call last):', hasRun: false };
    const all = [...rows, failed];
    assert.deepEqual(filterRows(all, 'importer BROKE', '').map((r) => r.index), [7]);
    assert.deepEqual(filterRows(all, 'traceback', '').map((r) => r.index), [7], 'the whole error, not just its first line');
    assert.equal(sortRows(all, 'error', true)[0].index, 7);
    assert.equal(firstLine(failed.error!), 'ValueError: the importer broke');
    assert.equal(firstLine('one line'), 'one line');
    assert.equal(firstLine('\n \n'), '');
  });

  it('exports JSON Lines and CSV that read back the same, outputs with commas, quotes and line breaks included', async () => {
    const batch: Batch = {
      version: 1,
      id: 'b',
      crewUrl: 'http://c',
      crewName: 'C',
      source: 's.csv',
      createdAt: 0,
      inputNames: ['topic', 'audience'],
      concurrency: 3,
      cancelled: false,
      rows: [
        { index: 0, inputs: { topic: 'a, "b"', audience: 'x' }, status: 'sent', kickoffId: 'k0', result: { state: 'succeeded' } },
        { index: 1, inputs: { topic: 'c', audience: '' }, status: 'skipped', note: 'Missing: audience' },
        { index: 2, inputs: { topic: 'd', audience: 'y' }, status: 'sent', kickoffId: 'k2', result: { state: 'failed' } },
      ],
    };
    const outputs = new Map([
      [0, { row: 0, output: '# Title\n\nLine, with "quotes"' }],
      [2, { row: 2, error: 'ValueError: boom' }],
    ]);
    const exported = await exportedRows({ readOutputs: async () => outputs }, batch);
    assert.deepEqual(exported.map((r) => [r.state, r.kickoff_id, r.output, r.error]), [
      ['succeeded', 'k0', '# Title\n\nLine, with "quotes"', ''],
      ['skipped', '', '', 'Missing: audience'],
      ['failed', 'k2', '', 'ValueError: boom'],
    ]);
    const jsonl = resultsAsJsonl(exported).trim().split('\n').map((l) => JSON.parse(l) as unknown);
    assert.deepEqual(jsonl, exported);
    const csv = parseTable(resultsAsCsv(exported, ['topic', 'audience']), 'csv');
    assert.deepEqual(csv.columns, ['row', 'topic', 'audience', 'state', 'kickoff_id', 'output', 'error']);
    csv.rows.forEach((row, i) => {
      assert.equal(row.topic, exported[i].inputs.topic);
      assert.equal(row.output, exported[i].output);
      assert.equal(row.error, exported[i].error);
    });
  });

  it('exports crew output and errors to CSV so that a spreadsheet never runs them as formulas', () => {
    const row = (output: string, error: string) => ({ row: 1, inputs: { topic: '=SUM(1,2)' }, state: 'succeeded', kickoff_id: 'k', output, error });
    const hostile = ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'];
    const csv = parseTable(resultsAsCsv(hostile.map((text) => row(text, text)), ['topic']), 'csv');
    csv.rows.forEach((parsed, i) => {
      assert.equal(parsed.output, `'${hostile[i]}`);
      assert.equal(parsed.error, `'${hostile[i]}`);
      // The inputs are the user's own and stay as they were, so the file is a batch source again.
      assert.equal(parsed.topic, '=SUM(1,2)');
    });
  });

  it('exports fullwidth, small and space-led formula leaders inert too (NFKC before the check)', () => {
    const row = (output: string) => ({ row: 1, inputs: { topic: 'x' }, state: 'succeeded', kickoff_id: 'k', output, error: '' });
    const hostile = ['＝1+1', '＋1', '－1+2', '＠SUM(A1)', '﹦1+1', ' =1+1', '\u3000=1+1', '\u00a0+1', '\n=1', '\u200b=1', ' \t@x'];
    const csv = parseTable(resultsAsCsv(hostile.map(row), ['topic']), 'csv');
    assert.deepEqual(csv.rows.map((r) => r.output), hostile.map((text) => `'${text}`));
    const plain = ['plain', 'x = 1', '１+1', ' a', 'naïve'];
    assert.deepEqual(parseTable(resultsAsCsv(plain.map(row), ['topic']), 'csv').rows.map((r) => r.output), plain);
  });

  it('finds an unfinished re-run of a batch (Re-run Failed Rows refuses a second one)', () => {
    const base = { version: 1 as const, crewUrl: 'http://c', crewName: 'C', source: 'x.csv', concurrency: 1, createdAt: 1, cancelled: false };
    const source: Batch = { ...base, id: 'a', rows: [{ index: 0, inputs: {}, status: 'notSent' }] };
    const running: Batch = { ...base, id: 'b', rerunOf: 'a', rows: [{ index: 0, inputs: {}, status: 'queued' }] };
    const done: Batch = { ...base, id: 'c', rerunOf: 'a', rows: [{ index: 0, inputs: {}, status: 'notSent' }] };
    const cancelled: Batch = { ...base, id: 'd', rerunOf: 'a', cancelled: true, rows: [{ index: 0, inputs: {}, status: 'cancelled' }] };
    assert.equal(unfinishedRerunOf([source, done, running], 'a')?.id, 'b');
    assert.equal(unfinishedRerunOf([source, done], 'a'), undefined);
    assert.equal(unfinishedRerunOf([source, cancelled], 'a'), undefined, 'a cancelled re-run with nothing running is over');
    assert.equal(unfinishedRerunOf([source, running], 'b'), undefined);
  });

  it('an output preview is one line with no control or bidi characters', () => {
    assert.equal(outputPreview('a\u202Eevil\u2066x\u2069\u200F\n\tb\u0007c'), 'aevilx bc');
    assert.equal(outputPreview(undefined), undefined);
  });
});

describe('Batch results table (#52, finding 9)', () => {
  it('gives the page a row\'s reason apart from its output: the run\'s error (lines kept, controls out, capped) or why it was not sent', () => {
    const { buildBatchTable } = requireWithFakeVscode<typeof BatchResultsPanelModule>(require.resolve('../../src/batches/batchResultsPanel'));
    const long = `ValueError: the importer broke\u202E\nTraceback (most recent call last):\n${'  File "x.py", line 1\n'.repeat(400)}`;
    const batch: Batch = {
      version: 1,
      id: 'b',
      crewUrl: 'https://crew.example',
      crewName: 'Crew',
      source: 'rows.csv',
      createdAt: 0,
      concurrency: 1,
      cancelled: false,
      rows: [
        { index: 0, inputs: { topic: 'a' }, status: 'sent', result: { state: 'succeeded', outputPreview: '# Notes' } },
        { index: 1, inputs: { topic: 'b' }, status: 'sent', result: { state: 'failed', error: long } },
        { index: 2, inputs: { topic: '' }, status: 'skipped', note: 'Missing: topic' },
      ],
    };
    const runs = { get: () => undefined } as unknown as RunStore;
    const table = buildBatchTable(batch, runs, [], { prices: {}, modelFor: () => undefined } as unknown as TraceSettings);
    assert.deepEqual(table.rows.map((r) => r.output), ['# Notes', undefined, undefined], 'no error in the output');
    assert.equal(table.rows[0].error, undefined);
    const error = table.rows[1].error!;
    assert.ok(error.startsWith('ValueError: the importer broke\nTraceback'), 'lines kept, the bidi override gone');
    assert.equal(error.length, 4000);
    assert.ok(error.endsWith('…'));
    assert.equal(table.rows[2].error, 'Missing: topic');
  });
});
