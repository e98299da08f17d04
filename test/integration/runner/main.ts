// Integration-test runner: runs the mocha suite in test/integration/suite inside a real VS Code
// extension host. On Linux x64 that is VS Code's own server (from the code-server npm package,
// cached in .vscode-test/) opened in headless Debian chromium, driven by playwright-core; the
// workbench's smoke-test hooks run the suite and report its exit code to the page. Elsewhere it
// delegates to @vscode/test-electron (electron.ts), which downloads VS Code.
//
// Sessions. A session is one VS Code server (own temp folder: user data, globalState, secrets,
// logs, a copy of the test workspace) and one browser context + page. Sessions run side by side in
// lanes, one more than the machine's cores unless CREW_RUNS_TEST_LANES says (lanes.ts: longest first; a session's lines are
// printed together when it ends). The "main" suites — every test file except those that reload
// the window or ask for a session of their own — are split into one part per lane (main-1, main-2…,
// of about equal time by sessionTimes.ts); each file containing RELOAD_SESSION_MARKER
// ('@crew-runs-reload-session') or OWN_SESSION_MARKER ('@crew-runs-own-session', see
// helpers/uiBridgeProtocol.ts) then gets a session of its own, so a reload or a second window never
// disturbs other suites and each starts from empty state. The suite entry
// learns its files from CREW_RUNS_TEST_ONLY_FILES / CREW_RUNS_TEST_SKIP_FILES, and tests of those
// files to leave out from CREW_RUNS_TEST_SKIP_TESTS. The "floor" session runs the core suites on
// the oldest VS Code that engines.vscode admits (install.ts: FLOOR_SERVER, its own cache folder).
// The "withoutChat" session loads the extension through a wrapper that hides vscode.lm and
// vscode.chat from it (withoutChat.ts), as a fork without those APIs would.
//
// UI bridge (uiBridge.ts): tests log requests, this runner acts with Playwright. Keys for a quick
// input carry a guard the runner checks right before acting (open — not in its 150 ms close
// animation —, focused, showing the expected text; after typing, the box holds the text; before
// Enter, the wanted item is active), so no key lands before the UI is where the test thinks it is.
//
// Second windows (windows.ts). A test can open another page of the session's browser context on
// the same folder: a second VS Code window with its own extension host, sharing globalState,
// secrets and the extension's storage. Its host runs a peer agent instead of the suite
// (suite/support/peerAgent.ts), reached through files; closing it waits for its host to exit.
//
// Demo windows (demoWindows.ts). A test can ask for `npm run demo` itself: a server in the demo's
// own configuration (demoServer.ts: no smoke-test driver, the extension installed) and a page on
// it in a browser context of its own, driven from outside through the bridge (`window: <name>`).
//
// Window reloads (helpers/reload.ts). A reload session also gets CREW_RUNS_TEST_STATE_DIR, a folder
// that outlives extension hosts. A test asks for a reload by writing the next phase number into the
// state file there, logging its mocha counts so far (@@PHASE-RESULT) and a bridge request
// `{type: 'reload'}`. The runner then reloads the page (page.reload(): same browser context, so the
// workbench's SecretStorage key — our fixed /mint-key answer — and its IndexedDB survive;
// globalState and globalStorage files live on the server and survive anyway). The smoke-test
// driver reads extensionTestsPath from the URL again, so the new extension host runs the suite entry
// again: phase N+1. Exits reported while a reload is under way belong to the old page and are
// ignored; only the exit of a phase that did not ask for a reload ends the session. The session's
// counts are the sum over its phases (cut-short phases from @@PHASE-RESULT, the last from @@RESULT),
// and the closing `integration: N passed, N failed, N skipped` line sums every session.
// Limits: a phase that asks for a reload must start its successor within
// CREW_RUNS_TEST_RELOAD_TIMEOUT_MS; anything a test keeps in memory (e.g. an in-process simulator)
// dies with its extension host — reload suites keep such things in processes of their own and
// their addresses in the state dir; the electron route cannot reload (reload suites skip there).
//
// Environment:
//   CREW_RUNS_TEST_GREP        only run tests whose full title matches (passed to the suite)
//   CREW_RUNS_TEST_TIMEOUT_MS  limit per session for server + browser + suite (default 1200000: the longest
//                              session takes about 5 min on a busy 2-core machine; each test has its own limit)
//   CREW_RUNS_TEST_RELOAD_TIMEOUT_MS  limit from a reload request to the next phase's start (default 120000)
//   CREW_RUNS_TEST_SESSIONS    only these sessions, comma-separated: main (all its parts) or main-N, floor,
//                              withoutChat, untrusted, and suites of their own by file name without .test.js
//                              (e.g. "chaos"); default all
//   CREW_RUNS_TEST_LANES       sessions at once (default: cores + 1, at most 4; 1 prints as it goes, see lanes.ts)
//   CREW_RUNS_TEST_CACHE_DIR   where the servers and their Node are installed (default .vscode-test)
//   CREW_RUNS_TEST_RESULTS_DIR screenshots and logs (default test-results; give concurrent runs their own)
//   CREW_RUNS_TEST_VSIX        test this packaged .vsix, installed into the server, with the activation suite only
//   CREW_RUNS_TEST_WITH_VSIX   the same as one more session beside all the others (npm test, scripts/test.ts)
//   CREW_RUNS_TEST_VERBOSE=1   print every workbench log line, not just the suite's output
//                              (all of them are always in test-results/workbench.log; other
//                              sessions write workbench-<session>.log, server-<session>.log)
import { type ChildProcess, execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { format } from 'util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  FAILURE_MARKER,
  FILE_TIMES_MARKER,
  MOCHA_DIR_ENV,
  ONLY_FILES_ENV,
  OWN_SESSION_MARKER,
  PHASE_RESULT_MARKER,
  RELOAD_SESSION_MARKER,
  RESULT_MARKER,
  SKIP_FILES_ENV,
  SKIP_TESTS_ENV,
  STATE_DIR_ENV,
  SUITE_START_MARKER,
  type ReloadRequest,
  type SuiteResult,
  UI_BRIDGE_DIR_ENV,
  parseUiRequest,
} from '../helpers/uiBridgeProtocol';
import { CURRENT_SERVER, FLOOR_SERVER, type ServerFlavour, type ServerInstall, ensureChromium, ensureServerInstalled } from './install';
import { freeLoopbackPort, killProcessGroup, pidsMentioning, survivors } from './processes';
import { Relay } from './relay';
import { QUIET_USER_SETTINGS as USER_SETTINGS, startVsCodeServer } from './server';
import { DemoWindows } from './demoWindows';
import { laneCount, runInLanes, splitByTime } from './lanes';
import { SessionOutput } from './sessionOutput';
import { MAIN_FILE_SECONDS, SESSION_SECONDS, UNKNOWN_FILE_SECONDS } from './sessionTimes';
import { consoleLogLine, UiBridge } from './uiBridge';
import { extensionWithoutChat } from './withoutChat';
import { PeerWindows } from './windows';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const resultsDir = path.resolve(process.env.CREW_RUNS_TEST_RESULTS_DIR ?? path.join(repoRoot, 'test-results'));
const cacheDir = path.resolve(process.env.CREW_RUNS_TEST_CACHE_DIR ?? path.join(repoRoot, '.vscode-test'));
const suiteEntry = path.join(repoRoot, 'out', 'test', 'integration', 'suite', 'index');
/** What a second window's extension host runs instead of the suite (see runner/windows.ts). */
const peerAgent = path.join(repoRoot, 'out', 'test', 'integration', 'suite', 'support', 'peerAgent');
/** Copied for each session (runSession): the folder its window opens. */
const workspaceFixture = path.join(repoRoot, 'test', 'integration', 'fixtures', 'workspace');
const timeoutMs = Number(process.env.CREW_RUNS_TEST_TIMEOUT_MS ?? 1_200_000);
const reloadTimeoutMs = Number(process.env.CREW_RUNS_TEST_RELOAD_TIMEOUT_MS ?? 120_000);
const verbose = process.env.CREW_RUNS_TEST_VERBOSE === '1';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];


