// A case's checks on a finished run's facts (src/suites/core/checks.ts): pass, fail, skipped or error, each with
// expected vs actual and, for equals, a short diff.
import * as assert from 'node:assert/strict';
import { caseOutcome, evaluateCase, evaluateChecks, evaluateDeterministic } from '../../src/suites/core/checks';
import { parseSuite } from '../../src/suites/core/suiteFile';
import { shortDiff } from '../../src/suites/core/diff';
import { factsFromSnapshot } from '../../src/suites/core/facts';
import { PatternRunner } from '../../src/suites/core/pattern';
import type { Check, RunFacts } from '../../src/suites/core/types';
import type { StatusSnapshot } from '../../src/api/types';

const at = { start: { line: 3, character: 4 }, end: { line: 3, character: 9 } };
const ok: RunFacts = { state: 'succeeded', output: 'A friendly note about cats.\nMeow.', durationSeconds: 12.34, totalTokens: 1500 };

function one(check: Check, facts: RunFacts = ok) {
  assert.notEqual(check.type, 'judge');
  return evaluateDeterministic(check as Exclude<Check, { type: 'judge' }>, facts, new PatternRunner());
}

describe('suite checks', () => {
  it('state: passes on the expected end, a case may expect a failure, and says the crew\'s error', () => {
    assert.equal(one({ type: 'state', expected: 'succeeded', range: at }).status, 'passed');
    const expectedFailure = one({ type: 'state', expected: 'failed', range: at }, { state: 'failed', error: 'Tool exploded' });
    assert.equal(expectedFailure.status, 'passed');
    const unexpected = one({ type: 'state', expected: 'succeeded', range: at }, { state: 'failed', error: 'Tool\nexploded' });
    assert.deepEqual(
      { status: unexpected.status, message: unexpected.message, expected: unexpected.expected, actual: unexpected.actual, range: unexpected.range },
      { status: 'failed', message: 'Expected the run to have succeeded; it failed. (Tool exploded)', expected: 'succeeded', actual: 'failed', range: at },
    );
    assert.match(one({ type: 'state', expected: 'succeeded', range: at }, { state: 'timedOut' }).message, /still running at the deadline/);
  });

  it('contains and notContains: text and patterns, with the output as the actual value', () => {
    assert.equal(one({ type: 'contains', matcher: { kind: 'text', text: 'cats' }, range: at }).status, 'passed');
    assert.equal(one({ type: 'contains', matcher: { kind: 'pattern', source: '^meow', flags: 'im' }, range: at }).status, 'passed');
    const missing = one({ type: 'contains', matcher: { kind: 'text', text: 'dogs' }, range: at });
    assert.equal(missing.status, 'failed');
    assert.equal(missing.message, 'Expected the output to contain "dogs"; it does not.');
    assert.equal(missing.actual, ok.output);
    const present = one({ type: 'notContains', matcher: { kind: 'pattern', source: 'c.ts', flags: '' }, range: at });
    assert.equal(present.message, 'Expected the output not to contain /c.ts/; it does.');
    assert.equal(one({ type: 'notContains', matcher: { kind: 'text', text: 'error' }, range: at }).status, 'passed');
  });

  it('text checks read a failed run\'s error when it has no output; no text at all fails', () => {
    const failed: RunFacts = { state: 'failed', error: 'Rate limit reached' };
    assert.equal(one({ type: 'contains', matcher: { kind: 'text', text: 'Rate limit' }, range: at }, failed).status, 'passed');
    assert.match(one({ type: 'contains', matcher: { kind: 'text', text: 'x' }, range: at }, { state: 'succeeded' }).message, /no output/);
  });

  it('a catastrophic pattern is an error of that check, never a hang', () => {
    const result = one({ type: 'contains', matcher: { kind: 'pattern', source: '(a+)+$', flags: '' }, range: at }, { state: 'succeeded', output: `${'a'.repeat(10_000)}!` });
    assert.equal(result.status, 'error');
    assert.match(result.message, /backtrack for ever/);
  });

  it('equals text: line endings and ends ignored; a difference gives expected, actual and a short diff', () => {
    assert.equal(one({ type: 'equals', expected: 'A friendly note about cats.\r\nMeow.\n', range: at }).status, 'passed');
    const differs = one({ type: 'equals', expected: 'A friendly note about cats.\nWoof.', range: at });
    assert.equal(differs.status, 'failed');
    assert.equal(differs.diff, '@@ line 2 @@\n-Woof.\n+Meow.');
    assert.equal(differs.expected, 'A friendly note about cats.\nWoof.');
  });

  it('equals JSON: the output read as JSON (the crew\'s JSON, or text, or a ```json fence), deep equality', () => {
    assert.equal(one({ type: 'equals', expected: { a: [1, 2] }, range: at }, { state: 'succeeded', outputJson: { a: [1, 2] }, output: '{}' }).status, 'passed');
    assert.equal(one({ type: 'equals', expected: { a: 1 }, range: at }, { state: 'succeeded', output: '```json\n{"a": 1}\n```' }).status, 'passed');
    const differs = one({ type: 'equals', expected: { a: 1 }, range: at }, { state: 'succeeded', output: '{"a": 2}' });
    assert.equal(differs.status, 'failed');
    assert.equal(differs.diff, '@@ line 2 @@\n-  "a": 1\n+  "a": 2');
    assert.match(one({ type: 'equals', expected: { a: 1 }, range: at }).message, /it is not JSON/);
  });

  it('jsonSchema: matches, says the first errors, and not-JSON fails', () => {
    const schema = { type: 'object', required: ['title'], properties: { title: { type: 'string', pattern: '^[A-Z]' } } };
    assert.equal(one({ type: 'jsonSchema', schema, range: at }, { state: 'succeeded', outputJson: { title: 'Cats' } }).status, 'passed');
    const bad = one({ type: 'jsonSchema', schema, range: at }, { state: 'succeeded', outputJson: { title: 'cats' } });
    assert.equal(bad.status, 'failed');
    assert.equal(bad.message, 'The output does not match the schema: /title must match pattern "^[A-Z]"');
    assert.match(one({ type: 'jsonSchema', schema, range: at }, { state: 'succeeded', outputJson: {} }).message, /must have required property 'title'/);
    assert.match(one({ type: 'jsonSchema', schema, range: at }).message, /it is not JSON/);
  });

  it('maxSeconds and maxTokens: pass, fail with both figures, skipped when the run does not say', () => {
    assert.equal(one({ type: 'maxSeconds', seconds: 20, range: at }).status, 'passed');
    assert.equal(one({ type: 'maxSeconds', seconds: 10, range: at }).message, 'Expected the run to take at most 10 s; it took 12.3 s.');
    assert.equal(one({ type: 'maxTokens', tokens: 1000, range: at }).message, 'Expected the run to use at most 1000 tokens; it used 1500.');
    assert.equal(one({ type: 'maxTokens', tokens: 1000, range: at }, { state: 'succeeded', output: 'x' }).status, 'skipped');
    assert.equal(one({ type: 'maxSeconds', seconds: 1, range: at }, { state: 'succeeded', output: 'x' }).status, 'skipped');
  });

  it('evaluateChecks: an implicit "state: succeeded" when the case has none; the judge skipped without a model', async () => {
    const checks: Check[] = [
      { type: 'contains', matcher: { kind: 'text', text: 'cats' }, range: at },
      { type: 'judge', criteria: 'Friendly', threshold: 0.5, range: at },
    ];
    const results = await evaluateChecks(checks, ok, { patterns: new PatternRunner() });
    assert.deepEqual(results.map((r) => [r.type, r.status]), [['state', 'passed'], ['contains', 'passed'], ['judge', 'skipped']]);
    assert.equal(results[2].message, 'Skipped: no language model.');
    assert.equal(caseOutcome(results, ok), 'passed');
    const failedRun = await evaluateChecks(checks, { state: 'failed', error: 'boom' }, { patterns: new PatternRunner() });
    assert.equal(caseOutcome(failedRun, { state: 'failed' }), 'failed');
  });

  it('a case whose only checks were skipped is skipped, not passed by its implicit state check', async () => {
    const judgeOnly: Check[] = [{ type: 'judge', criteria: 'Friendly', threshold: 0.5, range: at }];
    const results = await evaluateChecks(judgeOnly, ok, { patterns: new PatternRunner() });
    assert.deepEqual(results.map((r) => [r.type, r.status]), [['state', 'passed'], ['judge', 'skipped']]);
    assert.equal(caseOutcome(results, ok), 'skipped');
    // Its run failing still fails it.
    assert.equal(caseOutcome(await evaluateChecks(judgeOnly, { state: 'failed' }, { patterns: new PatternRunner() }), { state: 'failed' }), 'failed');
    // A case without any check passes on its run's success alone.
    assert.equal(caseOutcome(await evaluateChecks([], ok, { patterns: new PatternRunner() }), ok), 'passed');
  });

  it('caseOutcome: failed beats error beats skipped; all skipped is skipped', () => {
    const r = (status: 'passed' | 'failed' | 'skipped' | 'error') => ({ type: 'maxTokens' as const, status, message: '' });
    assert.equal(caseOutcome([r('passed'), r('error'), r('failed')], ok), 'failed');
    assert.equal(caseOutcome([r('passed'), r('error')], ok), 'error');
    assert.equal(caseOutcome([r('skipped'), r('skipped')], ok), 'skipped');
    assert.equal(caseOutcome([r('skipped'), r('passed')], ok), 'passed');
    assert.equal(caseOutcome([], { state: 'failed' }), 'failed');
  });

  it('shortDiff is bounded in lines and line length', () => {
    const a = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const b = Array.from({ length: 100 }, (_, i) => `LINE ${i} ${'x'.repeat(500)}`).join('\n');
    const diff = shortDiff(a, b).split('\n');
    assert.ok(diff.length <= 23, String(diff.length));
    assert.ok(diff.every((line) => line.length <= 201));
    assert.equal(diff[0], '@@ line 1 @@');
  });

  it('facts from a status snapshot: output, JSON, tokens, duration and the error', () => {
    const snapshot = {
      state: 'succeeded',
      tasks: [],
      raw: {},
      finalOutput: { kind: 'json', text: '{\n  "a": 1\n}', json: { a: 1 } },
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    } as StatusSnapshot;
    assert.deepEqual(factsFromSnapshot(snapshot, 4), { state: 'succeeded', output: '{\n  "a": 1\n}', outputJson: { a: 1 }, durationSeconds: 4, totalTokens: 15 });
    const failed = { state: 'failed', tasks: [], raw: {}, message: 'Tool failed', executionTime: 3, usage: { total_tokens: 99 } } as StatusSnapshot;
    assert.deepEqual(factsFromSnapshot(failed, 10), { state: 'failed', durationSeconds: 3, totalTokens: 99, error: 'Tool failed' });
  });
});

describe('suite checks: a check the file wrote but could not be read', () => {
  it('makes the case an error, never a pass, and says which check and why', async () => {
    const { suite } = parseSuite('cases:\n  - name: a broken check\n    checks:\n      smells: nice\n', 'x');
    const results = await evaluateCase(suite.cases[0], { state: 'succeeded', output: 'fresh bread' }, { patterns: new PatternRunner() });
    assert.deepEqual(
      results.map((r) => [r.type, r.status]),
      [
        ['unreadable', 'error'],
        ['state', 'passed'],
      ],
    );
    assert.match(results[0].message, /^The check "smells" was not run: Unknown check type "smells"/);
    assert.equal(results[0].range?.start.line, 3);
    assert.equal(caseOutcome(results, { state: 'succeeded' }), 'error');
  });
});
