// Item 1 (size): builds the production bundles with esbuild's API, with the same options as
// esbuild.js --production, into a temp folder (dist/ and media/dist/ of the working tree are never
// touched), and reads the metafile to prove what is and is not in the main bundle.
// Also lays out the extension copies the harness loads (./harness/run.ts).
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');

/** esbuild.js's own bundle list (the same entry points, lazy modules and options), built elsewhere. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeBuilds } = require(path.join(repoRoot, 'esbuild.js')) as { makeBuilds(production: boolean): esbuild.BuildOptions[] };

export interface BundleReport {
  outDir: string;
  mainBytes: number;
  transportBytes: number;
  /** Every bundle of dist/ loaded on first use, by file name. */
  lazyBytes: Record<string, number>;
  /** Inputs of the main bundle from node_modules, by package. */
  packages: Record<string, number>;
  hasUndici: boolean;
  hasMarkdownIt: boolean;
  inputs: number;
}

/** Production build of every bundle into `outRoot` (dist/ and media/dist/ below it). */
export async function buildProduction(outRoot: string): Promise<BundleReport> {
  const dist = path.join(outRoot, 'dist');
  const builds = makeBuilds(true)
    // The command lines (the simulator's, the suite runner's) are not the extension's.
    .filter((b) => !('simulator-cli' in (b.entryPoints as Record<string, string>)) && !('suite-cli' in (b.entryPoints as Record<string, string>)))
    .map((b) => ({ ...b, absWorkingDir: repoRoot, outdir: path.join(outRoot, b.outdir!), metafile: true }));
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  // What activation loads: the entry and the composition root it reads (src/entry.ts).
  const loaded = results.filter((_, i) => ['extension', 'core'].some((name) => name in (builds[i].entryPoints as Record<string, string>)));
  const packages: Record<string, number> = {};
  const inputs = loaded.flatMap((result) => Object.entries(result.metafile?.inputs ?? {}));
  for (const [file, info] of inputs) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    if (m) {
      packages[m[1]] = (packages[m[1]] ?? 0) + info.bytes;
    }
  }
  return {
    outDir: outRoot,
    mainBytes: fs.statSync(path.join(dist, 'extension.js')).size + fs.statSync(path.join(dist, 'core.js')).size,
    transportBytes: fs.statSync(path.join(dist, 'transport.js')).size,
    lazyBytes: Object.fromEntries(fs.readdirSync(dist).filter((f) => f !== 'extension.js' && f !== 'core.js').map((f) => [f, fs.statSync(path.join(dist, f)).size])),
    packages,
    hasUndici: inputs.some(([file]) => /node_modules\/undici\//.test(file)),
    hasMarkdownIt: inputs.some(([file]) => /node_modules\/markdown-it\//.test(file)),
    inputs: inputs.length,
  };
}

/**
 * The real extension as packaged (package.json, package.nls.json, media/, production dist/), with
 * `activationEvents` replaced by one command event so that the bench suite, not startup, activates it.
 */
export function layOutRealExtension(built: string, target: string, activationCommand: string): void {
  fs.mkdirSync(target, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
  manifest.activationEvents = [`onCommand:${activationCommand}`];
  delete manifest.scripts;
  delete manifest.devDependencies;
  fs.writeFileSync(path.join(target, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.copyFileSync(path.join(repoRoot, 'package.nls.json'), path.join(target, 'package.nls.json'));
  fs.cpSync(path.join(repoRoot, 'media'), path.join(target, 'media'), { recursive: true, filter: (src) => !src.includes(`${path.sep}media${path.sep}dist`) });
  fs.cpSync(path.join(built, 'dist'), path.join(target, 'dist'), { recursive: true });
  fs.cpSync(path.join(built, 'media', 'dist'), path.join(target, 'media', 'dist'), { recursive: true });
  const codicons = path.join(repoRoot, 'node_modules', '@vscode', 'codicons', 'dist');
  fs.mkdirSync(path.join(target, 'media', 'dist', 'codicons'), { recursive: true });
  for (const file of ['codicon.css', 'codicon.ttf']) {
    fs.copyFileSync(path.join(codicons, file), path.join(target, 'media', 'dist', 'codicons', file));
  }
}

/** An extension that does nothing, activated by the same kind of event. */
export function layOutEmptyExtension(target: string, name: string, activationCommand: string): void {
  fs.mkdirSync(path.join(target, 'dist'), { recursive: true });
  const manifest = {
    name,
    publisher: 'crew-runs-bench',
    version: '0.0.1',
    engines: { vscode: '^1.96.0' },
    main: './dist/extension.js',
    activationEvents: [`onCommand:${activationCommand}`],
  };
  fs.writeFileSync(path.join(target, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(path.join(target, 'dist', 'extension.js'), '"use strict";\nexports.activate = function () {};\nexports.deactivate = function () {};\n');
}

/**
 * The floor for an extension that offers what Crew Runs offers (#45): Crew Runs' own manifest, its ids
 * renamed so that both load in one host, and an activate() that registers the same commands, views,
 * chat participant, language model tools and authentication provider, every body empty. Crew Runs'
 * activation is held against this, not against an extension that registers nothing.
 */
export function layOutFloorExtension(target: string, name: string, activationCommand: string): FloorContents {
  fs.mkdirSync(path.join(target, 'dist'), { recursive: true });
  const rename = (text: string) => text.replace(/\bcrewRuns/g, 'crewRunsFloor').replace(/"crewai"/g, '"crewaiFloor"');
  const manifest = JSON.parse(rename(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))) as Manifest;
  Object.assign(manifest, { name, publisher: 'crew-runs-bench', version: '0.0.1', main: './dist/extension.js', activationEvents: [`onCommand:${activationCommand}`] });
  delete manifest.scripts;
  delete manifest.devDependencies;
  delete manifest.dependencies;
  delete manifest.icon;
  const contributes = manifest.contributes;
  const contents: FloorContents = {
    commands: contributes.commands.map((entry) => entry.command),
    views: Object.values(contributes.views).flat().map((view) => view.id),
    participants: contributes.chatParticipants.map((participant) => participant.id),
    tools: contributes.languageModelTools.map((tool) => tool.name),
    authentication: contributes.authentication.map((provider) => ({ id: provider.id, label: provider.id })),
  };
  fs.writeFileSync(path.join(target, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(path.join(target, 'package.nls.json'), rename(fs.readFileSync(path.join(repoRoot, 'package.nls.json'), 'utf8')));
  // The walkthrough's pages, as Crew Runs ships them.
  fs.cpSync(path.join(repoRoot, 'media'), path.join(target, 'media'), { recursive: true, filter: (src) => !src.includes(`${path.sep}media${path.sep}dist`) });
  // The ids as literals: reading the manifest at activation would be work Crew Runs does not do.
  const code = `"use strict";
const vscode = require("vscode");
const ids = ${JSON.stringify(contents)};
const nothing = () => undefined;
exports.activate = function (context) {
  const keep = (disposable) => context.subscriptions.push(disposable);
  for (const command of ids.commands) keep(vscode.commands.registerCommand(command, nothing));
  for (const view of ids.views) keep(vscode.window.createTreeView(view, { treeDataProvider: { getChildren: () => [], getTreeItem: (item) => item }, showCollapseAll: true }));
  if (vscode.chat && typeof vscode.chat.createChatParticipant === "function") for (const participant of ids.participants) keep(vscode.chat.createChatParticipant(participant, nothing));
  if (vscode.lm && typeof vscode.lm.registerTool === "function") for (const tool of ids.tools) keep(vscode.lm.registerTool(tool, { invoke: nothing }));
  const sessions = new vscode.EventEmitter();
  keep(sessions);
  for (const provider of ids.authentication) keep(vscode.authentication.registerAuthenticationProvider(provider.id, provider.label, { onDidChangeSessions: sessions.event, getSessions: async () => [], createSession: async () => { throw new Error("floor"); }, removeSession: async () => undefined }, { supportsMultipleAccounts: false }));
};
exports.deactivate = nothing;
`;
  fs.writeFileSync(path.join(target, 'dist', 'extension.js'), code);
  return contents;
}

/** What the floor extension registers. */
export interface FloorContents {
  commands: string[];
  views: string[];
  participants: string[];
  tools: string[];
  authentication: { id: string; label: string }[];
}

interface Manifest extends Record<string, unknown> {
  contributes: {
    commands: { command: string }[];
    views: Record<string, { id: string }[]>;
    chatParticipants: { id: string }[];
    languageModelTools: { name: string }[];
    authentication: { id: string }[];
  };
}

if (require.main === module) {
  void (async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-bundle-'));
    console.log(await buildProduction(out));
    fs.rmSync(out, { recursive: true, force: true });
  })();
}