/**
 * Workbench log lines that reach codeAutomationLog alongside the host's console while the suite
 * runs, and are expected offline. They stay in test-results/workbench.log.
 */
const WORKBENCH_NOISE = [
  /^\s+at .*https?:\/\/127\.0\.0\.1:\d+\//, // stack frames of workbench code
  /^\[(AccountPolicyGate|AgentHost[^\]]*|Service Worker|reconnection-grace-time)\]/,
  /ENOTFOUND|Timed out waiting for authentication provider/,
  // Connection chatter after a window reload, and workbench file probes cancelled at shutdown.
  /^(Resolved connection token|Creating a socket) /,
  /^Unable to read file '.*' \(Canceled: Canceled\)/,
  /^\[lifecycle\] Long running operations during shutdown/,
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


interface SessionSpec {
  /** 'main' (or 'main-N', a part of it), or a suite's file name without .test.js. */
  name: string;
  /** Seconds it is expected to take (sessionTimes.ts): the longest start first. */
  estimateSeconds: number;
  /** Compiled test files (relative to the suite folder) this session runs, or undefined for all … */
  onlyFiles?: string[];
  /** … but these. */
  skipFiles?: string[];
  /** Tests of those files left out, by a piece of their full title (suite names and test name). */
  skipTests?: string[];
  /** Gets a state dir and may reload the window. */
  reloads: boolean;
  /** User settings on top of USER_SETTINGS. */
  settings?: Record<string, unknown>;
  /** Install this .vsix into the server and test the installed extension instead of this folder. */
  vsix?: string;
  /** Which VS Code server (default CURRENT_SERVER: today's VS Code). */
  server?: ServerFlavour;
  /** Load the extension through a wrapper that hides vscode.lm and vscode.chat from it (runner/withoutChat.ts). */
  withoutChat?: boolean;
}

interface SessionOutcome {
  name: string;
  exitCode: number;
  /** Summed over the phases. */
  counts: SuiteResult;
  /** One line per failed test, as the suite said it: repeated at the end, where CI's excerpt shows it. */
  failures: string[];
  /** The last phase reported its result (otherwise the counts come partly from the spec lines). */
  complete: boolean;
  suiteStarted: boolean;
  phases: number;
  seconds: number;
  /** Seconds per test file, as the suite measured them. */
  fileSeconds: Record<string, number>;
}

interface LiveSession {
  name: string;
  server?: ChildProcess;
  context?: BrowserContext;
  page?: Page;
  windows?: PeerWindows;
  demos?: DemoWindows;
  tempDir: string;
  cleaned?: Promise<void>;
}

interface Run {
  browser?: Browser;
  /** The outputs of sessions under way: flushed if a signal ends the run. */
  outputs: Set<SessionOutput>;
  sessions: LiveSession[];
  cleaned?: Promise<void>;
  /** A signal arrived: cleanup is under way, failures after it are expected. */
  interrupted?: boolean;
}

const run: Run = { sessions: [], outputs: new Set() };

