// Pure rules of Kick Off and the pickers: which inputs are asked and in which order, the one step counter,
// what Escape keeps, a bare host as a crew URL, and what tells look-alike runs apart.
import * as assert from 'node:assert/strict';
import { inputsToAsk, inputsToSend, isFlowId, isWorthKeeping, missingInputs, stepOf } from '../../src/kickoff/core/inputSteps';
import { differingInputs, lookAlikes } from '../../src/runs/runDifferences';
import { withDefaultScheme } from '../../src/crews/urlInput';
import { normaliseCrewUrl } from '../../src/api/url';

describe('Kick Off inputs', () => {
  it('asks required inputs first and leaves a flow\'s id out', () => {
    const specs = [{ name: 'id' }, { name: 'tone', required: false }, { name: 'topic' }, { name: 'count' }];
    assert.deepEqual(inputsToAsk(specs).map((s) => s.name), ['topic', 'count', 'tone']);
    assert.equal(isFlowId({ name: 'id' }), true);
    // An id the crew describes (required or with a description) is a real input: asked like any other.
    assert.equal(isFlowId({ name: 'id', required: true }), false);
    assert.deepEqual(inputsToAsk([{ name: 'id', description: 'Order id' }]).map((s) => s.name), ['id']);
  });

  it('sends every required input and only filled optional ones', () => {
    const specs = [{ name: 'id' }, { name: 'topic' }];
    assert.deepEqual(inputsToSend(specs, { id: '', topic: 'AI' }), { topic: 'AI' });
    assert.deepEqual(inputsToSend(specs, { id: 'abc', topic: 'AI' }), { id: 'abc', topic: 'AI' });
    assert.deepEqual(missingInputs(specs, { id: '', topic: '  ' }), ['topic']);
  });

  it('counts steps once: the asked inputs, then the review', () => {
    const steps = [{ name: 'topic' }, { name: 'count' }];
    assert.deepEqual(stepOf(steps, 'topic'), { step: 1, total: 3 });
    assert.deepEqual(stepOf(steps, 'count'), { step: 2, total: 3 });
  });

  it('keeps what Escape left only when something new was typed', () => {
    assert.equal(isWorthKeeping({ topic: '', audience: '' }, {}), false);
    assert.equal(isWorthKeeping({ topic: 'AI', audience: '' }, {}), true);
    assert.equal(isWorthKeeping({ topic: 'AI' }, { topic: 'AI' }), false, 'the unchanged starting point is not new');
    assert.equal(isWorthKeeping({ topic: 'AI agents' }, { topic: 'AI' }), true);
  });
});

describe('crew URL as typed', () => {
  it('a bare host (and port) means https; a named scheme is left to be checked', () => {
    assert.equal(withDefaultScheme(' example.com '), 'https://example.com');
    assert.equal(withDefaultScheme('127.0.0.1:8787'), 'https://127.0.0.1:8787');
    assert.equal(withDefaultScheme('localhost:3000/crew'), 'https://localhost:3000/crew');
    assert.equal(withDefaultScheme('http://localhost:3000'), 'http://localhost:3000');
    assert.equal(withDefaultScheme('javascript:alert(1)'), 'javascript:alert(1)');
    assert.equal(withDefaultScheme('ftp://crew.example.com'), 'ftp://crew.example.com');
    assert.equal(withDefaultScheme(''), '');
    assert.deepEqual(normaliseCrewUrl(withDefaultScheme('example.com')), { ok: true, url: 'https://example.com' });
    assert.deepEqual(normaliseCrewUrl(withDefaultScheme('not a url')), { ok: false, problem: 'malformed' });
  });
});

describe('run pickers', () => {
  const run = (id: string, label: string, inputs: Record<string, string>, crewUrl = 'https://a') => ({ id, crewUrl, label, inputs });

  it('finds the input that differs among runs with the same label', () => {
    const runs = [run('1', 'AI', { topic: 'AI', audience: 'devs' }), run('2', 'AI', { topic: 'AI', audience: 'CTOs' }), run('3', 'Other', { topic: 'x' })];
    const differing = differingInputs(runs);
    assert.deepEqual(differing.get('1'), { name: 'audience', value: 'devs' });
    assert.deepEqual(differing.get('2'), { name: 'audience', value: 'CTOs' });
    assert.equal(differing.has('3'), false, 'a run with its own label needs nothing more');
  });

  it('same inputs: nothing differs (start time and kickoff id tell them apart); other crews are not look-alikes', () => {
    const runs = [run('1', 'AI', { topic: 'AI' }), run('2', 'AI', { topic: 'AI' }), run('3', 'AI', { topic: 'AI' }, 'https://b')];
    assert.equal(differingInputs(runs).size, 0);
    assert.deepEqual(lookAlikes(runs).map((r) => r.id), ['1', '2']);
  });
});
