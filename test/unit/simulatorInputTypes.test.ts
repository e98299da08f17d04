import * as assert from 'node:assert/strict';
import { parseInputsBody } from '../../src/api/inputsBody';
import { demoCrews, startSimulator, type Simulator } from '../../src/simulator/server';

const INTERVIEW = { topic: 'Rust', questions_and_answers: [{ question: 'Why?', answer: 'Safety' }] };

describe('Simulator: a crew with a structured input (Interview Crew)', () => {
  let sim: Simulator;
  const crew = () => sim.crews.find((c) => c.id === 'interview-crew')!;

  before(async () => {
    sim = await startSimulator({ timeScale: 0.001, crews: demoCrews().filter((c) => c.id === 'interview-crew').map((c) => ({ ...c, orgToken: 'org-interview' })) });
  });

  after(() => sim.close());

  async function post(inputs: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${crew().url}/kickoff`, {
      method: 'POST',
      headers: { Authorization: 'Bearer org-interview', 'Content-Type': 'application/json' },
      body: JSON.stringify({ inputs }),
    });
    return { status: response.status, json: (await response.json()) as unknown };
  }

  it('describes its inputs as a JSON Schema with an object type, which the extension reads', async () => {
    const response = await fetch(`${crew().url}/inputs`, { headers: { Authorization: 'Bearer org-interview' } });
    const body = (await response.json()) as { properties: Record<string, { type: string; properties?: object }>; required: string[] };
    assert.equal(body.properties.interview_data.type, 'object');
    assert.deepEqual(Object.keys(body.properties.interview_data.properties ?? {}), ['topic', 'questions_and_answers']);
    assert.equal(body.properties.max_score.type, 'integer');
    assert.deepEqual(body.required, ['interview_data']);
    const specs = parseInputsBody(body);
    assert.deepEqual(specs?.map((s) => [s.name, s.type, s.required]), [['interview_data', 'object', true], ['max_score', 'integer', false]]);
  });

  it('refuses a string where the object goes with FastAPI 422 in Pydantic shape, and a field of the wrong type by its loc', async () => {
    const asText = await post({ interview_data: JSON.stringify(INTERVIEW) });
    assert.equal(asText.status, 422);
    assert.deepEqual(asText.json, {
      detail: [{ type: 'dict_type', loc: ['body', 'inputs', 'interview_data'], msg: 'Input should be a valid dictionary', input: JSON.stringify(INTERVIEW) }],
    });
    const listAsText = await post({ interview_data: { topic: 'Rust', questions_and_answers: 'Why? Safety' }, max_score: '10' });
    assert.equal(listAsText.status, 422);
    assert.deepEqual(
      (listAsText.json as { detail: { loc: unknown[]; type: string }[] }).detail.map((e) => [e.loc.join('.'), e.type]),
      [['body.inputs.interview_data.questions_and_answers', 'list_type'], ['body.inputs.max_score', 'int_type']],
    );
    const missingField = await post({ interview_data: { topic: 'Rust' } });
    assert.deepEqual((missingField.json as { detail: { loc: unknown[]; type: string }[] }).detail.map((e) => [e.loc.join('.'), e.type]), [['body.inputs.interview_data.questions_and_answers', 'missing']]);
    assert.equal(sim.requestLog.entries.filter((e) => e.endpoint === 'kickoff' && e.status === 202).length, 0, 'no run started');
  });

  it('takes the object, and the run holds it as an object', async () => {
    const accepted = await post({ interview_data: INTERVIEW, max_score: 5 });
    assert.equal(accepted.status, 202);
    const run = sim.getRun((accepted.json as { id: string }).id);
    assert.deepEqual(run?.inputs, { interview_data: INTERVIEW, max_score: 5 });
  });
});