async function cleanupSession(session: LiveSession): Promise<void> {
  session.cleaned ??= (async () => {
    await session.windows?.closeAll();
    await session.demos?.closeAll();
    await session.context?.close().catch(() => undefined);
    if (session.server?.pid !== undefined) {
      await killProcessGroup(session.server.pid);
    }
    // Detached helpers a suite started (e.g. a simulator that outlives reloads) name the temp folder.
    for (const pid of pidsMentioning(session.tempDir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    const left = survivors(session.server?.pid, session.tempDir);
    if (left.length > 0) {
      console.error(`[integration] WARNING: processes left behind:\n  ${left.join('\n  ')}`);
    }
    fs.rmSync(session.tempDir, { recursive: true, force: true });
  })();
  return session.cleaned;
}

async function cleanup(): Promise<void> {
  run.cleaned ??= (async () => {
    await Promise.all(run.sessions.map((session) => session.context?.close().catch(() => undefined)));
    await run.browser?.close().catch(() => undefined);
    for (const session of run.sessions) {
      await cleanupSession(session);
    }
  })();
  return run.cleaned;
}

/** Log files of a session: the main one keeps the historical names. */
function sessionFile(session: string, base: string, ext: string): string {
  return path.join(resultsDir, session === 'main' ? `${base}.${ext}` : `${base}-${session}.${ext}`);
}

/** The compiled test files, relative to the suite folder and '/'-separated, sorted as the suite entry runs them. */
function testFilesInSuite(): string[] {
  const dir = path.dirname(suiteEntry);
  const found: string[] = [];
  const visit = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        visit(full);
      } else if (entry.name.endsWith('.test.js') && hasSource(full)) {
        found.push(path.relative(dir, full).split(path.sep).join('/'));
      }
    }
  };
  visit(dir);
  return found.sort();
}

/** tsc never deletes outputs: a compiled test whose .ts is gone is not a test (the suite entry skips it too). */
function hasSource(compiled: string): boolean {
  const relative = path.relative(path.dirname(suiteEntry), compiled);
  return fs.existsSync(path.join(repoRoot, 'test', 'integration', 'suite', relative.replace(/\.js$/, '.ts')));
}

/** The test files containing `marker`. */
function filesMarked(marker: string): string[] {
  const dir = path.dirname(suiteEntry);
  return testFilesInSuite().filter((file) => fs.readFileSync(path.join(dir, file), 'utf8').includes(marker));
}

/**
 * What the floor session runs on VS Code 1.96: the core paths — activate, add a crew and its token,
 * kick off through the wizard, the tree and status bar, the run view, feedback through comments,
 * batches — and the chat tools, whose API changed most between releases.
 */
const FLOOR_FILES = ['activation', 'crews', 'kickoff', 'monitoring', 'runView', 'feedback', 'batches', 'lmTools'].map((name) => `${name}.test.js`);
/**
 * Long tests of those files whose subject is polling and the crews' wire formats: the same code on
 * any VS Code, and tested on today's. Left out so that the floor session stays near 3 minutes.
 */
const FLOOR_SKIPPED_TESTS = [
  'Monitoring keeps watching a run the service does not know yet',
  'Monitoring keeps a lost run queued',
  'Monitoring rides out 500',
  'Monitoring stops and resumes watching',
  'Monitoring tracks a kickoff id',
  'Monitoring ends ten runs',
  'Feedback (docs dialect)',
  'Feedback (errors and the NOT FOUND pause) shows a running run that turns NOT FOUND',
];

/** Meaningful only where the extension sees no chat API: the withoutChat session. */
const WITHOUT_CHAT_FILE = 'withoutChat.test.js';

