// Bench harness: the real extension (production build) and an empty extension, both activated by a
// command event, loaded together in VS Code's server + headless chromium (the integration runner's
// set-up: its install.ts and processes.ts are reused; the few lines that start the server are
// copied, with bench settings). One page load = one fresh extension host = one activation round.
import { type ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { format } from 'util';
import { chromium, type Browser } from 'playwright-core';
import { ensureChromium, ensureServerInstalled } from '../../test/integration/runner/install';
import { freeLoopbackPort, killProcessGroup } from '../../test/integration/runner/processes';
import { QUIET_USER_SETTINGS as USER_SETTINGS } from '../../test/integration/runner/server';
import { layOutEmptyExtension, layOutFloorExtension, layOutRealExtension, repoRoot } from '../bundle';
import { BENCH_TOKEN, crewConfig } from '../lib/fixtures';
import { SimProcess } from '../lib/simProcess';
import { type HostBatchResult, RESULT_PREFIX } from './protocol';
import type { TraceBench } from './traceBench';
import type { ViewsBench } from './viewsBench';


export interface HarnessRound {
  round: number;
  /** Which extension went first, second, third in this host. */
  order?: ('empty' | 'floor' | 'real')[];
  realActivateMs?: number;
  /** From the start of Crew Runs' activate() to its object graph built (the end of activate()). */
  realCoreStartedMs?: number;
  emptyActivateMs?: number;
  /** The same manifest and registrations as Crew Runs with empty bodies (layOutFloorExtension). */
  floorActivateMs?: number;
  /** This round's host had the test hooks on (it measures through the test API): its activation is not the product's. */
  testHooks?: boolean;
  tree?: { runs: number; children: number; yardstickMs: number; firstChildrenMs: number; medianChildrenMs: number; heapGrowthBytes: number; seedMs: number };
  runView?: ViewsBench;
  /** The run view's trace (item 10). */
  trace?: TraceBench;
  hostBatch?: HostBatchResult;
  error?: string;
}

export interface HarnessOptions {
  /** The last round also measures the tree with `historyRuns` runs and the run view (default true). */
  views?: boolean;
  /** The last round also runs a batch in the extension host against a rate-limited simulator (issue 18). */
  hostBatch?: { rows: number; concurrency: number; rateLimitPerSecond: number };
  /** Rounds of Open Run and Show All (and their references) in the views round (default 7). */
  runViewRounds?: number;
  /** Measure only the run view's Open Run and Show All (the `runview` part, when run without `vscode`). */
  runViewOnly?: boolean;
  /** The last round also measures the run view's trace (item 10), in `runViewRounds` rounds. */
  trace?: boolean;
}

function log(message: string): void {
  console.log(`[bench] ${message}`);
}

async function startServer(nodeBin: string, serverMain: string, port: number, tempDir: string, controlDir: string): Promise<ChildProcess> {
  const userDataDir = path.join(tempDir, 'user-data');
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
    '--server-data-dir', path.join(tempDir, 'server-data'),
    '--extensions-dir', path.join(tempDir, 'extensions'),
  ];
  // The suite turns the test hooks on in the one round that needs them (see suite.ts).
  const env: NodeJS.ProcessEnv = { ...process.env, CREW_RUNS_TEST_HOOKS: '', CREW_RUNS_BENCH_CONTROL_DIR: controlDir };
  const serverLog = fs.createWriteStream(path.join(tempDir, 'server.log'));
  const server = spawn(nodeBin, args, { cwd: tempDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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

/**
 * `builtDir` holds the production dist/ and media/dist/ (see bundle.ts). Runs `rounds` page loads
 * timing activation as users get it (no test hooks), then one more for views or a batch if asked;
 * the last also measures the tree and the run view.
 */
export async function runHarness(builtDir: string, rounds: number, historyRuns: number, options: HarnessOptions = {}): Promise<HarnessRound[]> {
  const views = options.views ?? true;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error('the bench harness needs Linux x64 (VS Code server + headless chromium)');
  }
  const { nodeBin, serverMain } = await ensureServerInstalled(path.resolve(process.env.CREW_RUNS_TEST_CACHE_DIR ?? path.join(repoRoot, '.vscode-test')));
  const chromiumPath = await ensureChromium();
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-bench-vscode-'));
  const controlDir = path.join(tempDir, 'control');
  // The web payload honours only one extensionDevelopmentPath: both measured extensions are
  // installed (same loading path for both); the development path is a manifest-only placeholder.
  const extensionsDir = path.join(tempDir, 'extensions');
  const realExt = path.join(extensionsDir, 'crew-runs.crew-runs-0.1.0');
  const emptyExt = path.join(extensionsDir, 'crew-runs-bench.empty-extension-0.0.1');
  const floorExt = path.join(extensionsDir, 'crew-runs-bench.floor-extension-0.0.1');
  const hostExt = path.join(tempDir, 'ext-bench-host');
  const workspace = path.join(tempDir, 'workspace');
  fs.mkdirSync(controlDir);
  fs.mkdirSync(workspace);
  layOutRealExtension(builtDir, realExt, 'crewRuns.benchActivate');
  layOutEmptyExtension(emptyExt, 'empty-extension', 'crewRunsBench.emptyActivate');
  layOutFloorExtension(floorExt, 'floor-extension', 'crewRunsBench.floorActivate');
  fs.mkdirSync(hostExt);
  fs.writeFileSync(
    path.join(hostExt, 'package.json'),
    JSON.stringify({ name: 'bench-host', publisher: 'crew-runs-bench', version: '0.0.1', engines: { vscode: '^1.96.0' } }, null, 2),
  );
  const suiteEntry = path.join(__dirname, 'suite');

  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let sim: SimProcess | undefined;
  const results: HarnessRound[] = [];
  try {
    const port = await freeLoopbackPort();
    const started = Date.now();
    server = await startServer(nodeBin, serverMain, port, tempDir, controlDir);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const mintKey = Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256)));
    await context.route('**/mint-key', (route) => route.fulfill({ status: 200, body: mintKey }));
    const authority = `127.0.0.1:${port}`;
    const payload = [
      ['extensionDevelopmentPath', `vscode-remote://${authority}${hostExt}`],
      ['extensionTestsPath', `vscode-remote://${authority}${suiteEntry}`],
      ['skipWelcome', 'true'],
    ];
    const url = `http://${authority}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    log(`VS Code server up in ${((Date.now() - started) / 1000).toFixed(1)} s; ${rounds} activation rounds (one page load each)…`);

    if (options.hostBatch) {
      // Runs of about a second, as in the plain-Node batch bench (../batches.ts), in a process of their own.
      const crew = crewConfig('batch', 1200, { pendingMs: 300, rateLimitPerSecond: options.hostBatch.rateLimitPerSecond });
      sim = await SimProcess.start({ timeScale: 1, crews: [crew], seed: 3 }, 1, Date.now());
    }
    // CPU profiles of Crew Runs' load + activate() in each host, for a look at where the time goes.
    const profileDir = process.env.CREW_RUNS_BENCH_PROFILE === '1' ? path.join(repoRoot, 'bench-results', 'profiles') : undefined;
    if (profileDir) {
      fs.mkdirSync(profileDir, { recursive: true });
      log(`CPU profiles of activation go to ${profileDir} (timings of profiled rounds are not comparable)`);
      if (options.trace) {
        fs.mkdirSync(path.join(profileDir, 'trace'), { recursive: true });
      }
    }
    const heapSnapshotDir = process.env.CREW_RUNS_BENCH_HEAP === '1' ? path.join(repoRoot, 'bench-results', 'heap') : undefined;
    const hostBatch =
      sim && options.hostBatch ? { crewUrl: sim.crews[0].url, token: BENCH_TOKEN, rows: options.hostBatch.rows, concurrency: options.hostBatch.concurrency, heapSnapshotDir } : undefined;

    // The views, the trace and the batch are measured through the test API, whose hooks activation must not pay
    // for: one more round, with the hooks, after the activation rounds.
    const measuresMore = views || hostBatch !== undefined || options.trace === true;
    const pageLoads = measuresMore ? rounds + 1 : rounds;
    for (let round = 0; round < pageLoads; round++) {
      const last = measuresMore && round === pageLoads - 1;
      fs.writeFileSync(
        path.join(controlDir, 'control.json'),
        JSON.stringify({
          round,
          testHooks: last,
          measureViews: last && views,
          historyRuns,
          runViewRounds: options.runViewRounds,
          runViewOnly: options.runViewOnly,
          measureTrace: last && options.trace === true,
          // One more open of the 10,000-event trace, after the timed ones, profiled (its own folder: profileSummary.js sums a folder).
          traceProfileFile: last && options.trace && profileDir ? path.join(profileDir, 'trace', 'open-10000-events.cpuprofile') : undefined,
          hostBatch: last ? hostBatch : undefined,
          profileFile: profileDir ? path.join(profileDir, `activation-${round + 1}.cpuprofile`) : undefined,
        }),
      );
      const page = await context.newPage();
      let result: HarnessRound | undefined;
      const exited = new Promise<number>((resolve) => {
        void page.exposeFunction('codeAutomationExit', (code: number) => resolve(code));
      });
      await page.exposeFunction('codeAutomationLog', (_level: string, args: unknown) => {
        const text = Array.isArray(args) ? format(...(args as unknown[])) : typeof args === 'string' ? args : format(args);
        for (const line of text.split('\n')) {
          if (line.startsWith(RESULT_PREFIX)) {
            result = JSON.parse(line.slice(RESULT_PREFIX.length)) as HarnessRound;
          }
        }
      });
      if (process.env.CREW_RUNS_BENCH_VERBOSE === '1') {
        page.on('console', (m) => console.log(`[page ${m.type()}] ${m.text().slice(0, 300)}`));
      }
      // A Chromium performance trace of the views round (CREW_RUNS_BENCH_TRACE=1): where the pages' time goes.
      const traceFile = last && process.env.CREW_RUNS_BENCH_TRACE === '1' ? path.join(repoRoot, 'bench-results', 'views-round.trace.json') : undefined;
      if (traceFile) {
        fs.mkdirSync(path.dirname(traceFile), { recursive: true });
        await browser.startTracing(page, { path: traceFile, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'v8.execute', 'toplevel'] });
      }
      const roundStarted = Date.now();
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(-1), last ? (hostBatch ? 40 * 60_000 : 240_000 + (options.trace ? 240_000 : 0)) : 90_000)));
      // Cleared: a pending time-out kept the bench (and the integration lock) alive for minutes after its table.
      const code = await Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
      if (traceFile) {
        await browser.stopTracing();
        log(`trace of the views round written to ${traceFile}`);
      }
      await page.close().catch(() => undefined);
      if (code === -1) {
        throw new Error(`round ${round} timed out (see ${path.join(tempDir, 'server.log')})`);
      }
      if (!result) {
        throw new Error(`round ${round}: the bench suite reported nothing (exit ${code})`);
      }
      if (result.error) {
        throw new Error(`round ${round}: ${result.error}`);
      }
      if (result.hostBatch && sim) {
        const simLog = (await sim.log()).filter((e) => e.endpoint === 'kickoff');
        result.hostBatch.simulatorRuns = (await sim.runs()).length;
        result.hostBatch.kickoffRequests = simLog.length;
        result.hostBatch.rateLimitedKickoffs = simLog.filter((e) => e.status === 429).length;
      }
      log(
        `round ${round + 1}/${pageLoads}${last ? ' (test hooks on)' : ''} (${((Date.now() - roundStarted) / 1000).toFixed(1)} s): activate() empty ${result.emptyActivateMs?.toFixed(2)} ms, floor ${result.floorActivateMs?.toFixed(2)} ms, Crew Runs ${result.realActivateMs?.toFixed(2)} ms`,
      );
      results.push(result);
    }
  } finally {
    await sim?.close();
    await browser?.close().catch(() => undefined);
    if (server?.pid !== undefined) {
      await killProcessGroup(server.pid);
    }
    if (process.env.CREW_RUNS_BENCH_KEEP === '1') {
      log(`kept ${tempDir}`);
    } else {
      fs.rmSync(tempDir, { recursive: true, force: true });
    }
  }
  return results;
}

if (require.main === module) {
  void (async () => {
    const { buildProduction } = await import('../bundle');
    const built = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-bench-build-'));
    try {
      await buildProduction(built);
      const rounds = await runHarness(built, Number(process.argv[2] ?? 2), Number(process.argv[3] ?? 200), {
        views: process.env.CREW_RUNS_BENCH_VIEWS !== '0',
        hostBatch: process.env.CREW_RUNS_BENCH_BATCH_ROWS ? { rows: Number(process.env.CREW_RUNS_BENCH_BATCH_ROWS), concurrency: 10, rateLimitPerSecond: 20 } : undefined,
      });
      console.log(JSON.stringify(rounds, null, 2));
    } finally {
      fs.rmSync(built, { recursive: true, force: true });
    }
  })().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
