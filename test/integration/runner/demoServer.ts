// The demo's own VS Code server configuration, shared by `npm run demo` (scripts/demo.ts) and the
// integration runner's demo windows (demoWindows.ts), so a test sees the demo exactly as a user does.
//
// A user's VS Code: no smoke-test driver (under it the workbench never draws notification toasts
// and refuses modal dialogs), and the extension installed rather than loaded as a development
// extension (a built workbench ignores extensionDevelopmentPath without that driver). Installed
// here means listed in the extensions folder's extensions.json, pointing at this checkout, which is
// how VS Code records an installed extension; no .vsix needs to be built. In front of the server, the key half the
// workbench seals its secrets with (demoKeyServer.ts: without it a reload lost every secret).
import type { ChildProcess } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'jsonc-parser';
import { type KeyServer, startKeyServer } from './demoKeyServer';
import { freeLoopbackPort } from './processes';
import { QUIET_USER_SETTINGS, startVsCodeServer } from './server';

export interface DemoServerOptions {
  nodeBin: string;
  serverMain: string;
  port: number;
  /** The extension's folder (this checkout, with dist/ built). */
  extensionDir: string;
  /** Holds user-data/, server-data/, extensions/ and workspace/; kept between demos. */
  demoDir: string;
  logFile: string;
  /** Environment to start from; test-only variables are dropped from it. */
  env: NodeJS.ProcessEnv;
  onSpawn?: (server: ChildProcess) => void;
}

export interface DemoServer {
  server: ChildProcess;
  /** The workbench on the demo folder, as the user opens it. */
  url: string;
  /** What the demo's settings turn off, in words for its first message (demoOffNotes). */
  off: string[];
  /** The front on `port` (the server itself listens on another port): close it after stopping the server. */
  front: KeyServer;
}

/**
 * What the demo's user settings (`settingsFile`, as they are now: the user may have changed them) turn off that Crew
 * Runs offers, each as a sentence that also says how to turn it on. Nothing is off without a word.
 */
export function demoOffNotes(settingsFile: string): string[] {
  let settings: unknown;
  try {
    settings = parse(fs.readFileSync(settingsFile, 'utf8'), [], { allowTrailingComma: true });
  } catch {
    return []; // No settings file: VS Code's defaults.
  }
  const notes: string[] = [];
  if ((settings as Record<string, unknown> | undefined)?.['chat.disableAIFeatures'] === true) {
    notes.push(
      'VS Code\'s AI features are off ("chat.disableAIFeatures": true in its user settings): its chat, the crew tools ' +
        'and @crews need a language model, and this VS Code has none. Everything else is on, Chat with Flow too (it ' +
        'talks to the flow, not to a model). To try them, set "chat.disableAIFeatures": false (F1, Preferences: Open ' +
        'User Settings (JSON)) and add a model (for example GitHub Copilot).',
    );
  }
  return notes;
}

interface InstalledExtension {
  identifier: { id: string };
  version: string;
  location: { $mid: 1; scheme: 'file'; path: string };
  metadata?: Record<string, unknown>;
}

/** Records the checkout as an installed extension in `extensionsDir` (keeping any other entry). */
export function installExtensionFolder(extensionsDir: string, extensionDir: string): void {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
  const id = `${manifest.publisher}.${manifest.name}`;
  const file = path.join(extensionsDir, 'extensions.json');
  fs.mkdirSync(extensionsDir, { recursive: true });
  let entries: InstalledExtension[] = [];
  try {
    const existing: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    entries = Array.isArray(existing) ? (existing as InstalledExtension[]) : [];
  } catch {
    // No extensions yet.
  }
  entries = entries.filter((entry) => entry?.identifier?.id?.toLowerCase() !== id.toLowerCase());
  entries.push({ identifier: { id }, version: manifest.version, location: { $mid: 1, scheme: 'file', path: extensionDir }, metadata: { source: 'vsix' } });
  fs.writeFileSync(file, JSON.stringify(entries));
}

/**
 * The environment a demo server gets: the caller's, without test hooks or runner variables, CREW_RUNS_DEMO=1
 * and this start's id (its extension hosts, one after each reload, say the demo's hello once per start).
 */
export function demoEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('CREW_RUNS_TEST') && !key.startsWith('CREW_RUNS_UI')));
  return { ...clean, CREW_RUNS_DEMO: '1', CREW_RUNS_DEMO_START: randomUUID() };
}

export async function startDemoServer(options: DemoServerOptions): Promise<DemoServer> {
  const userDataDir = path.join(options.demoDir, 'user-data');
  const workspace = path.join(options.demoDir, 'workspace');
  const extensionsDir = path.join(options.demoDir, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  if (!fs.existsSync(settingsFile)) {
    fs.writeFileSync(settingsFile, JSON.stringify(QUIET_USER_SETTINGS, null, 2));
  }
  // Something to try "From the JSON in the active editor" with.
  fs.writeFileSync(path.join(workspace, 'inputs.json'), JSON.stringify({ topic: 'AI agents in code editors', audience: 'developers' }, null, 2) + '\n');
  // An example test suite of the demo's Echo Crew, one case failing on purpose (the Testing view, `npm run suite`).
  fs.copyFileSync(path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'suites', 'demo.crew-suite.yaml'), path.join(workspace, 'suites.crew-suite.yaml'));
  installExtensionFolder(extensionsDir, options.extensionDir);

  const serverPort = await freeLoopbackPort();
  const front = await startKeyServer({ port: options.port, targetPort: serverPort, keyFile: path.join(userDataDir, 'serve-web-key-half') });
  const server = await startVsCodeServer({
    nodeBin: options.nodeBin,
    serverMain: options.serverMain,
    port: serverPort,
    userDataDir,
    serverDataDir: path.join(options.demoDir, 'server-data'),
    extensionsDir,
    env: demoEnvironment(options.env),
    logFile: options.logFile,
    onSpawn: options.onSpawn,
    smokeTestDriver: false,
  }).catch(async (error: unknown) => {
    await front.close();
    throw error;
  });
  const url = `http://127.0.0.1:${options.port}/?folder=${encodeURIComponent(workspace)}`;
  return { server, url, front, off: demoOffNotes(settingsFile) };
}
