// `npm run test:package`: the .vsix holds exactly the bundle, media and docs, within budget.
// Reads the zip's central directory itself: no unzip tool or extra dependency needed.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';

const repoRoot = path.resolve(__dirname, '..', '..');
const vsix = path.join(repoRoot, 'crew-runs.vsix');
const BUDGET_BYTES = 1024 * 1024;
// Issue 19: what activation loads. Command implementations, the run view host, the API client, the batch runner,
// jsonc-parser (counting untrusted workspace crews) and the folding and wording of status changes are bundles of
// their own, loaded on first use (esbuild.js, lazyModules). Target: the main bundle under 80 KB.
const MAIN_BUNDLE_BUDGET_BYTES = 80 * 1024;

const EXPECTED = [
  '[Content_Types].xml',
  'extension.vsixmanifest',
  'extension/LICENSE.txt',
  'extension/changelog.md',
  'extension/readme.md',
  'extension/package.json',
  'extension/package.nls.json',
  'extension/l10n/bundle.l10n.json',
  'extension/dist/extension.js',
  'extension/dist/core.js',
  'extension/dist/transport.js',
  'extension/dist/simulator.js',
  'extension/dist/chat.js',
  'extension/dist/batchUi.js',
  'extension/dist/batchEngine.js',
  'extension/dist/client.js',
  'extension/dist/commands.js',
  'extension/dist/crewFiles.js',
  'extension/dist/snapshots.js',
  'extension/dist/changeText.js',
  'extension/dist/markdown.js',
  'extension/media/icon.png',
  'extension/media/runView.css',
  'extension/media/dist/runView.js',
  'extension/media/batchResults.css',
  'extension/media/dist/batchResults.js',
  'extension/media/dist/codicons/codicon.css',
  'extension/media/dist/codicons/codicon.ttf',
  'extension/docs/images/crews-tree.png',
  'extension/docs/images/feedback.png',
  'extension/docs/images/kickoff-step.png',
  'extension/docs/images/run-view.png',
  'extension/media/walkthrough/add-crew.md',
  'extension/media/walkthrough/feedback.md',
  'extension/media/walkthrough/kick-off.md',
  'extension/media/walkthrough/watch.md',
].sort();

interface Entry {
  name: string;
  size: number;
}

/** Names and uncompressed sizes from the zip's end-of-central-directory record onwards. */
function zipEntries(file: string): Entry[] {
  const data = fs.readFileSync(file);
  const eocd = data.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, `${file} is not a zip file`);
  const count = data.readUInt16LE(eocd + 10);
  let offset = data.readUInt32LE(eocd + 16);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(data.readUInt32LE(offset), 0x02014b50, 'central directory entry');
    const size = data.readUInt32LE(offset + 24);
    const nameLength = data.readUInt16LE(offset + 28);
    const extraLength = data.readUInt16LE(offset + 30);
    const commentLength = data.readUInt16LE(offset + 32);
    entries.push({ name: data.toString('utf8', offset + 46, offset + 46 + nameLength), size });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const checks: [string, () => void][] = [
  ['the .vsix exists', () => assert.ok(fs.existsSync(vsix), `${vsix} is missing: run npm run package`)],
  ['it holds exactly the bundle, media and docs', () => assert.deepStrictEqual(zipEntries(vsix).map((e) => e.name).sort(), EXPECTED)],
  [`it is under ${BUDGET_BYTES / 1024} KB`, () => assert.ok(fs.statSync(vsix).size < BUDGET_BYTES, `${fs.statSync(vsix).size} bytes`)],
  [`its main bundle is under ${MAIN_BUNDLE_BUDGET_BYTES / 1024} KB`, () => {
    const main = zipEntries(vsix).find((e) => e.name === 'extension/dist/extension.js');
    assert.ok(main && main.size < MAIN_BUNDLE_BUDGET_BYTES, `${main?.size} bytes`);
  }],
  ['its manifest points at the bundle and has no eager activation', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { main: string; activationEvents: string[] };
    assert.equal(manifest.main, './dist/extension.js');
    assert.ok(!manifest.activationEvents.includes('*'));
  }],
];

let failed = 0;
for (const [name, check] of checks) {
  try {
    check();
    console.log(`  ✔ ${name}`);
  } catch (error) {
    failed++;
    console.log(`  ✖ ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
console.log(`package: ${checks.length - failed} passed, ${failed} failed (${(fs.existsSync(vsix) ? fs.statSync(vsix).size / 1024 : 0).toFixed(0)} KB)`);
process.exitCode = failed > 0 ? 1 : 0;
