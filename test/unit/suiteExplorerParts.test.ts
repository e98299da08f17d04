// The Test Explorer's small decisions in plain Node: which crew a suite runs against (never one that is not
// configured), the token estimate before a costly run, and the main bundle's suite glob kept equal to the core's.
import * as assert from 'node:assert/strict';
import type { RunDetails, RunRecord } from '../../src/runTracking/model';
import type { Crew } from '../../src/crews/crewConfig';
import { SUITE_FILE_GLOB } from '../../src/suites/core/suiteFile';
import { ESTIMATE_SAMPLE_RUNS, recentTokensPerRun } from '../../src/suites/runEnd';
import type * as SuiteActivation from '../../src/suites/suiteActivation';
import { resolveSuiteCrew } from '../../src/suites/suiteCrew';
import { chooseItems } from '../../src/suites/suiteSelection';
import { requireWithFakeVscode } from './helpers/fakeVscode';
import { makeRun } from './chatTools.test';

const crews = (list: Crew[]) => ({ list: () => list, get: (url: string) => list.find((c) => c.url === url) });
const echo: Crew = { url: 'https://echo.example', name: 'Echo Crew', source: 'user' } as Crew;

describe('suites in the Test Explorer: small decisions', () => {
  it('the main bundle looks for suite files as the core reads them (without loading the core)', () => {
    const activation = requireWithFakeVscode<typeof SuiteActivation>(require.resolve('../../src/suites/suiteActivation'));
    assert.equal(activation.SUITE_GLOB, SUITE_FILE_GLOB);
    const [, head, alternatives] = /^(.*)\{(.*)\}$/.exec(SUITE_FILE_GLOB)!;
    assert.deepEqual(activation.SUITE_WATCH_GLOBS, alternatives.split(',').map((extension) => head + extension), 'the watcher\'s globs: the same without braces');
  });

  it('a suite runs against one of your crews, by URL (normalised) or name (any case); any other is one clear problem', () => {
    const mine = crews([echo]);
    assert.deepEqual(resolveSuiteCrew(mine, { kind: 'url', url: 'https://echo.example/' }), { crew: echo });
    assert.deepEqual(resolveSuiteCrew(mine, { kind: 'url', url: 'HTTPS://Echo.Example/' }), { crew: echo });
    assert.deepEqual(resolveSuiteCrew(mine, { kind: 'name', name: 'echo crew' }), { crew: echo });
    const stranger = resolveSuiteCrew(mine, { kind: 'url', url: 'https://evil.example' });
    assert.ok('problem' in stranger && /https:\/\/evil\.example, which is not one of your crews/.test(stranger.problem), JSON.stringify(stranger));
    const unnamed = resolveSuiteCrew(mine, undefined);
    assert.ok('problem' in unnamed && /names no crew/.test(unnamed.problem));
    assert.ok('problem' in resolveSuiteCrew(mine, { kind: 'name', name: 'Other' }));
  });

  it('tokens per run from the crew\'s newest finished runs that say (usage, else the model calls); none said: unknown', async () => {
    const details = new Map<string, RunDetails>();
    const runs: RunRecord[] = [];
    const add = (id: string, state: RunRecord['state'], detail: Partial<RunDetails>) => {
      runs.push(makeRun({ id, state, crewUrl: echo.url }));
      details.set(id, { tasks: [], history: [], feedbackRounds: [], ...detail });
    };
    add('a', 'succeeded', { lastSnapshot: { state: 'succeeded', tasks: [], raw: {}, usage: { total_tokens: 1000 } } });
    add('b', 'failed', { lastSnapshot: { state: 'failed', tasks: [], raw: {}, usage: { prompt_tokens: 1500, completion_tokens: 500 } } });
    add('c', 'succeeded', { events: { kept: 1, dropped: 0, byModel: { 'gpt-4o': { promptTokens: 2500, completionTokens: 500 } } } });
    add('d', 'running', { lastSnapshot: { state: 'running', tasks: [], raw: {}, usage: { total_tokens: 999_999 } } });
    add('e', 'succeeded', {});
    let reads = 0;
    const store = {
      list: (url?: string) => runs.filter((r) => url === undefined || r.crewUrl === url),
      readDetails: async (id: string) => {
        reads++;
        return details.get(id)!;
      },
    };
    assert.equal(await recentTokensPerRun(store, echo.url), 2000, '(1000 + 2000 + 3000) / 3: the running one and the silent one left out');
    assert.equal(await recentTokensPerRun(store, 'https://other.example'), undefined);
    for (let i = 0; i < 50; i++) {
      add(`old-${i}`, 'succeeded', { lastSnapshot: { state: 'succeeded', tasks: [], raw: {}, usage: { total_tokens: 10 } } });
    }
    reads = 0;
    await recentTokensPerRun(store, echo.url);
    assert.equal(reads, ESTIMATE_SAMPLE_RUNS, 'a long history is sampled, not read whole');
  });
});

describe('suites in the Test Explorer: what a test run chose', () => {
  const item = (caseName: string, repeat = 1, of = 1) => ({ id: of > 1 ? `${caseName} #${repeat}` : caseName, caseName, repeat });
  const suites = [
    { key: 'a', items: [item('one'), item('two', 1, 2), item('two', 2, 2), item('three')] },
    { key: 'b', items: [item('x')] },
  ];
  const ids = (chosen: Map<string, { id: string }[]>) => Object.fromEntries([...chosen].map(([key, items]) => [key, items.map((i) => i.id)]));

  it('Run All: every item of every suite, in order', () => {
    assert.deepEqual(ids(chooseItems(suites, undefined)), { a: ['one', 'two #1', 'two #2', 'three'], b: ['x'] });
  });

  it('a case is every repeat of it; a repeat is itself; the order is the file\'s, whatever the order chosen', () => {
    assert.deepEqual(ids(chooseItems(suites, [{ suiteKey: 'a', caseName: 'three' }, { suiteKey: 'a', caseName: 'two' }])), { a: ['two #1', 'two #2', 'three'] });
    assert.deepEqual(ids(chooseItems(suites, [{ suiteKey: 'a', caseName: 'two', itemId: 'two #2' }, { suiteKey: 'a', caseName: 'one', itemId: 'one' }])), { a: ['one', 'two #2'] });
  });

  it('what is excluded stays out at every level; a suite left with nothing is not run', () => {
    assert.deepEqual(ids(chooseItems(suites, undefined, [{ suiteKey: 'a', caseName: 'two' }, { suiteKey: 'b' }])), { a: ['one', 'three'] });
    assert.deepEqual(ids(chooseItems(suites, [{ suiteKey: 'a' }], [{ suiteKey: 'a', caseName: 'two', itemId: 'two #1' }])), { a: ['one', 'two #2', 'three'] });
    assert.deepEqual(ids(chooseItems(suites, [{ suiteKey: 'b' }, { suiteKey: 'gone' }], [{ suiteKey: 'b', caseName: 'x', itemId: 'x' }])), {});
  });
});
