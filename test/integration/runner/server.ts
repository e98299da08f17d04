// Starts VS Code's server (from code-server, see install.ts) the way both the integration runner and
// `npm run demo` need it: loopback only, no connection token, its data in the given folders, and
// the smoke-test driver for tests only (it lets the page load an extension from a folder and run
// tests, but hides notification toasts and modal dialogs: the demo runs without it, demoServer.ts).
import { type ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import { killProcessGroup } from './processes';

/** User settings that keep a run free of Restricted Mode, chat/AI panels, welcome pages and telemetry. */
export const QUIET_USER_SETTINGS: Readonly<Record<string, unknown>> = {
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'git.enabled': false,
  // The server runs beside the browser: nothing to forward, and the Ports counter would count every test's crews.
  'remote.autoForwardPorts': false,
};

export interface VsCodeServerOptions {
  /** Node to run the server with (install.ts: Node 24). */
  nodeBin: string;
  /** .../lib/vscode/out/server-main.js */
  serverMain: string;
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  userDataDir: string;
  serverDataDir: string;
  extensionsDir: string;
  /** The whole environment of the server; whatever the server gets, its extension hosts get. */
  env: NodeJS.ProcessEnv;
  /** Server stdout and stderr go here (appended). */
  logFile: string;
  cwd?: string;
  /** How long to wait for "listening on" (default 60 s). */
  startTimeoutMs?: number;
  /** Called with the child right after the spawn, before it listens (so a Ctrl+C meanwhile can stop it). */
  onSpawn?: (server: ChildProcess) => void;
  /**
   * Tests: the page may load the extension from a folder and run a test module. Never for what a
   * user sees: under it the workbench draws no notification toasts and shows no modal dialogs.
   */
  smokeTestDriver: boolean;
}

/**
 * Spawns the server in its own process group (it forks helpers that hold its pipes open: stop it
 * with killProcessGroup(server.pid)) and resolves once it listens. If it exits or does not listen in
 * time, its group is killed and the promise rejects with what it printed.
 */
export async function startVsCodeServer(options: VsCodeServerOptions): Promise<ChildProcess> {
  const args = [
    options.serverMain,
    '--host', options.host ?? '127.0.0.1',
    '--port', String(options.port),
    '--without-connection-token',
    '--accept-server-license-terms',
    // Lets the page load the extension from a folder (extensionDevelopmentPath) and run tests.
    ...(options.smokeTestDriver ? ['--enable-smoke-test-driver'] : []),
    '--disable-telemetry',
    '--user-data-dir', options.userDataDir,
    '--server-data-dir', options.serverDataDir,
    '--extensions-dir', options.extensionsDir,
  ];
  const log = fs.createWriteStream(options.logFile, { flags: 'a' });
  const server = spawn(options.nodeBin, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout?.pipe(log, { end: false });
  server.stderr?.pipe(log, { end: false });
  server.once('exit', () => log.end());
  options.onSpawn?.(server);

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  try {
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`the VS Code server did not report listening within ${timeoutMs / 1000} s:\n${seen}`)), timeoutMs);
      server.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/listening on/i.test(seen)) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      server.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the VS Code server exited early (${signal ?? code}):\n${seen}`));
      });
    });
  } catch (error) {
    if (server.pid !== undefined) {
      await killProcessGroup(server.pid);
    }
    throw error;
  }
  return server;
}
