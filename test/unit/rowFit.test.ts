// Issue #52, finding 1, the pure part: a tree row's label and description at the default sidebar width, in the
// widths the workbench's page measured (treeLabels.test.ts checks the drawn page).
import * as assert from 'node:assert/strict';
import { cutToWidth, fitRow, textWidth } from '../../src/ui/rowFit';

/** What a row takes as drawn: the label, the description's margin, the description in its smaller font. */
const drawn = (row: { label: string; description: string }) => textWidth(row.label) + (row.description ? 6 + textWidth(row.description, 0.9) : 0);

describe('tree row fit (#52)', () => {
  it('measures text as the page drew it (label 13 px, description 11.7 px)', () => {
    // Widths the page reported for these runs' label and description elements.
    assert.ok(Math.abs(textWidth('Crew Runs onboa…') - 126.11) < 1, String(textWidth('Crew Runs onboa…')));
    assert.ok(Math.abs(textWidth('Lifecycle') - 57.03) < 0.5, String(textWidth('Lifecycle')));
    assert.ok(Math.abs(textWidth('succeeded · just now', 0.9) - 123.06) < 1, String(textWidth('succeeded · just now', 0.9)));
    assert.ok(textWidth('中文') >= 26 && textWidth('😀') >= 16, 'wide scripts and emoji are taken as wide');
  });

  it('keeps the state whole and gives the name the rest, icons showing; wide letters are cut sooner', () => {
    const room = (actions: number, depth = 2) => 217 + 8 * (2 - depth) - 20 * actions;
    for (const name of ['Crew Runs onboarding research for the spring release', 'm'.repeat(60), 'i'.repeat(120), 'Отчёт о продажах за второй квартал', '市场研究报告第二季度的销售数据分析']) {
      for (const [state, actions] of [['needs feedback', 2], ['succeeded', 1], ['not watching', 2], ['running', 1], ['queued', 0]] as const) {
        const row = fitRow({ name, state, suffixes: [' · just now'] }, { actions });
        assert.equal(row.description, state, `no suffix with a long name: ${JSON.stringify(row)}`);
        assert.ok(drawn(row) <= room(actions), `${JSON.stringify(row)} takes ${drawn(row).toFixed(1)} px of ${room(actions)}`);
        assert.ok(row.label.endsWith('…') && row.label.length >= 4, row.label);
      }
    }
    const wide = fitRow({ name: 'm'.repeat(60), state: 'succeeded' }, { actions: 1 });
    const narrow = fitRow({ name: 'i'.repeat(120), state: 'succeeded' }, { actions: 1 });
    assert.ok(narrow.label.length > 2 * wide.label.length, `${wide.label.length} wide letters, ${narrow.label.length} narrow ones`);
  });

  it('shows suffixes in order, each whole and only while the whole name fits with it', () => {
    const suffixes = [' 1/3', ' · row 12', ' · 45 min ago'];
    for (let length = 1; length <= 40; length++) {
      const name = 'Research topic number one'.repeat(2).slice(0, length);
      const row = fitRow({ name, state: 'running', suffixes }, { actions: 1 });
      const shown = row.description.slice('running'.length);
      assert.ok(suffixes.map((_, i) => suffixes.slice(0, i + 1).join('')).concat('').includes(shown), `whole suffixes, in order: ${JSON.stringify(row)}`);
      if (shown) {
        assert.equal(row.label, name, `a suffix only beside the whole name: ${JSON.stringify(row)}`);
      }
      assert.ok(drawn(row) <= 197, JSON.stringify(row));
    }
    assert.equal(fitRow({ name: 'Aged', state: 'succeeded', suffixes: [' · 12 min ago'] }, { actions: 1 }).description, 'succeeded · 12 min ago');
  });

  it('ends the label with what must stay ("#2"), and a top row has a level more room', () => {
    const row = fitRow({ name: 'Crew Runs onboarding research for the spring release', nameEnd: ' #2', state: 'succeeded' }, { actions: 1 });
    assert.match(row.label, /^Crew Runs on… #2$/);
    const top = fitRow({ name: 'Batch Table: a-long-source-file-name-for-the-batch.csv', state: '28/28 · 2 failed' }, { depth: 1, actions: 1 });
    const child = fitRow({ name: 'Batch Table: a-long-source-file-name-for-the-batch.csv', state: '28/28 · 2 failed' }, { depth: 2, actions: 1 });
    assert.ok(top.label.length > child.label.length, `${top.label} / ${child.label}`);
  });

  it('cuts at a width, never under the minimum, and leaves what fits alone', () => {
    assert.equal(cutToWidth('Short', 100), 'Short');
    assert.equal(cutToWidth('A longer name than fits', 60), 'A long…');
    assert.equal(cutToWidth('A longer name than fits', 1, 8), 'A longer…');
    assert.equal(cutToWidth('Name with space', 56), 'Name…', 'no space before the ellipsis');
  });
});
