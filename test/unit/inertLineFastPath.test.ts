// inertLine returns text that needs nothing as it is (one scan): it must still change exactly what the full rule
// changes, for every character the rule cares about, wherever it stands.
import * as assert from 'node:assert/strict';
import { inert, inertLine } from '../../src/util/inertText';

const fullRule = (text: string) => inert(text.replace(/\r\n|[\r\n\t\u2028\u2029]/g, ' '));

describe('inertLine fast path', () => {
  it('gives what the full rule gives, for plain text and for every special character anywhere', () => {
    const specials = ['\r\n', '\r', '\n', '\t', '\u2028', '\u2029', '\u0000', '\u001b', '\u007f', '\u009f', '\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '](', '$(', ']', '$', '\u2060'];
    const bases = ['', 'Crew is Online', 'Step 1: pip install crewai-tools — résolu 依存', 'a [b](https://x) c'];
    for (const base of bases) {
      assert.equal(inertLine(base), fullRule(base));
      for (const special of specials) {
        for (const text of [special + base, base + special, base.slice(0, 3) + special + base.slice(3), `${special}(${base}`]) {
          assert.equal(inertLine(text), fullRule(text), JSON.stringify(text));
        }
      }
    }
    assert.equal(inertLine('click [here](command:x)'), 'click [here]\u2060(command:x)');
  });
});
