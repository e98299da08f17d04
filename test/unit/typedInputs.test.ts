// Issue #52, finding 4, the pure part: a value checked against the type the crew declared, in words for
// that type, and a JSON text's first error said as what is missing and where, for a one-line box.
import * as assert from 'node:assert/strict';
import { typedFromText, typeProblem } from '../../src/kickoff/core/inputSteps';
import { jsonProblem } from '../../src/kickoff/jsonProblem';

describe('typed inputs (#52)', () => {
  const score = { name: 'max_score', type: 'integer', default: '10' };

  it('a whole number, a number, true or false, one of the allowed values', () => {
    assert.equal(typeProblem(score, 7), undefined);
    assert.equal(typeProblem(score, 7.5), 'max_score takes a whole number, for example 10.');
    assert.equal(typeProblem(score, '7'), 'max_score takes a whole number, for example 10.');
    assert.equal(typeProblem({ name: 'n', type: 'int' }, 'ten'), 'n takes a whole number, for example 10.', 'no default: an example of its own');
    assert.equal(typeProblem({ name: 'ratio', type: 'number' }, 0.5), undefined);
    assert.equal(typeProblem({ name: 'ratio', type: 'float' }, 'half'), 'ratio takes a number, for example 0.5.');
    assert.equal(typeProblem({ name: 'dry_run', type: 'boolean' }, 'yes'), 'dry_run takes true or false.');
    assert.equal(typeProblem({ name: 'dry_run', type: 'bool' }, false), undefined);
    const tone = { name: 'tone', enum: ['neutral', 'upbeat', 'critical'] };
    assert.equal(typeProblem(tone, 'upbeat'), undefined);
    assert.equal(typeProblem(tone, 'angry'), 'tone takes one of: neutral, upbeat, critical.');
    assert.equal(typeProblem({ name: 'topic', type: 'string' }, 42), undefined, 'text takes anything: the crew may read a number as text');
    assert.equal(typeProblem(score, ''), undefined, 'empty is for the step to judge (required or not)');
  });

  it('text typed for a number or true/false is read as one', () => {
    assert.equal(typedFromText(score, ' 7 '), 7);
    assert.equal(typedFromText(score, 'ten'), 'ten');
    assert.equal(typedFromText({ name: 'b', type: 'boolean' }, 'true'), true);
    assert.equal(typedFromText({ name: 'topic' }, '7'), undefined, 'a text input is not read');
  });

  it('says what a JSON text lacks and where, without a line and column', () => {
    assert.equal(jsonProblem('d', '{"topic": "Rust"}'), undefined);
    assert.equal(jsonProblem('d', '{"topic": "Rust", "questions_and_answers": []'), 'The value of "d" is not valid JSON: a closing "}" is missing at the end.');
    assert.equal(jsonProblem('d', '[1, 2'), 'The value of "d" is not valid JSON: a closing "]" is missing at the end.');
    assert.equal(jsonProblem('d', '{"a": 1 "b": 2}'), 'The value of "d" is not valid JSON: a comma is missing after “{"a": 1”.');
    assert.equal(jsonProblem('d', '[1,]'), 'The value of "d" is not valid JSON: a value is missing after “[1,”.');
    assert.equal(jsonProblem('d', '{"topic": "Rust'), 'The value of "d" is not valid JSON: a closing double quote is missing at the end.');
    assert.equal(jsonProblem('d', "{'a': 1}"), 'The value of "d" is not valid JSON: text must be in double quotes after “{”.');
    assert.equal(jsonProblem('d', 'ten'), 'The value of "d" is not valid JSON: text must be in double quotes at the start.');
    const long = `{"topic": "${'x'.repeat(100)}" "more": 1}`;
    assert.match(jsonProblem('d', long)!, /a comma is missing after “…x{11}" "more”|a comma is missing after “…x+"”/);
  });
});
