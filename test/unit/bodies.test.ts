import * as assert from 'node:assert/strict';
import {
  extractErrorMessage,
  extractMissingInputs,
  MAX_ERROR_MESSAGE_LENGTH,
  namesCamelCaseResumeFields,
  parseJsonLenient,
  parseKickoffBody,
  parseResumeBody,
} from '../../src/api/bodies';
import { parseInputsBody } from '../../src/api/inputsBody';
import type { InputSpec } from '../../src/api/types';
import { errorBodies, inputsBodies, kickoffBodies, resumeBodies } from '../fixtures/crewApiBodies';

/** Only the names of what parseInputsBody read (undefined stays undefined). */
const inputNames = (body: unknown): string[] | undefined => parseInputsBody(body)?.map((spec: InputSpec) => spec.name);

const garbage: unknown[] = [null, undefined, 0, 42, true, '', 'text', [], [null], {}, { a: { b: null } }];

describe('parseJsonLenient', () => {
  it('parses JSON with a BOM and surrounding whitespace', () => {
    assert.deepEqual(parseJsonLenient('\uFEFF  {"a": [1]} \n'), { ok: true, value: { a: [1] } });
  });

  it('parses JSON null as a value', () => {
    assert.deepEqual(parseJsonLenient('null'), { ok: true, value: null });
  });

  it('refuses blank and malformed text', () => {
    assert.deepEqual(parseJsonLenient('   '), { ok: false });
    assert.deepEqual(parseJsonLenient('Internal Server Error'), { ok: false });
    assert.deepEqual(parseJsonLenient('{"a":'), { ok: false });
  });
});

