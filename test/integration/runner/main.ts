// Integration-test runner: runs the mocha suite in test/integration/suite inside a real VS Code
// extension host. On Linux x64 that is VS Code's own server (from the code-server npm package,
// cached in .vscode-test/) opened in headless Debian chromium, driven by playwright-core; the
// workbench's smoke-test hooks run the suite and report its exit code to the page. Elsewhere it
// delegates to @vscode/test-electron (electron.ts), which downloads VS Code.
//
// Environment:
//   CREW_RUNS_TEST_GREP        only run tests whose full title matches (passed to the suite)
//   CREW_RUNS_TEST_TIMEOUT_MS  overall limit for server + browser + suite (default 600000)
//   CREW_RUNS_TEST_CACHE_DIR   where Node 24 and the server are installed (default .vscode-test)
//   CREW_RUNS_TEST_RESULTS_DIR screenshots and logs (default test-results; give concurrent runs their own)
//   CREW_RUNS_TEST_VERBOSE=1   print every workbench log line, not just the suite's output
//                              (all of them are always in test-results/workbench.log)
import { type ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { format } from 'util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { RESULT_MARKER, SUITE_START_MARKER, type SuiteResult, UI_BRIDGE_DIR_ENV, parseUiRequest } from '../helpers/uiBridgeProtocol';
import { ensureChromium, ensureServerInstalled } from './install';
import { freeLoopbackPort, killProcessGroup, survivors } from './processes';
import { UiBridge } from './uiBridge';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const resultsDir = path.resolve(process.env.CREW_RUNS_TEST_RESULTS_DIR ?? path.join(repoRoot, 'test-results'));
const cacheDir = path.resolve(process.env.CREW_RUNS_TEST_CACHE_DIR ?? path.join(repoRoot, '.vscode-test'));
const suiteEntry = path.join(repoRoot, 'out', 'test', 'integration', 'suite', 'index');
const workspaceFolder = path.join(repoRoot, 'test', 'integration', 'fixtures', 'workspace');
const timeoutMs = Number(process.env.CREW_RUNS_TEST_TIMEOUT_MS ?? 600_000);
const verbose = process.env.CREW_RUNS_TEST_VERBOSE === '1';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Keeps the run free of Restricted Mode, chat/AI panels, welcome pages and telemetry. */
const USER_SETTINGS = {
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
};

/**
 * Workbench log lines that reach codeAutomationLog alongside the host's console while the suite
 * runs, and are expected offline. They stay in test-results/workbench.log.
 */
const WORKBENCH_NOISE = [
  /^\s+at .*https?:\/\/127\.0\.0\.1:\d+\//, // stack frames of workbench code
  /^\[(AccountPolicyGate|AgentHost[^\]]*|Service Worker|reconnection-grace-time)\]/,
  /ENOTFOUND|Timed out waiting for authentication provider/,
];