/** The sessions to run; the main suites in `mainParts` parts (one per lane: they run side by side). */
function sessionSpecs(mainParts: number): SessionSpec[] {
  // The packaged extension, installed as a user would: it must activate and register its commands.
  const vsixSession = (vsix: string): SessionSpec => ({ name: 'vsix', onlyFiles: ['activation.test.js'], reloads: false, vsix: path.resolve(vsix), estimateSeconds: estimate('vsix') });
  const estimate = (name: string) => SESSION_SECONDS[name] ?? UNKNOWN_FILE_SECONDS;
  if (process.env.CREW_RUNS_TEST_VSIX) {
    return [vsixSession(process.env.CREW_RUNS_TEST_VSIX)];
  }
  const reloadFiles = filesMarked(RELOAD_SESSION_MARKER);
  const ownFiles = filesMarked(OWN_SESSION_MARKER).filter((file) => !reloadFiles.includes(file));
  const sessionName = (file: string) => file.replace(/\.test\.js$/, '').replace(/\//g, '-');
  // The files no other session claims, in parts of about equal time that run side by side.
  const mainFiles = testFilesInSuite().filter((file) => ![...reloadFiles, ...ownFiles, WITHOUT_CHAT_FILE].includes(file));
  const parts = splitByTime(mainFiles, mainParts, (file) => MAIN_FILE_SECONDS[file], UNKNOWN_FILE_SECONDS);
  const specs: SessionSpec[] = [
    ...parts.map((files, index) => ({
      name: parts.length > 1 ? `main-${index + 1}` : 'main',
      onlyFiles: files,
      reloads: false,
      estimateSeconds: files.reduce((sum, file) => sum + (MAIN_FILE_SECONDS[file] ?? UNKNOWN_FILE_SECONDS), 0),
    })),
    ...ownFiles.map((file) => ({ name: sessionName(file), onlyFiles: [file], reloads: false, estimateSeconds: estimate(sessionName(file)) })),
    ...reloadFiles.map((file) => ({ name: sessionName(file), onlyFiles: [file], reloads: true, estimateSeconds: estimate(sessionName(file)) })),
    // Workspace Trust on and the test folder not trusted (Restricted Mode): workspace crews must stay hidden.
    { name: 'untrusted', onlyFiles: ['security.test.js'], reloads: false, settings: { 'security.workspace.trust.enabled': true }, estimateSeconds: estimate('untrusted') },
    // The oldest VS Code engines.vscode admits, on the Node it ships: the core paths must work there.
    { name: 'floor', onlyFiles: FLOOR_FILES, skipTests: FLOOR_SKIPPED_TESTS, reloads: false, server: FLOOR_SERVER, estimateSeconds: estimate('floor') },
    // An editor without the chat and language model APIs (a fork): activation, then a kickoff.
    { name: 'withoutChat', onlyFiles: ['activation.test.js', WITHOUT_CHAT_FILE], reloads: false, server: FLOOR_SERVER, withoutChat: true, estimateSeconds: estimate('withoutChat') },
    // `npm test` (scripts/test.ts) builds the .vsix first and tests it beside the rest.
    ...(process.env.CREW_RUNS_TEST_WITH_VSIX ? [vsixSession(process.env.CREW_RUNS_TEST_WITH_VSIX)] : []),
  ];
  const wanted = (process.env.CREW_RUNS_TEST_SESSIONS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  if (wanted.length === 0) {
    return specs;
  }
  const unknown = wanted.filter((name) => name !== 'main' && !specs.some((spec) => spec.name === name));
  if (unknown.length > 0) {
    throw new Error(`CREW_RUNS_TEST_SESSIONS names unknown session(s) ${unknown.join(', ')}; known: ${specs.map((spec) => spec.name).join(', ')}`);
  }
  // "main" names every part of it.
  return specs.filter((spec) => wanted.includes(spec.name) || (wanted.includes('main') && /^main-\d+$/.test(spec.name)));
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
    if (/^(failure|failed)-.*\.png$/.test(entry) || /^(workbench-logs|state-|demo-logs-)/.test(entry)) {
      fs.rmSync(path.join(resultsDir, entry), { recursive: true, force: true });
    }
  }
  if (!fs.existsSync(`${suiteEntry}.js`)) {
    throw new Error(`${suiteEntry}.js is missing: run 'tsc -p .' first`);
  }
  const lanes = laneCount(process.env.CREW_RUNS_TEST_LANES, os.availableParallelism());
  const specs = sessionSpecs(lanes);
  // Only the servers the chosen sessions use (a floor-only run never installs today's server), side
  // by side; a session waits for its own.
  const installs = new Map<ServerFlavour, Promise<ServerInstall>>();
  for (const flavour of new Set(specs.map((spec) => spec.server ?? CURRENT_SERVER))) {
    const install = ensureServerInstalled(cacheDir, flavour);
    install.catch(() => undefined); // Said by the sessions that need it.
    installs.set(flavour, install);
  }
  const chromiumPath = await ensureChromium();

  const started = Date.now();
  // Playwright's own signal handlers exit the process before our cleanup kills the server.
  run.browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });

  if (specs.length > 1) {
    log(`${specs.length} sessions, ${Math.min(lanes, specs.length)} at a time (CREW_RUNS_TEST_LANES)${lanes > 1 ? "; each session's lines are printed when it ends" : ''}`);
  }
  const outcomes = await runInLanes(
    specs,
    lanes,
    async (spec) => {
      const out = new SessionOutput(lanes > 1 && specs.length > 1);
      run.outputs.add(out);
      if (specs.length > 1) {
        log(`session ${spec.name}${spec.server ? ` on VS Code ${spec.server.vscode}` : ''}${spec.onlyFiles ? ` (${spec.onlyFiles.join(', ')})` : ''}`);
      }
      let outcome: SessionOutcome;
      try {
        const install = await (installs.get(spec.server ?? CURRENT_SERVER) ?? Promise.reject(new Error(`no server to install for session ${spec.name}`)));
        outcome = await runSession(spec, install, out);
      } catch (error) {
        out.error(`[integration] session ${spec.name}: ${error instanceof Error ? error.message : String(error)}`);
        outcome = { name: spec.name, exitCode: 1, counts: { passed: 0, failed: 0, pending: 0 }, failures: [], complete: false, suiteStarted: false, phases: 0, seconds: 0, fileSeconds: {} };
      }
      if (lanes > 1 && specs.length > 1) {
        log(`session ${spec.name} ended (${outcome.seconds.toFixed(1)} s)${outcome.exitCode === 0 ? '' : ' — FAILED'}; its lines:`);
      }
      out.flush();
      run.outputs.delete(out);
      return outcome;
    },
    () => run.interrupted === true,
  );
  await cleanup();

  const total: SuiteResult = { passed: 0, failed: 0, pending: 0 };
  let exitCode = 0;
  for (const outcome of outcomes) {
    total.passed += outcome.counts.passed;
    total.failed += outcome.counts.failed;
    total.pending += outcome.counts.pending;
    if (outcome.exitCode !== 0) {
      exitCode = outcome.exitCode;
    }
    if (outcomes.length > 1) {
      const { passed, failed, pending } = outcome.counts;
      const phases = outcome.phases > 1 ? `, ${outcome.phases} phases` : '';
      log(`session ${outcome.name}: ${passed} passed, ${failed} failed, ${pending} skipped${phases} (${outcome.seconds.toFixed(1)} s)${outcome.exitCode === 0 ? '' : ' — FAILED'}`);
    }
  }
  reportTimes(outcomes);
  for (const outcome of outcomes) {
    for (const failure of outcome.failures) {
      log(`failed in session ${outcome.name}: ${failure}`);
    }
  }
  if (outcomes.some((outcome) => outcome.suiteStarted)) {
    // The plain closing line CI reads.
    console.log(`integration: ${total.passed} passed, ${total.failed} failed, ${total.pending} skipped`);
  }
  if (exitCode === 0 && total.passed === 0 && !process.env.CREW_RUNS_TEST_GREP) {
    console.error('[integration] the suite ran no test');
    exitCode = 1;
  }
  log(`${exitCode === 0 ? 'passed' : 'FAILED'} in ${seconds(started)}`);
  return exitCode;
}

