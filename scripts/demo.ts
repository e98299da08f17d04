// `npm run demo`: VS Code in the browser with Crew Runs loaded and the demo crews ready.
// Uses the same VS Code server as the integration tests (installed into .vscode-test/ on first
// use). The extension starts the demo crews itself (CREW_RUNS_DEMO=1) and puts their tokens into
// its SecretStorage, exactly as "Try the Demo Crew" does. Runs until Ctrl+C, then stops it all.
import type { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ensureServerInstalled } from '../test/integration/runner/install';
import { freeLoopbackPort, killProcessGroup } from '../test/integration/runner/processes';
import { QUIET_USER_SETTINGS, startVsCodeServer } from '../test/integration/runner/server';

const repoRoot = path.resolve(__dirname, '..', '..');
const cacheDir = path.resolve(process.env.CREW_RUNS_TEST_CACHE_DIR ?? path.join(repoRoot, '.vscode-test'));
const demoDir = path.join(cacheDir, 'demo');


async function main(): Promise<void> {
  const { nodeBin, serverMain } = ensureServerInstalled(cacheDir);
  const userDataDir = path.join(demoDir, 'user-data');
  const workspace = path.join(demoDir, 'workspace');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  if (!fs.existsSync(settingsFile)) {
    fs.writeFileSync(settingsFile, JSON.stringify(QUIET_USER_SETTINGS, null, 2));
  }
  // Something to try "From the JSON in the active editor" with.
  fs.writeFileSync(path.join(workspace, 'inputs.json'), JSON.stringify({ topic: 'AI agents in code editors', audience: 'developers' }, null, 2) + '\n');

  const port = Number(process.env.CREW_RUNS_DEMO_PORT) || (await freeLoopbackPort());
  const serverLogFile = path.join(demoDir, 'server.log');
  fs.rmSync(serverLogFile, { force: true });
  let stopping = false;
  const stop = async (code: number) => {
    stopping = true;
    console.log('\nStopping the VS Code server and the demo crews…');
    if (server?.pid !== undefined) {
      await killProcessGroup(server.pid);
    }
    process.exit(code);
  };
  let server: ChildProcess | undefined;
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  server = await startVsCodeServer({
    nodeBin,
    serverMain,
    port,
    userDataDir,
    serverDataDir: path.join(demoDir, 'server-data'),
    extensionsDir: path.join(demoDir, 'extensions'),
    env: { ...process.env, CREW_RUNS_DEMO: '1' },
    logFile: serverLogFile,
    onSpawn: (child) => (server = child),
  });
  server.once('exit', (code) => {
    if (!stopping) {
      console.error(`The VS Code server stopped (${code}); see ${path.relative(process.cwd(), serverLogFile)}`);
      process.exit(1);
    }
  });

  const authority = `127.0.0.1:${port}`;
  const payload = [['extensionDevelopmentPath', `vscode-remote://${authority}${repoRoot}`], ['skipWelcome', 'true']];
  const url = `http://${authority}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  console.log(`
Crew Runs demo is ready. Open this URL in a browser on this machine:

  ${url}

The demo crews (Research Crew, Review Crew with a human-feedback step, Idea Flow) run inside the
extension on this machine; nothing is sent anywhere. Open the Crew Runs view in the activity bar,
kick off a crew, watch the run, and give feedback when the Review Crew asks for it.
Press Ctrl+C to stop.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