describe('parseInputsBody', () => {
  it('reads the documented list', () => {
    assert.deepEqual(inputNames(inputsBodies.docs.body), ['budget', 'interests', 'duration', 'age']);
  });

  it('reads a flow state-field list as is (the caller decides about `id`)', () => {
    assert.deepEqual(inputNames(inputsBodies.flowStateFields.body), ['topic', 'count', 'id', 'history']);
  });

  it('keeps odd names verbatim, dedupes, drops blanks and non-names, stringifies numbers', () => {
    assert.deepEqual(inputNames(inputsBodies.oddNames.body), ['target audience', "author's name", 'topic', '3']);
  });

  it('reads an empty list as no inputs (not as a wrong shape)', () => {
    assert.deepEqual(inputNames(inputsBodies.empty.body), []);
  });

  it('reads an inputs map of name → type word as names with their type', () => {
    assert.deepEqual(parseInputsBody(inputsBodies.mapOfTypes.body), [
      { name: 'topic', type: 'string' },
      { name: 'year', type: 'string' },
    ]);
  });

  it('reads a single list of names under any other key', () => {
    for (const key of ['parameters', 'fields', 'input_names']) {
      assert.deepEqual(parseInputsBody({ [key]: ['topic', 'audience'], crew: 'research', version: 2 }), [{ name: 'topic' }, { name: 'audience' }], key);
    }
  });

  it('reads a list of input objects, bare or under a key, with type, description, required and default', () => {
    const list = [
      { name: 'topic', type: 'string', description: 'What to research', required: true },
      { name: 'audience', description: 'Who reads it', required: false, default: 'engineers' },
      { name: 'depth', type: 'integer', default: 3, optional: true },
      { name: 'topic', description: 'a duplicate' },
    ];
    const expected: InputSpec[] = [
      { name: 'topic', type: 'string', description: 'What to research', required: true },
      { name: 'audience', description: 'Who reads it', required: false, default: 'engineers' },
      { name: 'depth', type: 'integer', default: '3', required: false },
    ];
    assert.deepEqual(parseInputsBody(list), expected);
    assert.deepEqual(parseInputsBody({ inputs: list }), expected);
    assert.deepEqual(parseInputsBody({ parameters: list }), expected);
  });

  it('reads a JSON Schema: properties in order, required names, descriptions, defaults and enums', () => {
    const schema = {
      title: 'ResearchInputs',
      type: 'object',
      properties: {
        topic: { type: 'string', title: 'Topic', description: 'What to research' },
        tone: { type: 'string', enum: ['formal', 'casual', 'formal'], default: 'formal' },
        audience: { type: 'string', title: 'Audience' },
      },
      required: ['topic', 'audience'],
    };
    assert.deepEqual(parseInputsBody(schema), [
      { name: 'topic', type: 'string', description: 'What to research', required: true },
      { name: 'tone', type: 'string', default: 'formal', enum: ['formal', 'casual'], required: false },
      { name: 'audience', type: 'string', description: 'Audience', required: true },
    ]);
    assert.deepEqual(parseInputsBody({ inputs: schema })?.map((spec) => spec.name), ['topic', 'tone', 'audience']);
  });

  it('reads a schema without `required`: a default makes an input optional, else it is not said', () => {
    assert.deepEqual(parseInputsBody({ properties: { topic: {}, year: { default: 2026 } } }), [{ name: 'topic' }, { name: 'year', default: '2026', required: false }]);
  });

  it('reads a map of name → description, type word or property object', () => {
    assert.deepEqual(parseInputsBody({ topic: 'The subject to research', year: 'int', tone: { enum: ['formal', 'casual'] } }), [
      { name: 'topic', description: 'The subject to research' },
      { name: 'year', type: 'int' },
      { name: 'tone', enum: ['formal', 'casual'] },
    ]);
  });

  it('does not read error bodies or unrelated objects as inputs', () => {
    for (const body of [
      { detail: 'Not Found' },
      { detail: [{ loc: ['query', 'x'], msg: 'field required' }] },
      { error: 'Not Found', message: 'The requested resource was not found' },
      { status: 'ok', count: 3 },
      { a: { b: null } },
      '<html><body>Welcome to nginx!</body></html>',
    ]) {
      assert.equal(parseInputsBody(body), undefined, JSON.stringify(body));
    }
  });

  it('accepts a bare array of names', () => {
    assert.deepEqual(inputNames(inputsBodies.bareArray.body), ['topic', 'year']);
  });

  it('accepts the body as JSON text', () => {
    assert.deepEqual(inputNames('{"inputs": ["a", "a", "b"]}'), ['a', 'b']);
  });

  it('returns undefined for wrong shapes', () => {
    assert.equal(parseInputsBody(inputsBodies.wrongShape.body), undefined);
    assert.equal(parseInputsBody(inputsBodies.inputsIsString.body), undefined);
    for (const body of [null, undefined, 42, 'text', {}, { inputs: null }]) {
      assert.equal(parseInputsBody(body), undefined, JSON.stringify(body));
    }
  });
});

describe('parseKickoffBody', () => {
  it('reads kickoff_id from the docs and live replies', () => {
    assert.equal(parseKickoffBody(kickoffBodies.docs.body), 'abcd1234-5678-90ef-ghij-klmnopqrstuv');
    assert.equal(parseKickoffBody(kickoffBodies.live.body), '736c47eb-7051-4fdd-9af3-6c892d8e1295');
  });

  it('tolerates camelCase, JSON text, surrounding spaces and numeric ids', () => {
    assert.equal(parseKickoffBody(kickoffBodies.camelCase.body), 'f00d');
    assert.equal(parseKickoffBody('{"kickoff_id": " abc "}'), 'abc');
    assert.equal(parseKickoffBody({ kickoff_id: 5 }), '5');
  });

  it('returns undefined without an id', () => {
    assert.equal(parseKickoffBody(kickoffBodies.empty.body), undefined);
    assert.equal(parseKickoffBody(kickoffBodies.blankId.body), undefined);
    assert.equal(parseKickoffBody({ kickoff_id: { id: 'x' } }), undefined);
    for (const body of garbage) {
      assert.equal(parseKickoffBody(body), undefined, JSON.stringify(body));
    }
  });
});

