// The tree cuts a run's label to leave its state in sight while the row's inline actions show: the
// count it reserves room for must be the count package.json's menus really show.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runRowActionCount } from '../../src/sidebar/runRowActions';

interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}

const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { menus: Record<string, MenuItem[]> } };

/** Evaluates the `view == …`, `viewItem =~ /…/` and `!(viewItem =~ /…/)` terms the menus use. */
function shows(when: string, contextValue: string): boolean {
  return when.split('&&').every((raw) => {
    const term = raw.trim();
    if (term.startsWith('view ==')) {
      return term === 'view == crewRuns.crews';
    }
    const match = /^(!\()?viewItem =~ \/(.*)\/\)?$/.exec(term);
    assert.ok(match, `a term this test does not know: ${term}`);
    return new RegExp(match[2]).test(contextValue) !== Boolean(match[1]);
  });
}

describe('Run row actions', () => {
  it('counts the inline actions package.json shows on every kind of run row', () => {
    const inline = manifest.contributes.menus['view/item/context'].filter((m) => m.group?.startsWith('inline') && m.when?.includes('^run'));
    assert.ok(inline.length >= 4, 'the run rows have inline actions');
    for (const watching of ['finished', 'watching', 'stopped']) {
      for (const feedback of ['', ' needsFeedback']) {
        for (const noStop of ['', ' noStop']) {
          const contextValue = `run state-running ${watching}${feedback}${noStop}`;
          const shown = inline.filter((m) => shows(m.when!, contextValue)).map((m) => m.command);
          assert.equal(runRowActionCount(contextValue), shown.length, `${contextValue}: ${shown.join(', ')}`);
        }
      }
    }
  });
});
