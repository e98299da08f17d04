import * as assert from 'node:assert/strict';
import { readCrews, renamed, withCrew, withoutCrew } from '../../src/crews/crewConfig';
import { checkToken } from '../../src/api/tokenRules';
import { InputPresets, inputsFromJson } from '../../src/kickoff/core/inputPresets';
import type { SharedValues } from '../../src/util/sharedValues';

describe('crewRuns.crews setting', () => {
  const user = [{ name: 'Production', url: 'https://prod.crewai.com/' }];

  it('identifies crews by normalised URL, never by name', () => {
    const workspace = [
      { name: 'Production', url: 'https://evil.example.com' },
      { name: 'Duplicate of prod', url: 'HTTPS://PROD.crewai.com' },
    ];
    const { crews } = readCrews(user, workspace, true);
    assert.deepEqual(crews, [
      { name: 'Production', url: 'https://prod.crewai.com', source: 'user' },
      { name: 'Production', url: 'https://evil.example.com', source: 'workspace' },
    ]);
  });

  it('ignores workspace crews when the workspace is not trusted, and counts them', () => {
    const result = readCrews(user, [{ name: 'W', url: 'https://w.example.com' }], false);
    assert.deepEqual(result.crews.map((c) => c.source), ['user']);
    assert.equal(result.hiddenWorkspaceCrews, 1);
  });

  it('reports unusable entries instead of failing', () => {
    const result = readCrews([{ name: 'x' }, 'text', { url: 'http://insecure.example.com' }, { url: 'https://ok.example.com' }], 'not a list', true);
    assert.deepEqual(result.crews, [{ name: 'https://ok.example.com', url: 'https://ok.example.com', source: 'user' }]);
    assert.equal(result.problems.length, 4);
    assert.match(result.problems[2], /insecureHttp/);
  });

  it('adds, renames and removes by URL, keeping other entries', () => {
    const entries = [{ name: 'A', url: 'https://a.example.com' }, { name: 'B', url: 'https://b.example.com/' }];
    assert.deepEqual(withCrew(entries, { name: 'B2', url: 'https://b.example.com' }), [
      { name: 'A', url: 'https://a.example.com' },
      { name: 'B2', url: 'https://b.example.com' },
    ]);
    assert.deepEqual(renamed(entries, 'https://a.example.com', 'Alpha')[0], { name: 'Alpha', url: 'https://a.example.com' });
    assert.deepEqual(withoutCrew(entries, 'https://B.example.com'), [{ name: 'A', url: 'https://a.example.com' }]);
    assert.deepEqual(withCrew(undefined, { name: 'C', url: 'https://c.example.com' }), [{ name: 'C', url: 'https://c.example.com' }]);
  });
});

describe('token rules', () => {
  it('trims and drops a pasted "Bearer " prefix', () => {
    assert.deepEqual(checkToken('  Bearer abc.def-123  '), { ok: true, token: 'abc.def-123' });
  });

  it('refuses empty, blank, multi-line, control characters and very long tokens', () => {
    assert.deepEqual(checkToken(''), { ok: false, problem: 'empty' });
    assert.deepEqual(checkToken('   '), { ok: false, problem: 'empty' });
    assert.deepEqual(checkToken('abc\ndef'), { ok: false, problem: 'whitespace' });
    assert.deepEqual(checkToken('abc def'), { ok: false, problem: 'whitespace' });
    assert.deepEqual(checkToken('abc\u0007def'), { ok: false, problem: 'control' });
    assert.deepEqual(checkToken('a'.repeat(5000)), { ok: false, problem: 'tooLong' });
  });
});

describe('input presets', () => {
  /** One window's shared values, in memory (the files and their windows: sharedState.test.ts). */
  function memoryStore(): SharedValues {
    const data = new Map<string, string>();
    const get = <T>(key: string) => (data.has(key) ? (JSON.parse(data.get(key)!) as T) : undefined);
    return { get, change: async (key, update) => void data.set(key, JSON.stringify(update(get(key)) ?? null)) };
  }

  it('remembers the last inputs and presets per crew', async () => {
    const presets = new InputPresets(memoryStore());
    await presets.rememberLastUsed('https://a.example.com', { topic: 'AI' });
    await presets.savePreset('https://a.example.com', { name: 'weekly', inputs: { topic: 'News' } });
    await presets.savePreset('https://a.example.com', { name: 'weekly', inputs: { topic: 'News 2' } });
    await presets.savePreset('https://b.example.com', { name: 'other', inputs: { x: 'y' } });
    assert.deepEqual(presets.lastUsed('https://a.example.com'), { topic: 'AI' });
    assert.deepEqual(presets.presets('https://a.example.com'), [{ name: 'weekly', inputs: { topic: 'News 2' } }]);
    await presets.renamePreset('https://a.example.com', 'weekly', 'monthly');
    assert.deepEqual(presets.presets('https://a.example.com').map((p) => p.name), ['monthly']);
    await presets.deletePreset('https://a.example.com', 'monthly');
    assert.deepEqual(presets.presets('https://a.example.com'), []);
    assert.equal(presets.presets('https://b.example.com').length, 1);
  });

  it('does not remember very long values as last used', async () => {
    const presets = new InputPresets(memoryStore());
    await presets.rememberLastUsed('https://a.example.com', { topic: 'AI', pasted: 'x'.repeat(40_000) });
    assert.deepEqual(presets.lastUsed('https://a.example.com'), { topic: 'AI' });
  });

  it('reads inputs from a JSON object, or a kickoff body, keeping every value as it is', () => {
    assert.deepEqual(inputsFromJson('{"topic":"AI","year":2026,"draft":true}'), { ok: true, inputs: { topic: 'AI', year: 2026, draft: true } });
    assert.deepEqual(inputsFromJson('{"inputs":{"topic":"AI"},"meta":{}}'), { ok: true, inputs: { topic: 'AI' } });
    assert.deepEqual(inputsFromJson('[1,2]'), { ok: false, reason: 'notObject' });
    assert.deepEqual(inputsFromJson('{"a":{"b":[1,{"c":null}]}}'), { ok: true, inputs: { a: { b: [1, { c: null }] } } });
    assert.deepEqual(inputsFromJson('{"a":null}'), { ok: true, inputs: { a: null } });
    assert.deepEqual(inputsFromJson('{oops'), { ok: false, reason: 'notJson' });
  });
});

describe('hidden workspace crews', () => {
  it('are counted in settings files with comments and trailing commas, and in .code-workspace files', async () => {
    const { countCrewEntries } = await import('../../src/crews/crewFileCount');
    assert.equal(countCrewEntries('{\n // a comment\n "crewRuns.crews": [{ "name": "a // not a comment", "url": "https://x" },], /* x */ }'), 1);
    assert.equal(countCrewEntries('{ "folders": [], "settings": { "crewRuns.crews": [{}, {}] } }'), 2);
    assert.equal(countCrewEntries('{ "editor.tabSize": 2 }'), 0);
    assert.equal(countCrewEntries('{ broken "crewRuns.crews"'), 1);
    assert.equal(countCrewEntries('{ "x": "a /* b", "crewRuns.crews": [{}], "y": "c */ d" }'), 1);
    // What the regular expressions got wrong (jsonc-parser reads them as VS Code does): a byte order mark, a file being edited.
    assert.equal(countCrewEntries('\uFEFF{ "crewRuns.crews": [{}, {}] }'), 2);
    assert.equal(countCrewEntries('{ "crewRuns.crews": [{}, {}], "editor.'), 2);
  });
});