describe('parseResumeBody', () => {
  it('reads the documented replies', () => {
    assert.deepEqual(parseResumeBody(resumeBodies.docsResumed.body), {
      kind: 'resumed',
      status: 'resumed',
      message: 'Execution resumed successfully',
    });
    assert.deepEqual(parseResumeBody(resumeBodies.docsRetrying.body), {
      kind: 'resumed',
      status: 'retrying',
      message: 'Task will be retried with your feedback',
    });
    assert.deepEqual(parseResumeBody(resumeBodies.docsCompleted.body), { kind: 'resumed', status: 'completed' });
  });

  it('follows a new kickoff id from a live deployment, even next to a status', () => {
    assert.deepEqual(parseResumeBody(resumeBodies.liveNewKickoff.body), {
      kind: 'continuedAs',
      kickoffId: '2b1c0d9e-0000-4000-8000-000000000001',
    });
    assert.deepEqual(parseResumeBody({ kickoff_id: 'new', status: 'resumed' }), { kind: 'continuedAs', kickoffId: 'new' });
  });

  it('does not mistake error bodies for a resume', () => {
    assert.equal(parseResumeBody(resumeBodies.docs400NotPending.body), undefined);
    assert.equal(parseResumeBody(resumeBodies.docs404.body), undefined);
    assert.equal(parseResumeBody(resumeBodies.live422SnakeCaseRejected.body), undefined);
  });

  it('returns undefined for garbage', () => {
    for (const body of garbage) {
      assert.equal(parseResumeBody(body), undefined, JSON.stringify(body));
    }
    assert.equal(parseResumeBody({ status: 3 }), undefined);
  });
});

describe('extractMissingInputs', () => {
  it('reads the docs details.missing_inputs', () => {
    assert.deepEqual(extractMissingInputs(errorBodies.docsMissingInputs422.body), ['budget', 'interests']);
  });

  it('reads the live "Missing inputs: a, b" message', () => {
    assert.deepEqual(extractMissingInputs(errorBodies.liveMissingInputs422.body), ['audience', 'topic']);
  });

  it('reads FastAPI entries located under body.inputs and marked missing', () => {
    assert.deepEqual(extractMissingInputs(errorBodies.fastApiMissingInputs422.body), ['topic']);
  });

  it('splits names with commas using the known input names', () => {
    const body = { detail: 'Missing inputs: city, state, topic' };
    assert.deepEqual(extractMissingInputs(body, ['topic', 'city, state']), ['city, state', 'topic']);
    assert.deepEqual(extractMissingInputs(body), ['city', 'state', 'topic']);
  });

  it('falls back to commas when the known names do not cover the message', () => {
    assert.deepEqual(extractMissingInputs({ detail: 'Missing inputs: a, b' }, ['a']), ['a', 'b']);
  });

  it('strips a Python set/list repr and quotes', () => {
    assert.deepEqual(extractMissingInputs({ detail: "Missing inputs: {'topic', 'target audience'}" }), ['topic', 'target audience']);
    assert.deepEqual(extractMissingInputs({ detail: 'Missing required inputs: ["x", "y"]' }), ['x', 'y']);
    assert.deepEqual(extractMissingInputs({ detail: "Missing inputs: ['a, b', 'c']" }, ['a, b', 'c']), ['a, b', 'c']);
  });

  it('dedupes repeated names in the live message', () => {
    assert.deepEqual(extractMissingInputs({ detail: 'Missing inputs: a, b, a' }), ['a', 'b']);
  });

  it('reads a plain-text body and a docs message', () => {
    assert.deepEqual(extractMissingInputs('Missing inputs: a, b.'), ['a', 'b']);
    assert.deepEqual(extractMissingInputs({ error: 'Validation Error', message: 'Missing inputs: q' }), ['q']);
  });

  it('returns [] when nothing is missing or the body is garbage', () => {
    assert.deepEqual(extractMissingInputs(errorBodies.live401.body), []);
    assert.deepEqual(extractMissingInputs({ detail: 'Missing inputs: ' }), []);
    for (const body of garbage) {
      assert.deepEqual(extractMissingInputs(body), [], JSON.stringify(body));
    }
  });
});

