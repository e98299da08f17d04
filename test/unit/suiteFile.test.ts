// Reading suite files (src/suites/core/suiteFile.ts): every problem at its line and column, the rest still usable;
// the caps said, never silent.
import * as assert from 'node:assert/strict';
import { isSuiteFileName, parseSuite } from '../../src/suites/core/suiteFile';
import { SUITE_LIMITS } from '../../src/suites/core/limits';
import type { ParsedSuite } from '../../src/suites/core/types';

/** Problems as `line:column severity message` (1-based, as an editor shows them). */
function problems(parsed: ParsedSuite): string[] {
  return parsed.problems.map((p) => `${p.range.start.line + 1}:${p.range.start.character + 1} ${p.severity} ${p.message}`);
}

const GOOD = `name: Demo suite
crew: https://demo.example.com/crew
concurrency: 2
cases:
  - name: writes about cats
    inputs:
      topic: cats
      audience: { age: 7, likes: [yarn] }
    repeat: 3
    checks:
      state: succeeded
      contains: [cats, "/fel(ine|ix)/i"]
      notContains: error
      equals: { title: cats }
      jsonSchema: { type: object, required: [title] }
      maxSeconds: 30
      maxTokens: 2000
      judge: { criteria: Friendly and accurate, threshold: 0.8 }
  - name: refuses nothing
    inputs: { topic: "" }
    checks:
      state: failed
`;

