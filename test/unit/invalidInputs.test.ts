import * as assert from 'node:assert/strict';
import { extractMissingInputs } from '../../src/api/bodies';
import { extractInvalidInputs } from '../../src/api/invalidInputs';
import { parseInputsBody } from '../../src/api/inputsBody';
import { inputKind } from '../../src/kickoff/core/inputSteps';

describe('422 bodies that explain a type', () => {
  it('reads Pydantic v2 errors per input, with the field inside it and what the crew expects', () => {
    const body = {
      detail: [
        { type: 'dict_type', loc: ['body', 'inputs', 'interview_data'], msg: 'Input should be a valid dictionary', input: '{"topic": "Rust"}' },
        { type: 'int_parsing', loc: ['body', 'inputs', 'max_score'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'ten' },
        { type: 'list_type', loc: ['body', 'inputs', 'profile', 'urls'], msg: 'Input should be a valid list', input: 'x' },
        { type: 'missing', loc: ['body', 'inputs', 'profile', 'name'], msg: 'Field required', input: {} },
        { type: 'bool_parsing', loc: ['body', 'inputs', 'draft'], msg: 'Input should be a valid boolean', input: 'maybe' },
        { type: 'string_type', loc: ['body', 'inputs', 'topic'], msg: 'Input should be a valid string', input: 3 },
        { type: 'missing', loc: ['body', 'inputs', 'audience'], msg: 'Field required', input: null },
        { type: 'missing', loc: ['body', 'meta'], msg: 'Field required' },
      ],
    };
    assert.deepEqual(extractInvalidInputs(body), [
      { name: 'interview_data', message: 'Input should be a valid dictionary', expects: 'json' },
      { name: 'max_score', message: 'Input should be a valid integer, unable to parse string as an integer', expects: 'number' },
      { name: 'profile', message: 'urls: Input should be a valid list; name: Field required', expects: 'json' },
      { name: 'draft', message: 'Input should be a valid boolean', expects: 'boolean' },
      { name: 'topic', message: 'Input should be a valid string', expects: 'text' },
    ]);
    assert.deepEqual(extractMissingInputs(body), ['audience'], 'a missing input itself stays a missing input');
  });

  it('reads Pydantic v1 errors, a body in a string, and nothing from other bodies', () => {
    assert.deepEqual(extractInvalidInputs({ detail: [{ loc: ['body', 'inputs', 'urls'], msg: 'value is not a valid list', type: 'type_error.list' }] }), [
      { name: 'urls', message: 'value is not a valid list', expects: 'json' },
    ]);
    assert.deepEqual(extractInvalidInputs(JSON.stringify({ detail: [{ loc: ['body', 'inputs', 'n'], msg: 'bad', type: 'value_error' }] })), [{ name: 'n', message: 'bad' }]);
    for (const other of [{ detail: 'Missing inputs: topic' }, { error: 'Validation Error', details: { missing_inputs: ['a'] } }, 'Internal Server Error', null, { detail: [{ loc: 'x' }, 3, { loc: ['query', 'q'], msg: 'm' }] }]) {
      assert.deepEqual(extractInvalidInputs(other), []);
    }
    const many = { detail: Array.from({ length: 500 }, (_, i) => ({ loc: ['body', 'inputs', `n${i}`], msg: 'x'.repeat(1000), type: 'dict_type' })) };
    const read = extractInvalidInputs(many);
    assert.equal(read.length, 100, 'at most 100 entries are read');
    assert.ok(read.every((i) => i.message.length <= 300), 'the server\'s words are clipped');
  });
});

describe('GET /inputs shapes with types', () => {
  it('reads input objects, JSON Schema properties and maps with their types, and a skeleton for objects', () => {
    const schema = {
      title: 'KickoffInputs',
      type: 'object',
      properties: {
        interview_data: { type: 'object', properties: { topic: { type: 'string' }, questions_and_answers: { type: 'array' }, score: { type: 'integer' }, ok: { type: 'boolean' } } },
        urls: { type: 'array', items: { type: 'string' }, default: ['https://a'] },
        count: { type: 'integer', default: 3 },
        draft: { type: 'boolean' },
        tone: { type: 'string', enum: ['neutral', 'upbeat'] },
      },
      required: ['interview_data'],
    };
    const specs = parseInputsBody(schema);
    assert.deepEqual(specs?.map((s) => [s.name, s.type, s.required, inputKind(s)]), [
      ['interview_data', 'object', true, 'json'],
      ['urls', 'array', false, 'json'],
      ['count', 'integer', false, 'number'],
      ['draft', 'boolean', false, 'boolean'],
      ['tone', 'string', false, 'text'],
    ]);
    assert.deepEqual(specs?.[0].skeleton, { topic: '', questions_and_answers: [], score: 0, ok: false });
    assert.deepEqual(specs?.[1].skeleton, ['https://a'], 'a structured default is the skeleton');
    assert.equal(specs?.[2].default, '3');

    const objects = parseInputsBody({ inputs: [{ name: 'data', type: 'dict', description: 'The record', required: true }, { name: 'n', type: 'int' }, { name: 'urls', type: 'List[str]' }, { name: 'flag', type: 'bool', default: false }] });
    assert.deepEqual(objects?.map((s) => [s.name, inputKind(s), s.default]), [['data', 'json', undefined], ['n', 'number', undefined], ['urls', 'json', undefined], ['flag', 'boolean', 'false']]);
    const map = parseInputsBody({ topic: 'string', data: 'object', n: 'integer' });
    assert.deepEqual(map?.map((s) => inputKind(s)), ['text', 'json', 'number']);
    assert.deepEqual(parseInputsBody({ inputs: ['topic'] })?.map((s) => inputKind(s)), ['text'], 'the hosted service\'s names are text');
  });
});