function log(message: string): void {
  console.log(`[integration] ${message}`);
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** Lines as the host printed them: args may be format strings plus values. */
function formatLogArgs(args: unknown): string {
  if (Array.isArray(args)) {
    return format(...(args as unknown[]));
  }
  return typeof args === 'string' ? args : format(args);
}

interface Run {
  server?: ChildProcess;
  browser?: Browser;
  page?: Page;
  tempDir?: string;
  cleaned?: Promise<void>;
  /** A signal arrived: cleanup is under way, failures after it are expected. */
  interrupted?: boolean;
}

const run: Run = {};

async function cleanup(): Promise<void> {
  run.cleaned ??= (async () => {
    await run.browser?.close().catch(() => undefined);
    if (run.server?.pid !== undefined) {
      await killProcessGroup(run.server.pid);
    }
    const left = survivors(run.server?.pid, run.tempDir ?? '\0');
    if (left.length > 0) {
      console.error(`[integration] WARNING: processes left behind:\n  ${left.join('\n  ')}`);
    }
    if (run.tempDir) {
      fs.rmSync(run.tempDir, { recursive: true, force: true });
    }
  })();
  return run.cleaned;
}

async function startServer(nodeBin: string, serverMain: string, port: number, tempDir: string, bridgeDir: string): Promise<ChildProcess> {
  const userDataDir = path.join(tempDir, 'user-data');
  const serverDataDir = path.join(tempDir, 'server-data');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));

  const args = [
    serverMain,
    '--host', '127.0.0.1',
    '--port', String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--enable-smoke-test-driver',
    '--disable-telemetry',
    '--user-data-dir', userDataDir,
    '--server-data-dir', serverDataDir,
    '--extensions-dir', path.join(tempDir, 'extensions'),
  ];
  // Whatever the server gets, the extension host gets.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CREW_RUNS_TEST_HOOKS: '1',
    [UI_BRIDGE_DIR_ENV]: bridgeDir,
    CREW_RUNS_TEST_LOGS_DIR: path.join(userDataDir, 'logs'), // where the server puts every log
    CREW_RUNS_TEST_GREP: process.env.CREW_RUNS_TEST_GREP ?? '',
  };
  const serverLog = fs.createWriteStream(path.join(resultsDir, 'server.log'));
  // Own process group: the server forks helpers that hold its pipes open; we kill the group.
  const server = spawn(nodeBin, args, { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  run.server = server;
  server.stdout?.pipe(serverLog, { end: false });
  server.stderr?.pipe(serverLog, { end: false });

  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`server did not report listening within 60 s:\n${seen}`)), 60_000);
    server.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/listening on/i.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited early (${signal ?? code}):\n${seen}`));
    });
  });
  return server;
}

async function main(): Promise<number> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    log(`${process.platform}-${process.arch}: delegating to @vscode/test-electron`);
    const { runElectronTests } = await import('./electron');
    return runElectronTests();
  }

  fs.mkdirSync(resultsDir, { recursive: true });
  // Failure evidence from an earlier run would be misleading next to this one's.
  for (const entry of fs.readdirSync(resultsDir)) {
    if (/^(failure|failed)-.*\.png$/.test(entry) || entry === 'workbench-logs') {
      fs.rmSync(path.join(resultsDir, entry), { recursive: true, force: true });
    }
  }
  const { nodeBin, serverMain } = ensureServerInstalled(cacheDir);
  const chromiumPath = ensureChromium();
  if (!fs.existsSync(`${suiteEntry}.js`)) {
    throw new Error(`${suiteEntry}.js is missing: run 'tsc -p .' first`);
  }

  const started = Date.now();
  run.tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-it-'));
  const bridgeDir = path.join(run.tempDir, 'ui-bridge');
  fs.mkdirSync(bridgeDir);
  const port = await freeLoopbackPort();

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms (CREW_RUNS_TEST_TIMEOUT_MS)`)), timeoutMs);
  });
  timedOut.catch(() => undefined); // Seen by the races below; never an unhandled rejection.

  let exitCode = 1;
  let result: SuiteResult | undefined;
  let suiteStarted = false;
  const recentLines: string[] = [];
  // Tally from the spec reporter's streamed lines, for a closing line when the suite never ends.
  const tally: SuiteResult = { passed: 0, failed: 0, pending: 0 };
  try {
    log(`starting VS Code server on 127.0.0.1:${port}…`);
    const server = await Promise.race([startServer(nodeBin, serverMain, port, run.tempDir, bridgeDir), timedOut]);
    log(`server listening (${seconds(started)}); opening the workbench in headless chromium…`);
    const serverExited = new Promise<never>((_, reject) =>
      server.once('exit', (code, signal) => reject(new Error(`server exited during the run (${signal ?? code}); see server.log in ${resultsDir}`))),
    );
    // Only raced later: an exit before then must not become an unhandled rejection (and skip cleanup).
    serverExited.catch(() => undefined);

    // Playwright's own signal handlers exit the process before our cleanup kills the server.
    run.browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_ARGS,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const context = await run.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    run.page = page;
    const bridge = new UiBridge(page, bridgeDir, resultsDir);
    const browserLog = fs.createWriteStream(path.join(resultsDir, 'browser-console.log'));
    page.on('console', (message) => browserLog.write(`[${message.type()}] ${message.text()}\n`));
    page.on('pageerror', (error) => browserLog.write(`[pageerror] ${error.stack ?? error.message}\n`));

    // The workbench keys its SecretStorage with bytes from POST /mint-key, which the bare server
    // refuses; answer with fixed bytes for this run so secrets survive reloads.
    const mintKey = Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256)));
    await page.route('**/mint-key', (route) => route.fulfill({ status: 200, body: mintKey }));

    let workbenchLogs: { relativePath: string; contents: string }[] = [];
    const suiteExit = new Promise<number>((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code: number, logs?: { relativePath: string; contents: string }[]) => {
        workbenchLogs = logs ?? [];
        resolve(code);
      });
    });
    // Both the workbench's log and the extension host's console arrive here. Before the suite
    // starts it is all workbench chatter: keep it in the file and stream the suite's lines.
    const workbenchLog = fs.createWriteStream(path.join(resultsDir, 'workbench.log'));
    await page.exposeFunction('codeAutomationLog', (level: string, args: unknown) => {
      for (const line of formatLogArgs(args).split('\n')) {
        workbenchLog.write(`[${level}] ${line}\n`);
        recentLines.push(`[${level}] ${line}`);
        recentLines.splice(0, recentLines.length - 40);
        const request = parseUiRequest(line);
        if (request) {
          bridge.handle(request);
        } else if (line.startsWith(RESULT_MARKER)) {
          result = JSON.parse(line.slice(RESULT_MARKER.length)) as SuiteResult;
        } else if (line.startsWith(SUITE_START_MARKER)) {
          suiteStarted = true;
        } else if (verbose) {
          console.log(`[${level}] ${line}`);
        } else if (suiteStarted && !WORKBENCH_NOISE.some((pattern) => pattern.test(line))) {
          console.log(line);
        }
        if (suiteStarted) {
          countSpecLine(line, tally);
        }
      }
    });

    const authority = `127.0.0.1:${port}`;
    const payload = [
      ['extensionDevelopmentPath', `vscode-remote://${authority}${repoRoot}`],
      ['extensionTestsPath', `vscode-remote://${authority}${suiteEntry}`],
      ['skipWelcome', 'true'],
    ];
    const url = `http://${authority}/?folder=${encodeURIComponent(workspaceFolder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    await Promise.race([page.goto(url, { waitUntil: 'domcontentloaded' }), timedOut, serverExited]);
    log(`workbench page loaded (${seconds(started)}); running the suite…`);

    exitCode = await Promise.race([suiteExit, timedOut, serverExited]);
    await bridge.idle();
    if (exitCode !== 0) {
      saveWorkbenchLogs(workbenchLogs);
    }
  } catch (error) {
    if (!run.interrupted) {
      // Playwright appends a multi-line call log; its first line says what failed.
      console.error(`[integration] ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    exitCode = 1;
  } finally {
    clearTimeout(timer);
    if (exitCode !== 0 && !run.interrupted) {
      if (!suiteStarted && !verbose && recentLines.length > 0) {
        console.error(`[integration] the suite never started; last workbench log lines:\n${recentLines.join('\n')}`);
      }
      const shown = path.relative(repoRoot, resultsDir);
      console.error(`[integration] full workbench log: ${shown}/workbench.log, server output: ${shown}/server.log`);
      await saveFailureScreenshot();
    }
    await cleanup();
  }

  if (!result && suiteStarted) {
    console.error('[integration] the suite did not finish: the test it was in counts as failed');
    console.log(`integration: ${tally.passed} passed, ${tally.failed + 1} failed, ${tally.pending} skipped`);
    exitCode = exitCode === 0 ? 1 : exitCode;
  } else if (result) {
    // The plain closing line CI reads.
    console.log(`integration: ${result.passed} passed, ${result.failed} failed, ${result.pending} skipped`);
    if (exitCode === 0 && result.passed === 0 && !process.env.CREW_RUNS_TEST_GREP) {
      console.error('[integration] the suite ran no test');
      exitCode = 1;
    }
  } else if (exitCode === 0) {
    console.error('[integration] the suite exited 0 but reported no result');
    exitCode = 1;
  }
  log(`${exitCode === 0 ? 'passed' : 'FAILED'} in ${seconds(started)}`);
  return exitCode;
}

