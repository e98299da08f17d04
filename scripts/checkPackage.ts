// `npm run package` (and so `npm run test:package`): the .vsix holds exactly the bundle, media and
// docs, within budget, and its manifest has what both marketplaces (the Visual Studio Marketplace
// and Open VSX) need to list it. Prints what is inside and how big. Reads the zip's central
// directory itself: no unzip tool or extra dependency needed.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';

const repoRoot = path.resolve(__dirname, '..', '..');
const vsix = path.join(repoRoot, 'crew-runs.vsix');
const BUDGET_BYTES = 1024 * 1024;
// What activation loads: the extension's own code in one bundle (about 320 KB minified); undici, markdown-it and
// the simulator are bundles of their own, loaded on first use (esbuild.js, lazyModules). The budget catches a
// heavy dependency slipping into the main bundle; activation time itself is the bench's "activation" row.
const MAIN_BUNDLE_BUDGET_BYTES = 400 * 1024;

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
  'extension/dist/markdown.js',
  'extension/dist/traceViews.js',
  'extension/dist/chatTrace.js',
  'extension/dist/chat.js',
  'extension/dist/crewFiles.js',
  'extension/dist/jsonProblem.js',
  'extension/dist/batchTables.js',
  'extension/dist/triggerKickoff.js',
  'extension/dist/chatPicker.js',
  'extension/dist/chatWords.js',
  'extension/dist/deployActions.js',
  'extension/dist/signIn.js',
  'extension/dist/suites.js',
  'extension/dist/suiteExplorer.js',
  'extension/schemas/crew-suite.schema.json',
  'extension/media/icon.png',
  'extension/media/runView.css',
  'extension/media/dist/runView.js',
  'extension/media/batchResults.css',
  'extension/media/dist/batchResults.js',
  'extension/media/dist/flowChat.js',
  'extension/media/flowChat.css',
  'extension/media/dist/codicons/codicon.css',
  'extension/media/dist/codicons/codicon.ttf',
  'extension/docs/images/ci-redeploy-step.png',
  'extension/docs/images/crews-tree.png',
  'extension/docs/images/feedback.png',
  'extension/docs/images/flow-chat.png',
  'extension/docs/images/import-crews.png',
  'extension/docs/images/json-input-step.png',
  'extension/docs/images/kickoff-step.png',
  'extension/docs/images/organization-crews.png',
  'extension/docs/images/run-view.png',
  'extension/docs/images/test-suites.png',
  'extension/docs/images/trace.png',
  'extension/docs/images/trigger-apps.png',
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

interface Manifest {
  name: string;
  displayName: string;
  description: string;
  version: string;
  publisher: string;
  license?: string;
  icon?: string;
  repository?: { type?: string; url?: string } | string;
  bugs?: { url?: string };
  galleryBanner?: { color?: string; theme?: string };
  categories?: string[];
  keywords?: string[];
  engines: { vscode: string };
  main: string;
  browser?: string;
  extensionKind?: string[];
  activationEvents: string[];
  enabledApiProposals?: string[];
  devDependencies?: Record<string, string>;
}

/** The manifest as packaged (it is the same file as package.json), with %key% texts from package.nls.json. */
function packagedManifest(): Manifest {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Manifest;
  const nls = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const text = (value: string) => value.replace(/^%(.+)%$/, (whole, key: string) => nls[key] ?? whole);
  return { ...manifest, displayName: text(manifest.displayName), description: text(manifest.description) };
}

/** The categories the Visual Studio Marketplace offers (Open VSX takes the same names). */
const MARKETPLACE_CATEGORIES = [
  'AI', 'Azure', 'Chat', 'Data Science', 'Debuggers', 'Education', 'Extension Packs', 'Formatters', 'Keymaps', 'Language Packs', 'Linters',
  'Machine Learning', 'Notebooks', 'Other', 'Programming Languages', 'SCM Providers', 'Snippets', 'Testing', 'Themes', 'Visualization',
];

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const data = fs.readFileSync(file);
  assert.ok(data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), `${path.basename(file)} is not a PNG`);
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

/** The lowest version a `^x.y.z` / `>=x.y.z` range admits. */
function floorOf(range: string): string {
  const match = /^(?:\^|>=|~)?(\d+\.\d+\.\d+)$/.exec(range.trim());
  assert.ok(match, `an unexpected version range ${range}`);
  return match[1];
}

