// A suite run kept and compared with a baseline (src/suites/core/baseline.ts), and written as JUnit XML and Markdown
// (src/suites/core/reports.ts).
import * as assert from 'node:assert/strict';
import { compareSuiteRuns, comparisonSummary, hasRegressions } from '../../src/suites/core/baseline';
import { junitXml, markdownSummary, xml } from '../../src/suites/core/reports';
import { outcomeLine, suiteItems, suiteRunFailed, tallySuiteRun } from '../../src/suites/core/suiteRun';
import type { Suite, SuiteItemResult, SuiteRunRecord } from '../../src/suites/core/types';

const at = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

function item(itemId: string, outcome: SuiteItemResult['outcome'], extra: Partial<SuiteItemResult> = {}): SuiteItemResult {
  return { itemId, caseName: itemId, repeat: 1, outcome, checks: [], ...extra };
}

function run(id: string, items: SuiteItemResult[]): SuiteRunRecord {
  return { version: 1, id, suiteName: 'Demo', crewUrl: 'http://127.0.0.1:1/c', startedAt: Date.UTC(2026, 0, 2), finishedAt: Date.UTC(2026, 0, 2, 0, 1), items };
}

const judged = (score: number) => [{ type: 'judge' as const, status: 'passed' as const, message: 'ok', score }];