describe('suite files', () => {
  it('names suite files *.crew-suite.yaml or .yml', () => {
    assert.ok(isSuiteFileName('/w/tests/smoke.crew-suite.yaml'));
    assert.ok(isSuiteFileName('C:\\w\\smoke.crew-suite.yml'));
    assert.ok(!isSuiteFileName('/w/smoke.yaml'));
  });

  it('reads every field and check type of a good suite, with no problem', () => {
    const { suite, problems: found } = parseSuite(GOOD, 'fallback');
    assert.deepEqual(found, []);
    assert.equal(suite.name, 'Demo suite');
    assert.deepEqual(suite.crew, { kind: 'url', url: 'https://demo.example.com/crew' });
    assert.equal(suite.concurrency, 2);
    assert.equal(suite.cases.length, 2);
    const [cats, fails] = suite.cases;
    assert.deepEqual(cats.inputs, { topic: 'cats', audience: { age: 7, likes: ['yarn'] } });
    assert.equal(cats.repeat, 3);
    assert.deepEqual(
      cats.checks.map((c) => c.type),
      ['state', 'contains', 'contains', 'notContains', 'equals', 'jsonSchema', 'maxSeconds', 'maxTokens', 'judge'],
    );
    assert.deepEqual(cats.checks[2], { type: 'contains', matcher: { kind: 'pattern', source: 'fel(ine|ix)', flags: 'i' }, range: cats.checks[2].range });
    assert.deepEqual(cats.checks[8], { type: 'judge', criteria: 'Friendly and accurate', threshold: 0.8, range: cats.checks[8].range });
    // The range of a check is its value's place (0-based): `contains: [cats, …]` is on line 12.
    assert.deepEqual(cats.checks[1].range.start, { line: 11, character: 17 });
    assert.deepEqual(cats.range.start, { line: 4, character: 4 });
    assert.deepEqual(fails.checks, [{ type: 'state', expected: 'failed', range: fails.checks[0].range }]);
  });

  it('a crew by name, a default name and concurrency', () => {
    const { suite, problems: found } = parseSuite('crew: Research Crew\ncases:\n  - name: a\n', 'smoke');
    assert.deepEqual(found, []);
    assert.deepEqual(suite.crew, { kind: 'name', name: 'Research Crew' });
    assert.equal(suite.name, 'smoke');
    assert.equal(suite.concurrency, SUITE_LIMITS.defaultConcurrency);
  });

  it('says each bad thing at its line and column, and keeps the rest of the suite', () => {
    const text = [
      'name: Mixed',
      'concurrency: 40',
      'colour: blue',
      'cases:',
      '  - name: keeps its good checks',
      '    checks:',
      '      smells: nice',
      '      maxSeconds: fast',
      '      contains: ["/(a+)+$/", ok]',
      '      state: maybe',
      '  - name: bad inputs',
      '    inputs: 5',
      '  - inputs: {}',
      '  - name: fine',
      '    repeat: 1000',
      '    checks: { judge: { threshold: 0.5 } }',
    ].join('\n');
    const parsed = parseSuite(text, 'x');
    assert.deepEqual(problems(parsed), [
      '2:14 warning "concurrency" is 16 at most (and 1 at least): 16 is used.',
      '3:1 warning Unknown field "colour" is ignored (known: name, description, crew, concurrency, cases).',
      '7:7 error Unknown check type "smells": the checks are state, contains, notContains, equals, jsonSchema, maxSeconds, maxTokens, judge.',
      '8:19 error "maxSeconds" must be a number of at least 0.',
      '9:18 error The pattern repeats a group that can end in a repeat (at character 5): it could backtrack for ever. End each repetition in something fixed: (\\w+,)* rather than (\\w+)*.',
      '10:14 error "state" is "succeeded" or "failed", not "maybe".',
      '12:13 error "inputs" must be a mapping of input names to values.',
      '11:5 error The case "bad inputs" is left out until its problems are fixed.',
      '13:5 error Case 3 has no name: it is left out.',
      '15:13 warning "repeat" is 100 at most (and 1 at least): 100 is used.',
      '16:22 error A judge needs "criteria": what a good output is, in words.',
    ]);
    assert.deepEqual(
      parsed.suite.cases.map((c) => [c.name, c.repeat, c.checks.map((check) => check.type)]),
      [
        ['keeps its good checks', 1, ['contains']],
        ['fine', 100, []],
      ],
    );
    assert.equal(parsed.suite.concurrency, 16);
    // What was left out stays on the case, so its result can say so (a case never passes with a check left out unseen).
    assert.deepEqual(
      parsed.suite.cases.map((c) => [c.name, (c.leftOut ?? []).map((l) => `${l.range.start.line + 1} ${l.written}`)]),
      [
        ['keeps its good checks', ['7 smells', '8 maxSeconds', '9 contains', '10 state']],
        ['fine', ['16 judge']],
      ],
    );
  });

  it('YAML syntax errors are problems at their place; a file that is no mapping is an empty suite', () => {
    const broken = parseSuite('name: x\ncases:\n  - name: a\n    inputs: { topic: [unclosed\n', 'x');
    assert.ok(broken.problems.some((p) => p.severity === 'error' && p.message.startsWith('YAML:')), JSON.stringify(broken.problems));
    const list = parseSuite('- a\n- b\n', 'x');
    assert.deepEqual(problems(list), ['1:1 error A suite file is a mapping with name, crew and cases.']);
    assert.deepEqual(list.suite.cases, []);
    assert.deepEqual(problems(parseSuite('name: x\n', 'x')), ['1:1 error The suite has no cases: add a "cases:" list.']);
  });

  it('duplicate case names are renamed and said, so each case keeps its own id', () => {
    const parsed = parseSuite('cases:\n  - name: a\n  - name: a\n  - name: a\n', 'x');
    assert.deepEqual(parsed.suite.cases.map((c) => c.name), ['a', 'a (2)', 'a (3)']);
    assert.equal(parsed.problems.length, 2);
    assert.match(parsed.problems[0].message, /Another case is named "a": this one is called "a \(2\)"/);
  });

  it('caps 10,000 cases and says how many were left out', () => {
    const lines = ['cases:'];
    for (let i = 0; i < SUITE_LIMITS.cases + 5; i++) {
      lines.push(`  - name: c${i}`);
    }
    const parsed = parseSuite(lines.join('\n'), 'x');
    assert.equal(parsed.suite.cases.length, SUITE_LIMITS.cases);
    assert.deepEqual(problems(parsed), [`${SUITE_LIMITS.cases + 2}:5 warning Only the first 10,000 cases are read: the 5 after them are left out.`]);
  });

  it('refuses a 5 MB expected output and says so; the case keeps its other checks', () => {
    const big = 'x'.repeat(SUITE_LIMITS.expectedChars + 1);
    const parsed = parseSuite(`cases:\n  - name: big\n    checks:\n      contains: ok\n      equals: "${big}"\n`, 'x');
    assert.deepEqual(problems(parsed), ['5:15 error The expected output is larger than 5 MB: the check is left out. Check a part of it with "contains" or "jsonSchema".']);
    assert.deepEqual(parsed.suite.cases[0].checks.map((c) => c.type), ['contains']);
  });

  it('refuses a file over the size cap whole, and a schema the validator cannot use at its place', () => {
    const huge = parseSuite(' '.repeat(SUITE_LIMITS.fileBytes + 1), 'x');
    assert.match(huge.problems[0].message, /larger than 16 MB/);
    const schema = parseSuite('cases:\n  - name: s\n    checks:\n      jsonSchema: { type: 12 }\n', 'x');
    assert.equal(schema.problems.length, 1);
    assert.match(problems(schema)[0], /^4:19 error The schema cannot be used/);
    const patternInSchema = parseSuite('cases:\n  - name: s\n    checks:\n      jsonSchema: { type: string, pattern: "(a+)+$" }\n', 'x');
    assert.match(problems(patternInSchema)[0], /backtrack for ever/);
  });

  it('a "billion laughs" of aliases is a problem, not a hang', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    }
    lines.push('cases:', '  - name: laughs', '    inputs: { v: *i }');
    const parsed = parseSuite(lines.join('\n'), 'x');
    assert.ok(parsed.problems.some((p) => /cannot be read|alias/i.test(p.message)), JSON.stringify(problems(parsed)));
    assert.deepEqual(parsed.suite.cases, []);
  });

  it('two cases may use different schemas with the same $id', () => {
    const text = [
      'cases:',
      '  - name: a',
      '    checks: { jsonSchema: { $id: "https://example.com/out", type: object } }',
      '  - name: b',
      '    checks: { jsonSchema: { $id: "https://example.com/out", type: array } }',
    ].join('\n');
    const parsed = parseSuite(text, 'x');
    assert.deepEqual(problems(parsed), []);
    assert.deepEqual(parsed.suite.cases.map((c) => c.checks.map((check) => check.type)), [['jsonSchema'], ['jsonSchema']]);
  });

  it('values nested 20,000 deep are problems, never a thrown stack overflow', () => {
    const deep = `cases:\n  - name: a\n    inputs: { v: ${'['.repeat(20_000)}${']'.repeat(20_000)} }\n  - name: b\n`;
    const parsed = parseSuite(deep, 'x');
    assert.ok(parsed.problems.some((p) => p.severity === 'error'));
    assert.deepEqual(parsed.suite.cases.map((c) => c.name), ['b']);
  });
});
