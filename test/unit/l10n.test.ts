// The translation inputs stay in step with the code: l10n/bundle.l10n.json holds every string src/ passes
// to l10n.t (regenerate with `npm run l10n`), and package.nls.json every %key% of package.json.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { getL10nJson } from '@vscode/l10n-dev';

const root = path.join(__dirname, '..', '..', '..');
const readJson = (file: string): unknown => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(file) : e.name.endsWith('.ts') ? [file] : [];
  });
}

/** Every string value under `contributes` that a user reads, with where it is. */
function shownLiterals(value: unknown, at: string, out: string[] = []): string[] {
  // The language model tools' descriptions are read by the model, not the user: English on purpose.
  const shownKeys = new Set(['title', 'shortTitle', 'description', 'markdownDescription', 'label', 'contents', 'displayName', 'userDescription', 'fullName', 'enumDescriptions', 'markdownEnumDescriptions', 'deprecationMessage', 'markdownDeprecationMessage', 'placeholder']);
  if (Array.isArray(value)) {
    value.forEach((v, i) => shownLiterals(v, `${at}[${i}]`, out));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (at.includes('.inputSchema')) {
        continue;
      }
      for (const text of shownKeys.has(key) ? [v].flat() : []) {
        if (typeof text === 'string' && !/^%[^%]+%$/.test(text)) {
          out.push(`${at}.${key}`);
        }
      }
      shownLiterals(v, `${at}.${key}`, out);
    }
  }
  return out;
}

describe('Localisation', () => {
  it('l10n/bundle.l10n.json holds exactly the strings src/ translates (npm run l10n)', async function () {
    // The extractor takes about 8 s of CPU for src/ (over 100 ms per file that translates): on a busy 2-core
    // machine that went past mocha's 20 s, so this test, CPU-bound and waiting on nothing, has a timeout of its own.
    this.timeout(120_000);
    const files = sourceFiles(path.join(root, 'src')).map((file) => ({ extension: '.ts', contents: readFileSync(file, 'utf8') }));
    const used = Object.keys(await getL10nJson(files)).sort();
    const committed = Object.keys(readJson('l10n/bundle.l10n.json') as Record<string, unknown>).sort();
    assert.ok(used.length > 400, `the extractor found ${used.length} strings`);
    assert.deepEqual(
      { missing: used.filter((s) => !committed.includes(s)), unused: committed.filter((s) => !used.includes(s)) },
      { missing: [], unused: [] },
      'l10n/bundle.l10n.json is stale: run `npm run l10n` and commit it',
    );
  });

  it('package.nls.json defines every %key% of package.json and no other', () => {
    const manifestText = readFileSync(path.join(root, 'package.json'), 'utf8');
    const keys = [...manifestText.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]);
    const nls = Object.keys(readJson('package.nls.json') as Record<string, unknown>);
    assert.deepEqual({ undefined: keys.filter((k) => !nls.includes(k)), unused: nls.filter((k) => !keys.includes(k)) }, { undefined: [], unused: [] });
    assert.equal((readJson('package.json') as { l10n?: unknown }).l10n, './l10n');
  });

  it("no text a user reads in package.json's contributes is left untranslated", () => {
    const manifest = readJson('package.json') as { contributes: unknown };
    assert.deepEqual(shownLiterals(manifest.contributes, 'contributes'), []);
  });
});
