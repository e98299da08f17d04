// The inert-text rule for VS Code surfaces, checked against the patterns VS Code itself uses to find links
// (vs/base/common/linkedText.ts) and icons (vs/base/browser/ui/iconLabel/iconLabels.ts).
import * as assert from 'node:assert/strict';
import { inert, inertLine, inertScalar, oneLine, stripControls, WORD_JOINER } from '../../src/util/inertText';
import { SPOOF_INPUT_NAME, UI_SPOOF_PAYLOADS, XSS_PAYLOADS } from '../fixtures/hostileCorpus';

// Copies of VS Code's own patterns: what notifications, input prompts and quick input descriptions link, and what
// quick picks, the status bar and theme-icon Markdown render as icons.
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const VSCODE_ICON = /(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z-]+)?)\)/g;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

describe('inertText', () => {
  it('the corpus really holds links and icons by VS Code\'s own patterns (so the checks below can fail)', () => {
    assert.ok(UI_SPOOF_PAYLOADS.filter((p) => new RegExp(VSCODE_LINK.source, 'gi').test(p)).length >= 5);
    assert.ok(new RegExp(VSCODE_ICON.source, 'g').test(UI_SPOOF_PAYLOADS.join(' ')));
    assert.ok(BIDI.test(SPOOF_INPUT_NAME));
  });

  for (const payload of [...UI_SPOOF_PAYLOADS, SPOOF_INPUT_NAME, ...XSS_PAYLOADS]) {
    it(`leaves no link, icon or bidi control: ${JSON.stringify(payload).slice(0, 60)}`, () => {
      for (const shown of [inert(payload), inertLine(payload)]) {
        assert.equal(new RegExp(VSCODE_LINK.source, 'gi').exec(shown), null, shown);
        assert.equal(new RegExp(VSCODE_ICON.source, 'g').exec(shown), null, shown);
        assert.doesNotMatch(shown, BIDI);
        assert.doesNotMatch(shown, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/);
        // What the reader sees is the text itself, minus invisible controls.
        assert.equal(shown.split(WORD_JOINER).join(''), stripControls(shown === inert(payload) ? payload : payload.replace(/\r\n|[\r\n\t\u2028\u2029]/g, ' ')));
      }
    });
  }

  it('keeps ordinary text unchanged, and line breaks only off the one-line form', () => {
    assert.equal(inert('Research Crew: topic, audience (2 of 3) costs $5 [draft]'), 'Research Crew: topic, audience (2 of 3) costs $5 [draft]');
    assert.equal(inert('a\nb\tc'), 'a\nb\tc');
    assert.equal(inertLine('a\r\nb\nc\td'), 'a b c d');
  });

  it('inertScalar: a number as its digits, a string trimmed, inert and cut to its max, else nothing', () => {
    assert.strictEqual(inertScalar(42, 10), '42');
    assert.strictEqual(inertScalar(Number.NaN, 10), undefined);
    assert.strictEqual(inertScalar('  ERROR  ', 10), 'ERROR');
    assert.strictEqual(inertScalar('a\nb', 10), inertLine('a\nb'));
    assert.strictEqual(inertScalar('abcdef', 3), 'abc');
    assert.strictEqual(inertScalar('   ', 10), undefined);
    assert.strictEqual(inertScalar({ toString: () => 'x' }, 10), undefined);
  });

  it('is idempotent', () => {
    for (const payload of UI_SPOOF_PAYLOADS) {
      assert.equal(inert(inert(payload)), inert(payload));
    }
  });

  it('oneLine: inert, whitespace collapsed, cut to max with an ellipsis', () => {
    assert.equal(oneLine('  a\n\tb  [x](y) \u202E', 50), `a b [x]${WORD_JOINER}(y)`);
    assert.equal(oneLine('abcdef', 4), 'abc…');
    assert.equal(oneLine('abcd', 4), 'abcd');
  });
});
