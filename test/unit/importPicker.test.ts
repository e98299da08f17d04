// Issue #47: the Import Crews picker shows what the platform wrote as text. A deployment's URL path, name and
// status are the platform's words: no `$(icon)` and no `[x](y)` link in any row, checked with VS Code's own
// patterns (as inertText.test.ts does).
import * as assert from 'node:assert/strict';
import type * as ImportModule from '../../src/platform/importCommand';
import { parseDeployments } from '../../src/platform/parse';
import { WORD_JOINER } from '../../src/util/inertText';
import { requireWithFakeVscode } from './helpers/fakeVscode';

const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i;
const VSCODE_ICON = /(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z-]+)?)\)/;

describe('Import Crews picker (#47)', () => {
  const { deploymentItems } = requireWithFakeVscode<typeof ImportModule>(require.resolve('../../src/platform/importCommand'));

  it('shows no icon or link from a deployment\'s URL path, name or status in any of its 3 rows', () => {
    const hostile = '$(zap)[x](command:workbench.action.openSettings)$(loading~spin)';
    const { deployments } = parseDeployments([
      { uuid: 'd-1', name: hostile, status: hostile, public_url: `https://crew.example/${hostile}` },
      { uuid: 'd-2', name: 'plain', status: 'Crew is Online', public_url: `https://crew.example/a/$(check)` },
      { uuid: 'd-3', name: 'no url', status: hostile },
    ]);
    assert.ok(deployments[0].publicUrl?.includes('$(zap)'), `the URL keeps its path as the platform wrote it: ${deployments[0].publicUrl}`);
    const items = deploymentItems(deployments, (d) => d.uuid === 'd-2');
    assert.equal(items.length, 3);
    for (const item of items) {
      for (const shown of [item.label, item.description ?? '', item.detail ?? '']) {
        assert.doesNotMatch(shown, VSCODE_ICON, `an icon in "${shown}"`);
        assert.doesNotMatch(shown, VSCODE_LINK, `a link in "${shown}"`);
      }
    }
    assert.equal(items[1].detail?.split(WORD_JOINER).join(''), 'https://crew.example/a/$(check)', 'the URL reads as itself');
  });

  // #52 (the walkthrough): the demo's one deployment to import was the eighth row, below the fold, under seven
  // marked "imported"; "1 Selected" named a row the user could not see.
  it('lists the deployments not imported yet first, chosen, then those already crews, each in the platform\'s order', () => {
    const { deploymentItems, importOrder } = requireWithFakeVscode<typeof ImportModule>(require.resolve('../../src/platform/importCommand'));
    const { deployments } = parseDeployments(['a', 'b', 'c', 'd', 'e'].map((id) => ({ uuid: id, name: `crew ${id}`, status: 'Online', public_url: `https://${id}.example` })));
    const items = importOrder(deploymentItems(deployments, (d) => d.uuid !== 'b' && d.uuid !== 'd'));
    assert.deepEqual(items.map((i) => [i.deployment.uuid, i.picked]), [['b', true], ['d', true], ['a', false], ['c', false], ['e', false]]);
  });

  it('two deployments whose names differ only by characters that draw nothing never look the same (#46)', () => {
    const { deployments } = parseDeployments([
      { uuid: 'd-1', name: 'Sales Crew', status: 'Online', public_url: 'https://sales.example' },
      { uuid: 'd-2', name: 'Sales\u200b Crew\u{E0041}\u{E0042}', status: 'Online\u2060', public_url: 'https://sales.example' },
    ]);
    const [plain, hidden] = deploymentItems(deployments, () => false);
    assert.notEqual(hidden.label, plain.label);
    assert.match(hidden.label, /Sales⟦U\+200B⟧ Crew⟦U\+E0041⟧⟦U\+E0042⟧/);
    assert.match(hidden.description ?? '', /Online⟦U\+2060⟧/);
  });
});