describe('extractErrorMessage', () => {
  const cases: [string, unknown, string | undefined][] = [
    ['docs 422 with missing inputs', errorBodies.docsMissingInputs422.body, 'Validation Error: Missing required inputs (budget, interests)'],
    ['live 422 missing inputs', errorBodies.liveMissingInputs422.body, 'Missing inputs: audience, topic'],
    ['live invalid-JSON 500 text', errorBodies.liveInvalidJson500.body, 'Internal Server Error'],
    ['docs 401', errorBodies.docs401.body, 'Unauthorized: Invalid or missing bearer token'],
    ['live 401', errorBodies.live401.body, 'Invalid or missing authentication credentials'],
    ['docs 404 (message repeats the error)', errorBodies.docs404Generic.body, 'The requested resource was not found'],
    ['docs 500', errorBodies.docs500.body, 'Internal Server Error: An unexpected error occurred'],
    ['live root 404', errorBodies.liveRoot404.body, 'Not Found'],
    ['gateway HTML page', errorBodies.gateway502Html.body, '502 Bad Gateway nginx & friends'],
    ['empty gateway body', errorBodies.gateway503Empty.body, undefined],
    ['stop 400', errorBodies.stopBranch400.body, 'Cannot stop execution. Current state: SUCCESS'],
    ['resume 400', resumeBodies.docs400NotPending.body, 'Invalid Request: Execution is not in pending human input state'],
    ['resume 422 camelCase', resumeBodies.live422SnakeCaseRejected.body, 'body.executionId: Field required; body.taskId: Field required'],
    [
      'FastAPI list with and without msg',
      { detail: [{ loc: ['body', 'inputs', 0], msg: 'Bad' }, { loc: ['query'] }, 'plain', 7] },
      'body.inputs.0: Bad; query: invalid; plain',
    ],
    ['JSON text body', '{"detail": "Nope"}', 'Nope'],
    ['error object with message', { error: { message: 'Quota exceeded' } }, 'Quota exceeded'],
    ['unknown shape shown as compact JSON', { code: 17, reason: null }, '{"code":17,"reason":null}'],
    ['multi-line text collapsed', '  Bad\n\n   gateway \t here ', 'Bad gateway here'],
    ['HTML without a body', '<html><head><title>Oops</title></head></html>', 'Oops'],
    ['blank text', '  \n ', undefined],
    ['null', null, undefined],
    ['empty object', {}, undefined],
    ['number', 500, undefined],
  ];
  for (const [name, body, expected] of cases) {
    it(`reads ${name}`, () => {
      assert.equal(extractErrorMessage(body), expected);
    });
  }

  it(`caps long text at ${MAX_ERROR_MESSAGE_LENGTH} characters with an ellipsis`, () => {
    const message = extractErrorMessage('x'.repeat(1000));
    assert.equal(message?.length, MAX_ERROR_MESSAGE_LENGTH);
    assert.equal(message, `${'x'.repeat(MAX_ERROR_MESSAGE_LENGTH - 1)}…`);
  });

  it('drops scripts from an HTML page', () => {
    assert.equal(extractErrorMessage('<html><body><script>var token = 1;</script><p>Gateway Timeout</p></body></html>'), 'Gateway Timeout');
  });
});

describe('namesCamelCaseResumeFields', () => {
  it('is true for the live 422 naming executionId and taskId', () => {
    assert.equal(namesCamelCaseResumeFields(resumeBodies.live422SnakeCaseRejected.body), true);
  });

  it('is true for a text detail naming taskId', () => {
    assert.equal(namesCamelCaseResumeFields({ detail: 'taskId: field required' }), true);
    assert.equal(namesCamelCaseResumeFields('executionId is required'), true);
  });

  it('is false when only the snake_case names are mentioned', () => {
    assert.equal(namesCamelCaseResumeFields(resumeBodies.snakeCase422.body), false);
    assert.equal(namesCamelCaseResumeFields(resumeBodies.docs400NotPending.body), false);
  });

  it('is false for garbage', () => {
    for (const body of garbage) {
      assert.equal(namesCamelCaseResumeFields(body), false, JSON.stringify(body));
    }
  });
});
