// Text and pattern checks of suites (src/suites/core/pattern.ts): a pattern that would backtrack for ever never
// freezes the host — refused by its shape before it runs, or stopped by the timeout and not run again.
import * as assert from 'node:assert/strict';
import { nestedQuantifier, parseTextMatcher, patternProblem, PatternRunner } from '../../src/suites/core/pattern';
import { CHECK_LIMITS } from '../../src/suites/core/limits';

describe('suite text and pattern checks', () => {
  it('reads /source/flags as a pattern and anything else as text', () => {
    assert.deepEqual(parseTextMatcher('/fel(ine|ix)/i'), { kind: 'pattern', source: 'fel(ine|ix)', flags: 'i' });
    assert.deepEqual(parseTextMatcher('/usr/bin'), { kind: 'text', text: '/usr/bin' });
    assert.deepEqual(parseTextMatcher('//'), { kind: 'text', text: '//' });
    assert.deepEqual(parseTextMatcher('cats'), { kind: 'text', text: 'cats' });
  });

  it('finds nested unbounded quantifiers, and lets ordinary patterns through', () => {
    for (const bad of ['(a+)+$', '(a*)*', '(?:\\w+\\s?)+$', '((ab)+)*', '(x+x+)+y', '(a+){2,}', '(?<n>a+)+', '([a-z]+)*$', '(a|b+)*', '((a+)?)+', '(a+(b)?)*']) {
      assert.notEqual(nestedQuantifier(bad), undefined, bad);
    }
    for (const fine of ['fel(ine|ix)', '\\d+(\\.\\d+)?', '(ab)+', '[(+]+', '\\(a+\\)+', '(a+)?', '(a+){2}', '^\\s*\\{.*\\}\\s*$', 'a{1,3}b*', '(\\d+,)*', '(\\w+\\s)+$', '(?:[a-z]+\\.)+[a-z]+']) {
      assert.equal(nestedQuantifier(fine), undefined, fine);
    }
  });

  it('refuses bad syntax, stateful flags and over-long patterns with a reason', () => {
    assert.match(patternProblem('(a', '')!, /not a valid pattern/);
    assert.match(patternProblem('a', 'g')!, /flags "g" are not allowed/);
    assert.match(patternProblem('a', 'ii')!, /not allowed/);
    assert.match(patternProblem('a'.repeat(1001), '')!, /longer than 1000/);
    assert.match(patternProblem('(a+)+$', '')!, /backtrack for ever/);
    assert.equal(patternProblem('fel(ine|ix)', 'iu'), undefined);
  });

  it('/(a+)+$/ on "aaaa…!" is refused before it runs: the check returns, it never reaches the engine', () => {
    const runner = new PatternRunner();
    const result = runner.test({ kind: 'pattern', source: '(a+)+$', flags: '' }, `${'a'.repeat(5000)}!`);
    assert.ok('error' in result && /backtrack for ever/.test(result.error));
    assert.equal(runner.runs, 0);
  });

  it('a backtracking pattern the shape check lets through is stopped by the timeout, then refused without running again', () => {
    const runner = new PatternRunner(50);
    const pattern = { kind: 'pattern', source: '(a|aa)+$', flags: '' } as const;
    assert.equal(patternProblem(pattern.source, pattern.flags), undefined);
    const first = runner.test(pattern, `${'a'.repeat(200)}!`);
    assert.ok('error' in first && /was stopped/.test(first.error), JSON.stringify(first));
    const second = runner.test(pattern, `${'a'.repeat(200)}!`);
    assert.deepEqual(second, first);
    assert.equal(runner.runs, 1, 'the timed-out pattern ran once');
    // The runner still works for other patterns afterwards.
    assert.deepEqual(runner.test({ kind: 'pattern', source: 'b+', flags: '' }, 'abbbc'), { matched: true });
  });

  it('matches text and patterns, and says when only the start of a long output was read', () => {
    const runner = new PatternRunner();
    assert.deepEqual(runner.test({ kind: 'text', text: 'cat' }, 'a cat'), { matched: true });
    assert.deepEqual(runner.test({ kind: 'pattern', source: 'CAT', flags: 'i' }, 'a cat'), { matched: true });
    assert.deepEqual(runner.test({ kind: 'pattern', source: '^dog', flags: 'm' }, 'a cat\ndog'), { matched: true });
    const long = `${'x'.repeat(CHECK_LIMITS.matchInputChars)}needle`;
    assert.deepEqual(runner.test({ kind: 'pattern', source: 'needle', flags: '' }, long), { matched: false, cut: true });
  });
});