/**
 * Where the time went: the slowest test files, and every session's and file's seconds in
 * test-results/timings.json (what runner/sessionTimes.ts's estimates are taken from).
 */
function reportTimes(outcomes: SessionOutcome[]): void {
  const files = outcomes.flatMap((outcome) => Object.entries(outcome.fileSeconds).map(([file, secs]) => ({ session: outcome.name, file, secs })));
  const slowest = [...files].sort((a, b) => b.secs - a.secs).slice(0, 8);
  if (slowest.length > 1) {
    log(`slowest test files: ${slowest.map(({ session, file, secs }) => `${file.replace(/\.test\.js$/, '')} ${secs.toFixed(0)} s (${session})`).join(', ')}`);
  }
  const timings = {
    sessions: Object.fromEntries(outcomes.map((outcome) => [outcome.name, Math.round(outcome.seconds * 10) / 10])),
    files: Object.fromEntries(outcomes.map((outcome) => [outcome.name, outcome.fileSeconds])),
  };
  fs.writeFileSync(path.join(resultsDir, 'timings.json'), JSON.stringify(timings, null, 2) + '\n');
}

function addCounts(into: SuiteResult, from: SuiteResult): void {
  into.passed += from.passed;
  into.failed += from.failed;
  into.pending += from.pending;
}

function parseMarker<T>(line: string, marker: string): T | undefined {
  try {
    const text = line.slice(marker.length).trim();
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Installs a .vsix with the server's own CLI, as `code --install-extension` would (without blocking the other sessions). */
async function installVsix(nodeBin: string, serverMain: string, vsix: string, userDataDir: string, serverDataDir: string, extensionsDir: string, out: SessionOutput): Promise<void> {
  if (!fs.existsSync(vsix)) {
    throw new Error(`${vsix} does not exist: run npm run package first`);
  }
  const args = [serverMain, '--install-extension', vsix, '--user-data-dir', userDataDir, '--server-data-dir', serverDataDir, '--extensions-dir', extensionsDir, '--accept-server-license-terms'];
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = execFile(nodeBin, args, { encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: `${stdout}${stderr}` }),
    );
    child.stdin?.end();
  });
  const installed = fs.existsSync(extensionsDir) && fs.readdirSync(extensionsDir).some((name) => name.startsWith('crew-runs.crew-runs-'));
  if (code !== 0 || !installed) {
    throw new Error(`installing ${path.basename(vsix)} failed (exit ${code}):\n${output}`);
  }
  out.log(`installed ${path.basename(vsix)} into the server's extensions`);
}

/**
 * The smoke-test driver only runs tests with a development extension; when the extension under
 * test is the installed .vsix, that is an empty manifest.
 */
function placeholderExtension(tempDir: string): string {
  const dir = path.join(tempDir, 'placeholder-extension');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'placeholder', publisher: 'crew-runs-test', version: '0.0.0', engines: { vscode: '^1.96.0' } }));
  return dir;
}

