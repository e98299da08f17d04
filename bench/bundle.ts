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
    .filter((b) => !('simulator-cli' in (b.entryPoints as Record<string, string>)))
    .map((b) => ({ ...b, absWorkingDir: repoRoot, outdir: path.join(outRoot, b.outdir!), metafile: true }));
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  const main = results[builds.findIndex((b) => 'extension' in (b.entryPoints as Record<string, string>))];
  const packages: Record<string, number> = {};
  const inputs = Object.entries(main.metafile?.inputs ?? {});
  for (const [file, info] of inputs) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    if (m) {
      packages[m[1]] = (packages[m[1]] ?? 0) + info.bytes;
    }
  }
  return {
    outDir: outRoot,
    mainBytes: fs.statSync(path.join(dist, 'extension.js')).size,
    transportBytes: fs.statSync(path.join(dist, 'transport.js')).size,
    lazyBytes: Object.fromEntries(fs.readdirSync(dist).filter((f) => f !== 'extension.js').map((f) => [f, fs.statSync(path.join(dist, f)).size])),
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

if (require.main === module) {
  void (async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-bundle-'));
    console.log(await buildProduction(out));
    fs.rmSync(out, { recursive: true, force: true });
  })();
}