const checks: [string, () => void][] = [
  ['the .vsix exists', () => assert.ok(fs.existsSync(vsix), `${vsix} is missing: run npm run package`)],
  ['it holds exactly the bundle, media and docs', () => assert.deepStrictEqual(zipEntries(vsix).map((e) => e.name).sort(), EXPECTED)],
  [`it is under ${BUDGET_BYTES / 1024} KB`, () => assert.ok(fs.statSync(vsix).size < BUDGET_BYTES, `${fs.statSync(vsix).size} bytes`)],
  [`its main bundle (the entry and the composition root it loads) is under ${MAIN_BUNDLE_BUDGET_BYTES / 1024} KB`, () => {
    const sizes = ['extension.js', 'core.js'].map((file) => zipEntries(vsix).find((e) => e.name === `extension/dist/${file}`)?.size ?? Infinity);
    assert.ok(sizes[0] + sizes[1] < MAIN_BUNDLE_BUDGET_BYTES, `${sizes.join(' + ')} bytes`);
  }],
  ['its composition root is ASCII: every start reads it one byte a character (src/util/codeCache.ts)', () => {
    const core = fs.readFileSync(path.join(repoRoot, 'dist', 'core.js'));
    const at = core.findIndex((byte) => byte > 0x7f);
    assert.ok(at < 0, `dist/core.js has a non-ASCII character near "${core.subarray(Math.max(0, at - 40), at + 20).toString('utf8')}" (esbuild escapes strings, not regular expressions: write \\uXXXX there)`);
  }],
  ["its transport bundle loads without vscode: it is also the status reader's worker (src/api/statusReader.ts), a thread with no vscode", () => {
    const transport = fs.readFileSync(path.join(repoRoot, 'dist', 'transport.js'), 'utf8');
    assert.ok(!/require\((["'`])vscode\1\)/.test(transport), 'dist/transport.js requires vscode (an import of @vscode/l10n, or of vscode, reached from src/api/transport.ts?)');
  }],
  ["its suites bundle loads without vscode: it is also the suite reader's worker (src/suites/core/parseThread.ts)", () => {
    const suites = fs.readFileSync(path.join(repoRoot, 'dist', 'suites.js'), 'utf8');
    assert.ok(!/require\((["'`])vscode\1\)/.test(suites), 'dist/suites.js requires vscode (an import of vscode reached from src/suites/core/lazy.ts?)');
  }],
  ['its manifest points at the bundle and has no eager activation', () => {
    const manifest = packagedManifest();
    assert.equal(manifest.main, './dist/extension.js');
    assert.ok(!manifest.activationEvents.includes('*'));
  }],
  ['its manifest has what both marketplaces list: names, description, publisher, version, license, repository, issues', () => {
    const manifest = packagedManifest();
    assert.match(manifest.name, /^[a-z0-9][a-z0-9-]*$/, 'name: lowercase, no spaces');
    assert.match(manifest.publisher, /^[a-z0-9][a-z0-9-]*$/, 'publisher: an id');
    assert.match(manifest.version, /^\d+\.\d+\.\d+$/, 'version: major.minor.patch (the Visual Studio Marketplace takes no pre-release tag)');
    assert.ok(manifest.displayName.length > 0 && !manifest.displayName.startsWith('%'), 'displayName resolves');
    assert.ok(manifest.description.length >= 20 && !manifest.description.startsWith('%'), 'description resolves');
    assert.equal(manifest.license, 'MIT');
    assert.ok(zipEntries(vsix).some((e) => e.name === 'extension/LICENSE.txt'), 'the license text is packaged');
    const repository = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
    assert.match(repository ?? '', /^https:\/\//, 'repository: an https URL (relative README images resolve against it)');
    assert.match(manifest.bugs?.url ?? '', /^https:\/\//, 'bugs: an https URL');
  }],
  ['its icon is a packaged PNG of at least 128×128 (no SVG), with a gallery banner', () => {
    const manifest = packagedManifest();
    assert.ok(manifest.icon && /\.png$/.test(manifest.icon), 'icon: a PNG (both marketplaces refuse SVG icons)');
    assert.ok(zipEntries(vsix).some((e) => e.name === `extension/${manifest.icon}`), 'the icon is packaged');
    const { width, height } = pngSize(path.join(repoRoot, manifest.icon));
    assert.ok(width >= 128 && height >= 128 && width === height, `icon ${width}×${height}`);
    assert.match(manifest.galleryBanner?.color ?? '', /^#[0-9a-f]{6}$/i);
    assert.ok(manifest.galleryBanner?.theme === 'dark' || manifest.galleryBanner?.theme === 'light');
  }],
  ['its categories are marketplace categories, and it has keywords (at most 30)', () => {
    const manifest = packagedManifest();
    assert.ok(manifest.categories && manifest.categories.length > 0);
    assert.deepStrictEqual(manifest.categories.filter((c) => !MARKETPLACE_CATEGORIES.includes(c)), [], 'unknown categories');
    assert.ok(manifest.keywords && manifest.keywords.length > 0 && manifest.keywords.length <= 30, `${manifest.keywords?.length} keywords`);
  }],
  ['it uses no proposed API, and @types/vscode is the engines floor (vsce refuses newer types)', () => {
    const manifest = packagedManifest();
    assert.equal(manifest.enabledApiProposals, undefined, 'enabledApiProposals: the marketplaces refuse extensions that use proposed APIs');
    assert.equal(floorOf(manifest.devDependencies?.['@types/vscode'] ?? ''), floorOf(manifest.engines.vscode));
  }],
  ['it runs where the workspace is (remote: next to the network to the crews), and never in a browser-only editor', () => {
    const manifest = packagedManifest();
    assert.deepStrictEqual(manifest.extensionKind, ['workspace']);
    // No web entry: VS Code for the Web then says the extension is not available there instead of failing silently.
    assert.equal(manifest.browser, undefined);
  }],
];

/** What is inside, biggest first, so a package that grew shows why. */
function listContents(): void {
  if (!fs.existsSync(vsix)) {
    return;
  }
  const entries = zipEntries(vsix).sort((a, b) => b.size - a.size || a.name.localeCompare(b.name));
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`.padStart(10);
  console.log(`${path.basename(vsix)}: ${kb(fs.statSync(vsix).size).trim()} compressed, ${entries.length} files, ${kb(entries.reduce((sum, e) => sum + e.size, 0)).trim()} unpacked`);
  for (const entry of entries) {
    console.log(`  ${kb(entry.size)}  ${entry.name}`);
  }
}

listContents();
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