describe('suite runs, baseline and reports', () => {
  it('expands cases into items per repeat, and picks chosen cases', () => {
    const suite: Suite = {
      name: 's',
      concurrency: 1,
      range: at,
      cases: [
        { name: 'a', inputs: {}, repeat: 1, checks: [], range: at },
        { name: 'b', inputs: {}, repeat: 3, checks: [], range: at },
      ],
    };
    assert.deepEqual(suiteItems(suite).map((i) => i.id), ['a', 'b #1', 'b #2', 'b #3']);
    assert.deepEqual(suiteItems(suite, new Set(['a'])).map((i) => i.id), ['a']);
  });

  it('tallies a run and fails CI on a failed or errored item only', () => {
    const record = run('r', [item('a', 'passed', { durationSeconds: 2, totalTokens: 10, estimatedCostUsd: 0.01 }), item('b', 'skipped'), item('c', 'failed', { durationSeconds: 1 })]);
    assert.deepEqual(tallySuiteRun(record), { passed: 1, failed: 1, skipped: 1, error: 0, total: 3, durationSeconds: 3, totalTokens: 10, estimatedCostUsd: 0.01 });
    assert.equal(suiteRunFailed(record), true);
    assert.equal(suiteRunFailed(run('r', [item('a', 'passed'), item('b', 'skipped')])), false);
    assert.equal(outcomeLine({ passed: 3, failed: 1, skipped: 2, error: 0 }), '3 passed, 1 failed, 2 skipped');
  });

  it('names pass→fail, fixed, dropped scores, slower and costlier items past their thresholds, new and gone', () => {
    const baseline = run('base', [
      item('regresses', 'passed'),
      item('fixed', 'failed'),
      item('judged', 'passed', { checks: judged(0.9) }),
      item('nudged', 'passed', { checks: judged(0.9) }),
      item('slow', 'passed', { durationSeconds: 10 }),
      item('slightly slow', 'passed', { durationSeconds: 1 }),
      item('costly', 'passed', { totalTokens: 1000 }),
      item('pricier', 'passed', { estimatedCostUsd: 0.01, totalTokens: 100 }),
      item('gone', 'passed'),
    ]);
    const current = run('now', [
      item('regresses', 'error'),
      item('fixed', 'passed'),
      item('judged', 'passed', { checks: judged(0.6) }),
      item('nudged', 'passed', { checks: judged(0.85) }),
      item('slow', 'passed', { durationSeconds: 20 }),
      item('slightly slow', 'passed', { durationSeconds: 2 }),
      item('costly', 'passed', { totalTokens: 2000 }),
      item('pricier', 'passed', { estimatedCostUsd: 0.03, totalTokens: 100 }),
      item('new', 'passed'),
    ]);
    const comparison = compareSuiteRuns(current, baseline);
    assert.deepEqual(comparison.regressions, [{ itemId: 'regresses', from: 'passed', to: 'error' }]);
    assert.deepEqual(comparison.fixed, [{ itemId: 'fixed', from: 'failed', to: 'passed' }]);
    assert.deepEqual(comparison.scoreDrops, [{ itemId: 'judged', check: 0, from: 0.9, to: 0.6 }]);
    assert.deepEqual(comparison.slower, [{ itemId: 'slow', from: 10, to: 20 }]);
    assert.deepEqual(comparison.costlier, [
      { itemId: 'costly', from: 1000, to: 2000, unit: 'tokens' },
      { itemId: 'pricier', from: 0.01, to: 0.03, unit: 'usd' },
    ]);
    assert.deepEqual([comparison.added, comparison.removed], [['new'], ['gone']]);
    assert.ok(hasRegressions(comparison));
    assert.equal(
      comparisonSummary(comparison),
      '1 went from pass to fail: "regresses". 1 judge scores dropped: "judged". 1 slower: "slow". 2 costlier: "costly", "pricier". 1 fixed: "fixed". 1 new, 1 gone.',
    );
    assert.equal(comparisonSummary(compareSuiteRuns(baseline, baseline)), 'No change from the baseline.');
  });

  it('JUnit XML: counts, one testcase per item, failure/error/skipped with messages, everything escaped', () => {
    const hostile = 'a <b> & "c" \'d\' \u0000\u001b\uFFFE ]]> \uD800 end';
    const record = run('r', [
      item('passes', 'passed', { durationSeconds: 1.5 }),
      item('fails <1>', 'failed', { checks: [{ type: 'equals', status: 'failed', message: hostile, diff: '@@ line 1 @@\n-a\n+b' }], runId: 'k-1' }),
      item('errs', 'error', { checks: [{ type: 'judge', status: 'error', message: "Error: the judge's answer was not a score (asked 3 times)." }] }),
      item('skips', 'skipped', { checks: [{ type: 'judge', status: 'skipped', message: 'Skipped: no language model.' }] }),
    ]);
    const text = junitXml(record);
    assert.match(text, /<testsuite name="Demo" tests="4" failures="1" errors="1" skipped="1" time="1.500"/);
    assert.match(text, /<testcase name="fails &lt;1&gt;" classname="Demo" time="0.000">/);
    assert.ok(text.includes('<failure message="a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;  ]]&gt;  end" type="equals">'), text);
    assert.match(text, /<error message="Error: the judge&apos;s answer was not a score \(asked 3 times\)\." type="judge">/);
    assert.match(text, /<skipped message="Skipped: no language model\."\/>/);
    assert.ok(!/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uD800]/.test(text), 'no character XML 1.0 cannot hold');
    assert.ok(text.includes('\n-a\n+b\nrun: k-1</failure>'), 'the diff is in the failure text');
    assert.equal(xml('a\nb "c"', true), 'a\nb "c"');
    assert.equal(xml('\uD83D\uDE00 \uDE00\uD83D x', true), '\uD83D\uDE00  x', 'pairs kept, lone surrogates dropped');
    assert.equal(xml('a\nb "c"'), 'a&#10;b &quot;c&quot;');
    // Well-formed enough for a strict reader: every element opened is closed.
    const opened = [...text.matchAll(/<(testsuites|testsuite|testcase|failure|error|system-out|properties)\b/g)].length;
    const closed = [...text.matchAll(/<\/(testsuites|testsuite|testcase|failure|error|system-out|properties)>/g)].length;
    assert.equal(opened, closed);
    assert.equal(xml('x'.repeat(20_000)).length, 16 * 1024 + 1);
  });

  it('Markdown: the tally, the comparison, and the items that did not pass, the crew\'s text inert', () => {
    const record = run('r', [item('ok', 'passed', { durationSeconds: 3, totalTokens: 40 }), item('bad', 'failed', { checks: [{ type: 'contains', status: 'failed', message: 'See [here](command:evil) <img src=x>' }] })]);
    const baseline = run('b', [item('ok', 'passed'), item('bad', 'passed')]);
    const text = markdownSummary(record, compareSuiteRuns(record, baseline));
    assert.match(text, /^## Suite Demo\n/);
    assert.ok(text.includes('**1 passed, 1 failed · 3 s · 40 tokens** — against `http://127.0.0.1:1/c`'), text);
    assert.ok(text.includes('Compared with the run of 2026-01-02 00:00 UTC: 1 went from pass to fail\\: \\"bad\\"\\.'), text);
    assert.ok(text.includes('| bad | failed | See \\[here\\]\u2060\\(command\\:evil\\) \\<img src\\=x\\> |'), text);
    assert.ok(!text.includes('](command:'));
  });
});