/** Mocha spec reporter: "    ✔ title", "    1) title" (before the summary), "    - title". */
function countSpecLine(line: string, tally: SuiteResult): void {
  if (/^\s+✔ /.test(line)) {
    tally.passed++;
  } else if (/^\s+\d+\) /.test(line) && tally.failed < Number(line.trim().split(')')[0])) {
    tally.failed++; // The summary repeats "1) Suite" lines: count each number once.
  } else if (/^\s+- /.test(line)) {
    tally.pending++;
  }
}

async function saveFailureScreenshot(): Promise<void> {
  if (!run.page) {
    return;
  }
  const file = path.join(resultsDir, `failure-${new Date().toISOString().replace(/[:.]/g, '-')}.png`);
  try {
    await run.page.screenshot({ path: file, timeout: 10_000 });
    log(`screenshot of the workbench saved to ${path.relative(repoRoot, file)}`);
  } catch (error) {
    console.error(`[integration] could not save a screenshot: ${String(error)}`);
  }
}

function saveWorkbenchLogs(logs: { relativePath: string; contents: string }[]): void {
  const dir = path.join(resultsDir, 'workbench-logs');
  for (const entry of logs) {
    const file = path.join(dir, entry.relativePath);
    if (!file.startsWith(dir + path.sep)) {
      continue;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, entry.contents);
  }
  if (logs.length > 0) {
    log(`workbench logs saved to ${path.relative(repoRoot, dir)}/`);
  }
}

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
for (const signal of Object.keys(SIGNAL_EXIT_CODES) as (keyof typeof SIGNAL_EXIT_CODES)[]) {
  process.once(signal, () => {
    console.error(`[integration] ${signal}: cleaning up…`);
    run.interrupted = true;
    void cleanup().finally(() => process.exit(SIGNAL_EXIT_CODES[signal]));
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    console.error(`[integration] ${error instanceof Error ? error.message : String(error)}`);
    await cleanup();
    process.exitCode = 1;
  },
);