async function runSession(spec: SessionSpec, { nodeBin, serverMain, mochaDir }: ServerInstall, out: SessionOutput): Promise<SessionOutcome> {
  const started = Date.now();
  const session: LiveSession = { name: spec.name, tempDir: fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-it-')) };
  run.sessions.push(session);
  // A folder of its own: suites write settings and files into it, and sessions run side by side.
  const workspaceFolder = path.join(session.tempDir, 'workspace');
  fs.cpSync(workspaceFixture, workspaceFolder, { recursive: true });
  const bridgeDir = path.join(session.tempDir, 'ui-bridge');
  fs.mkdirSync(bridgeDir);
  const stateDir = path.join(session.tempDir, 'state');
  if (spec.reloads) {
    fs.mkdirSync(stateDir);
  }
  const port = await freeLoopbackPort();

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms (CREW_RUNS_TEST_TIMEOUT_MS)`)), timeoutMs);
  });
  timedOut.catch(() => undefined); // Seen by the races below; never an unhandled rejection.
  let reloadTimer: NodeJS.Timeout | undefined;
  let failReload: (error: Error) => void = () => undefined;
  const reloadFailed = new Promise<never>((_, reject) => {
    failReload = reject;
  });
  reloadFailed.catch(() => undefined);

  let exitCode = 1;
  let suiteStarted = false;
  let phase = -1;
  /** Set from a reload request until the next phase starts. */
  let reloading: { fromPhase: number; at: number } | undefined;
  /** Counts of the phases a reload cut short. */
  const earlier: SuiteResult = { passed: 0, failed: 0, pending: 0 };
  let phaseResult: SuiteResult | undefined;
  let result: SuiteResult | undefined;
  let fileSeconds: Record<string, number> = {};
  const recentLines: string[] = [];
  const failures: string[] = [];
  // Tally of the current phase from the spec reporter's streamed lines, for when it never reports.
  let tally: SuiteResult = { passed: 0, failed: 0, pending: 0 };
  let workbenchLogs: { relativePath: string; contents: string }[] = [];
  let relay: Relay | undefined;

  try {
    const userDataDir = path.join(session.tempDir, 'user-data');
    fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
    fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...USER_SETTINGS, ...spec.settings }, null, 2));
    const extensionsDir = path.join(session.tempDir, 'extensions');
    if (spec.vsix) {
      await installVsix(nodeBin, serverMain, spec.vsix, userDataDir, path.join(session.tempDir, 'server-data'), extensionsDir, out);
    }
    const serverLogFile = sessionFile(spec.name, 'server', 'log');
    fs.rmSync(serverLogFile, { force: true });
    out.log(`starting VS Code server on 127.0.0.1:${port}…`);
    const server = await Promise.race([
      startVsCodeServer({
        nodeBin,
        serverMain,
        port,
        userDataDir,
        serverDataDir: path.join(session.tempDir, 'server-data'),
        extensionsDir,
        cwd: repoRoot,
        logFile: serverLogFile,
        onSpawn: (child) => (session.server = child),
        smokeTestDriver: true,
        // Whatever the server gets, the extension host gets.
        env: {
          ...process.env,
          // The packaged extension is tested as users get it: no test API (dist/testApi.js is not packaged).
          CREW_RUNS_TEST_HOOKS: spec.vsix ? '' : '1',
          [UI_BRIDGE_DIR_ENV]: bridgeDir,
          CREW_RUNS_TEST_LOGS_DIR: path.join(userDataDir, 'logs'), // where the server puts every log
          CREW_RUNS_TEST_GREP: process.env.CREW_RUNS_TEST_GREP ?? '',
          [STATE_DIR_ENV]: spec.reloads ? stateDir : '',
          [ONLY_FILES_ENV]: spec.onlyFiles?.join(',') ?? '',
          [SKIP_FILES_ENV]: spec.skipFiles?.join(',') ?? '',
          CREW_RUNS_TEST_VSIX_INSTALLED: spec.vsix ? '1' : '',
          // A home without the CrewAI CLI's sign-in: a developer's own `crewai login` never changes the sign-in flow under test.
          CREW_RUNS_CREWAI_HOME: path.join(session.tempDir, 'crewai-home'),
          [MOCHA_DIR_ENV]: mochaDir ?? '',
          [SKIP_TESTS_ENV]: spec.skipTests?.map((title) => title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') ?? '',
        },
      }),
      timedOut,
    ]);
    out.log(`server listening (${seconds(started)}); opening the workbench in headless chromium…`);
    const serverExited = new Promise<never>((_, reject) =>
      server.once('exit', (code, signal) => reject(new Error(`server exited during the run (${signal ?? code}); see ${path.basename(serverLogFile)} in ${resultsDir}`))),
    );
    // Only raced later: an exit before then must not become an unhandled rejection (and skip cleanup).
    serverExited.catch(() => undefined);

    if (!run.browser) {
      throw new Error('the browser is not running');
    }
    // Reload suites reach the server through a relay that can cut a window off (via 'sever').
    relay = spec.reloads ? await Relay.start(port) : undefined;
    const context = await run.browser.newContext({ viewport: { width: 1280, height: 800 } });
    session.context = context;
    const page = await context.newPage();
    session.page = page;
    await slowDown(context, page);
    await stillAfterOneTurn(page);
    await recordFocusAndKeys(page);
    const browserLog = fs.createWriteStream(sessionFile(spec.name, 'browser-console', 'log'));
    const workbenchLog = fs.createWriteStream(sessionFile(spec.name, 'workbench', 'log'));
    page.on('console', (message) => browserLog.write(consoleLogLine(message.type(), message.text())));
    page.on('pageerror', (error) => browserLog.write(`[pageerror] ${error.stack ?? error.message}\n`));

    const reloadPage = async (request: ReloadRequest): Promise<void> => {
      // The phase's counts so far; the spec lines when it could not say.
      addCounts(earlier, phaseResult ?? tally);
      phaseResult = undefined;
      reloading = { fromPhase: request.phase, at: Date.now() };
      workbenchLog.write(`[integration] reload (${request.via ?? 'command'}) requested by phase ${request.phase}\n`);
      const how = { command: 'Reload Window', page: 'page.reload()', sever: 'cut off, then page.reload()' }[request.via ?? 'command'];
      out.log(`reloading the window (${how}, phase ${request.phase} → ${request.phase + 1})…`);
      reloadTimer = setTimeout(
        () => failReload(new Error(`phase ${request.phase + 1} did not start within ${reloadTimeoutMs} ms of the reload (CREW_RUNS_TEST_RELOAD_TIMEOUT_MS)`)),
        reloadTimeoutMs,
      );
      if (request.via !== 'page' && request.via !== 'sever') {
        return; // The test runs workbench.action.reloadWindow once answered.
      }
      if (request.via === 'sever') {
        if (!relay) {
          failReload(new Error('a window can be cut off only in a reload session (no relay)'));
          return;
        }
        workbenchLog.write(`[integration] cut off the window: ${relay.sever()} connection(s) dropped\n`);
      }
      try {
        await page.reload({ waitUntil: 'domcontentloaded', timeout: reloadTimeoutMs });
      } catch (error) {
        failReload(new Error(`the page did not reload: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`));
      }
    };
    const authority = `127.0.0.1:${relay?.port ?? port}`;
    const extensionPath = spec.vsix ? placeholderExtension(session.tempDir) : spec.withoutChat ? extensionWithoutChat(repoRoot, session.tempDir) : repoRoot;
    const workbenchUrl = (testsEntry: string) => {
      const payload = [
        ['extensionDevelopmentPath', `vscode-remote://${authority}${extensionPath}`],
        ['extensionTestsPath', `vscode-remote://${authority}${testsEntry}`],
        ['skipWelcome', 'true'],
      ];
      return `http://${authority}/?folder=${encodeURIComponent(workspaceFolder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    };
    const windows = new PeerWindows({
      context,
      bridgeDir,
      agentModule: peerAgent,
      workbenchUrl,
      logFile: (name) => sessionFile(`${spec.name}-${name}`, 'workbench', 'log'),
      log: (message: string) => out.log(message),
      print: (text: string) => out.line(text),
    });
    session.windows = windows;
    const demos = new DemoWindows({
      browser: run.browser,
      nodeBin,
      serverMain,
      extensionDir: repoRoot,
      tempDir: session.tempDir,
      logFile: (name, kind) => sessionFile(`${spec.name}-demo-${name}`, kind, 'log'),
      logsDir: (name) => path.join(resultsDir, `demo-logs-${spec.name}-${name}`),
      log: (message: string) => out.log(message),
    });
    session.demos = demos;
    const bridge = new UiBridge(page, bridgeDir, resultsDir, reloadPage, windows, demos);

    // The workbench keys its SecretStorage with bytes from POST /mint-key, which the bare server
    // refuses; answer with fixed bytes for this session so secrets survive reloads. For the whole
    // context: a second window (page) shares the secrets, as two VS Code windows do.
    const mintKey = Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256)));
    await context.route('**/mint-key', (route) => route.fulfill({ status: 200, body: mintKey }));

    let resolveExit: (code: number) => void = () => undefined;
    const suiteExit = new Promise<number>((resolve) => (resolveExit = resolve));
    await page.exposeFunction('codeAutomationExit', (code: number, logs?: { relativePath: string; contents: string }[]) => {
      if (reloading) {
        // The old page's extension host stopping: not the suite's result.
        workbenchLog.write(`[integration] exit ${code} reported during the reload from phase ${reloading.fromPhase}: ignored\n`);
        return;
      }
      workbenchLogs = logs ?? [];
      resolveExit(code);
    });
    // Both the workbench's log and the extension host's console arrive here. Before the suite
    // starts it is all workbench chatter: keep it in the file and stream the suite's lines.
    await page.exposeFunction('codeAutomationLog', (level: string, args: unknown) => {
      for (const line of formatLogArgs(args).split('\n')) {
        workbenchLog.write(`[${level}] ${line}\n`);
        recentLines.push(`[${level}] ${line}`);
        recentLines.splice(0, recentLines.length - 40);
        const request = parseUiRequest(line);
        if (request) {
          bridge.handle(request);
        } else if (line.startsWith(RESULT_MARKER)) {
          result = parseMarker<SuiteResult>(line, RESULT_MARKER);
        } else if (line.startsWith(FILE_TIMES_MARKER)) {
          fileSeconds = parseMarker<Record<string, number>>(line, FILE_TIMES_MARKER) ?? {};
        } else if (line.startsWith(PHASE_RESULT_MARKER)) {
          phaseResult = parseMarker<SuiteResult>(line, PHASE_RESULT_MARKER);
        } else if (line.startsWith(SUITE_START_MARKER)) {
          const start = parseMarker<{ phase?: number; vscode?: string; node?: string }>(line, SUITE_START_MARKER);
          const next = start?.phase ?? phase + 1;
          if (!suiteStarted && start?.vscode) {
            out.log(`the suite runs in VS Code ${start.vscode}, extension host on Node ${start.node ?? '?'}`);
          }
          if (reloading) {
            clearTimeout(reloadTimer);
            out.log(`phase ${next} started ${((Date.now() - reloading.at) / 1000).toFixed(1)} s after the reload request`);
            reloading = undefined;
          }
          phase = next;
          suiteStarted = true;
          tally = { passed: 0, failed: 0, pending: 0 };
        } else if (verbose) {
          out.line(`[${level}] ${line}`);
        } else if (suiteStarted && !WORKBENCH_NOISE.some((pattern) => pattern.test(line))) {
          out.line(line);
        }
        if (suiteStarted) {
          countSpecLine(line, tally);
          if (line.startsWith(FAILURE_MARKER)) {
            failures.push(line.slice(FAILURE_MARKER.length));
          }
        }
      }
    });

    await Promise.race([page.goto(workbenchUrl(suiteEntry), { waitUntil: 'domcontentloaded' }), timedOut, serverExited]);
    out.log(`workbench page loaded (${seconds(started)}); running the suite…`);

    exitCode = await Promise.race([suiteExit, timedOut, serverExited, reloadFailed]);
    await bridge.idle();
    if (exitCode !== 0) {
      saveWorkbenchLogs(workbenchLogs, spec.name, out);
    }
  } catch (error) {
    if (!run.interrupted) {
      // Playwright appends a multi-line call log; its first line says what failed.
      out.error(`[integration] ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    exitCode = 1;
  } finally {
    clearTimeout(timer);
    clearTimeout(reloadTimer);
    if (exitCode !== 0 && !run.interrupted) {
      if (!suiteStarted && !verbose && recentLines.length > 0) {
        out.error(`[integration] the suite never started; last workbench log lines:\n${recentLines.join('\n')}`);
      }
      const shown = path.relative(repoRoot, resultsDir);
      out.error(
        `[integration] full workbench log: ${shown}/${path.basename(sessionFile(spec.name, 'workbench', 'log'))}, server output: ${shown}/${path.basename(sessionFile(spec.name, 'server', 'log'))}`,
      );
      await saveFailureScreenshot(session.page, out);
      if (spec.reloads && fs.existsSync(stateDir)) {
        // The phase state and what helpers kept there (e.g. a simulator's log) explain a failure.
        const saved = path.join(resultsDir, `state-${spec.name}`);
        fs.rmSync(saved, { recursive: true, force: true });
        fs.cpSync(stateDir, saved, { recursive: true });
        out.log(`state dir saved to ${path.relative(repoRoot, saved)}/`);
      }
    }
    await cleanupSession(session);
    relay?.close(); // After the page is gone: cutting it off first would only fill the log with reconnections.
  }

  const counts: SuiteResult = { ...earlier };
  if (result && !reloading) {
    addCounts(counts, result);
    if (exitCode === 0 && result.failed > 0) {
      exitCode = 1;
    }
  } else if (suiteStarted) {
    out.error(`[integration] the suite did not finish${phase > 0 ? ` (phase ${phase})` : ''}: the test it was in counts as failed`);
    addCounts(counts, reloading ? { passed: 0, failed: 1, pending: 0 } : { ...tally, failed: tally.failed + 1 });
    exitCode = exitCode === 0 ? 1 : exitCode;
  } else if (exitCode === 0) {
    out.error('[integration] the suite exited 0 but reported no result');
    exitCode = 1;
  }
  return {
    name: spec.name,
    exitCode,
    counts,
    failures,
    complete: result !== undefined,
    suiteStarted,
    phases: phase + 1,
    seconds: (Date.now() - started) / 1000,
    fileSeconds,
  };
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

