// `npm run demo`: VS Code in the browser with Crew Runs installed and the demo crews ready.
// Uses the same VS Code server as the integration tests (installed into .vscode-test/ on first
// use), started as a user's VS Code runs (demoServer.ts: no test-only flags, so notifications pop
// up and dialogs show). The extension starts the demo crews itself (CREW_RUNS_DEMO=1) and puts
// their tokens into its SecretStorage, exactly as "Try the Demo Crew" does. Runs until Ctrl+C.
import type { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { KeyServer } from '../test/integration/runner/demoKeyServer';
import { startDemoServer } from '../test/integration/runner/demoServer';
import { ensureServerInstalled } from '../test/integration/runner/install';
import { freeLoopbackPort, killProcessGroup } from '../test/integration/runner/processes';

const repoRoot = path.resolve(__dirname, '..', '..');
const cacheDir = path.resolve(process.env.CREW_RUNS_TEST_CACHE_DIR ?? path.join(repoRoot, '.vscode-test'));
const demoDir = path.join(cacheDir, 'demo');


async function main(): Promise<void> {
  const { nodeBin, serverMain } = await ensureServerInstalled(cacheDir);
  fs.mkdirSync(demoDir, { recursive: true });
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
    await front?.close();
    process.exit(code);
  };
  let server: ChildProcess | undefined;
  // Closed after the server is stopped (a Ctrl+C may come before it is started).
  let front: KeyServer | undefined = undefined;
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  const demo = await startDemoServer({
    nodeBin,
    serverMain,
    port,
    extensionDir: repoRoot,
    demoDir,
    env: process.env,
    logFile: serverLogFile,
    onSpawn: (child) => (server = child),
  });
  server = demo.server;
  front = demo.front;
  server.once('exit', (code) => {
    if (!stopping) {
      console.error(`The VS Code server stopped (${code}); see ${path.relative(process.cwd(), serverLogFile)}`);
      process.exit(1);
    }
  });

  console.log(`
Crew Runs demo is ready. Open this URL in a browser on this machine:

  ${demo.url}

The seven demo crews (Research Crew, Review Crew with a human-feedback step, Idea Flow, Self-hosted Crew,
Interview Crew with a structured input, Support Chat Flow to chat with, Echo Crew that suites.crew-suite.yaml
tests) run inside the extension on this machine; nothing is sent anywhere. Open the Crew Runs view in the activity bar, kick off a crew, watch the
run, give feedback when the Review Crew asks for it, and chat with the Support Chat Flow.
The demo serves a CrewAI platform too: Sign In to CrewAI Platform… offers it (nothing is signed in by itself),
and Import Crews… then finds its deployment that is not a crew yet.
${demo.off.map((note) => `\n${`Off in this demo: ${note}`.replace(/(.{1,105})(?:\s+|$)/g, '$1\n')}`).join('')}
Press Ctrl+C to stop.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