async function saveFailureScreenshot(page: Page | undefined, out: SessionOutput): Promise<void> {
  if (!page || page.isClosed()) {
    return;
  }
  const file = path.join(resultsDir, `failure-${new Date().toISOString().replace(/[:.]/g, '-')}.png`);
  try {
    await page.screenshot({ path: file, timeout: 10_000 });
    out.log(`screenshot of the workbench saved to ${path.relative(repoRoot, file)}`);
  } catch (error) {
    out.error(`[integration] could not save a screenshot: ${String(error)}`);
  }
}

function saveWorkbenchLogs(logs: { relativePath: string; contents: string }[], session: string, out: SessionOutput): void {
  const dir = path.join(resultsDir, session === 'main' ? 'workbench-logs' : `workbench-logs-${session}`);
  for (const entry of logs) {
    const file = path.join(dir, entry.relativePath);
    if (!file.startsWith(dir + path.sep)) {
      continue;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, entry.contents);
  }
  if (logs.length > 0) {
    out.log(`workbench logs saved to ${path.relative(repoRoot, dir)}/`);
  }
}

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
for (const signal of Object.keys(SIGNAL_EXIT_CODES) as (keyof typeof SIGNAL_EXIT_CODES)[]) {
  process.once(signal, () => {
    console.error(`[integration] ${signal}: cleaning up…`);
    run.interrupted = true;
    for (const out of run.outputs) {
      out.flush();
    }
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

/**
 * CREW_RUNS_TEST_CPU_THROTTLE=N runs the workbench page N times slower (Chromium's CPU throttling), as
 * on a machine busy with other work: a way to find the races of a loaded machine on an idle one.
 */
async function slowDown(context: BrowserContext, page: Page): Promise<void> {
  const rate = Number(process.env.CREW_RUNS_TEST_CPU_THROTTLE);
  if (rate > 1) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  }
}

/**
 * Keeps the page's last focus changes and keys pressed (a ring of 200, timed): a test that failed on
 * a load race prints them (focusLog 'recent'), which says where a key went and who took the keyboard;
 * focusLog 'start' and 'read' look at a stretch of them.
 */
async function recordFocusAndKeys(page: Page): Promise<void> {
  await page.addInitScript(() => {
    interface Target {
      tagName?: string;
      className?: unknown;
      getAttribute?(name: string): string | null;
      closest?(selector: string): unknown;
    }
    interface PageEvent {
      type: string;
      target: Target | null;
      key?: string;
      ctrlKey?: boolean;
      shiftKey?: boolean;
      altKey?: boolean;
    }
    const page = globalThis as unknown as {
      document: { addEventListener(type: string, listener: (event: PageEvent) => void, capture: boolean): void };
      performance: { now(): number };
      crewRunsRecentFocus?: { seq: number; event: string; element: string; inQuickInput: boolean; key?: string; atMs: number; movedBy?: string }[];
    };
    const recent: NonNullable<typeof page.crewRunsRecentFocus> = (page.crewRunsRecentFocus = []);
    let seq = 0;
    const listener = (event: PageEvent) => {
      const target = event.target;
      const element = target?.tagName
        ? `${target.tagName.toLowerCase()}.${String(target.className).trim().split(/\s+/).slice(0, 3).join('.')} ${JSON.stringify((target.getAttribute?.('aria-label') ?? '').slice(0, 60))}`
        : 'the page';
      // A typed character is kept as '·': where the keys went is the point, and a test may be typing a token.
      const typed = (event.key ?? '').length === 1 && !event.ctrlKey && !event.altKey;
      const key = event.type === 'keydown' ? (typed ? '·' : `${event.ctrlKey ? 'Ctrl+' : ''}${event.altKey ? 'Alt+' : ''}${event.shiftKey ? 'Shift+' : ''}${event.key ?? ''}`) : undefined;
      // A focusin is dispatched inside the call that moved the focus: its stack names who did.
      const movedBy =
        event.type === 'focusin'
          ? (new Error().stack ?? '')
              .split('\n')
              .slice(2)
              .map((line) => /at (?:async )?([^\s(]+)/.exec(line)?.[1])
              .filter((name): name is string => name !== undefined && !name.includes('://'))
              .slice(0, 12)
              .join(' < ')
          : undefined;
      recent.push({ seq: ++seq, event: event.type, element, inQuickInput: Boolean(target?.closest?.('.quick-input-widget')), ...(key ? { key } : {}), ...(movedBy ? { movedBy } : {}), atMs: Math.round(page.performance.now()) });
      if (recent.length > 200) {
        recent.shift();
      }
    };
    for (const type of ['focusin', 'focusout', 'keydown']) {
      page.document.addEventListener(type, listener, true);
    }
  });
}

/**
 * The workbench's endless animations (spinning icons, the progress bar's sweep) run once, then stand still:
 * each of their frames is drawn, composited and sent by three Chromium processes, and with three sessions
 * side by side that CPU is the run's limit. Nothing waits on them; they are not what a test looks at.
 */
async function stillAfterOneTurn(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const { document } = globalThis as unknown as { document: { readyState: string; head: { append(node: unknown): void }; createElement(tag: string): { textContent: string }; addEventListener(type: string, listener: () => void): void } };
    const add = () => {
      const style = document.createElement('style');
      style.textContent = '*, *::before, *::after { animation-iteration-count: 1 !important; }';
      document.head.append(style);
    };
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', add);
    } else {
      add();
    }
  });
}
