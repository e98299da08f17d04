// The composition root: activate() builds the whole object graph, in the order the product reads — the core
// (tokens → crews → client → runs → poller → platform), batches, the views, commands, chat, suites — and registers
// every disposable; the functions below it are its chapters. Nothing here touches the network; the run history is
// read from disk just after, and what waits for it starts then (startAfterHistory).
import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CrewClient } from './api/client';
import { affectsNetworkSettings, readNetworkSettings } from './api/networkSettings';
import { systemClock } from './util/clock';
import { type NumberSetting, readCrewRunsNumbers, readNumberSetting } from './util/crewRunsSettings';
import { errorText } from './util/errorText';
import { setListenerErrorSink } from './util/event';
import { CORE_STARTED_MARK } from './util/marks';
import type { SharedValues } from './util/sharedValues';
import { LeaseManager } from './storage/lease';
import { NoticeRelay } from './storage/noticeRelay';
import { RunPoller } from './runTracking/poller';
import { watchRecords } from './runTracking/recordWatcher';
import { RunStore } from './runTracking/runStore';
import { SendOnce } from './runTracking/sendOnce';
import { SharedState } from './storage/sharedState';
import { WindowLiveness } from './storage/windowLiveness';
import { ChatSessionStore } from './flowChat/core/chatSessions';
import { ChatSupport } from './flowChat/core/chatSupport';
import { addCrewDirectly, forgetToken } from './crews/crewCommands';
import { CrewRegistry } from './crews/crewRegistry';
import { CrewsTreeProvider } from './sidebar/crewsTree';
import { DemoCrews } from './crews/demoCommands';
import { offerEnvironmentImport } from './crews/environmentImport';
import { InputPresets } from './kickoff/core/inputPresets';
import { RunRevealer } from './sidebar/revealRuns';
import { StopSupport } from './crews/stopSupport';
import { TokenStore } from './crews/tokenStore';
import { PlatformAccount } from './platform/account';
import { AUTH_PROVIDER_ID, CrewAIAuthenticationProvider } from './platform/authProvider';
import { DeploymentHealth } from './platform/deploymentHealth';
import { ImportedCrews } from './platform/importedCrews';
import { PlatformClient } from './platform/platformClient';
import { RunReporter } from './runs/runReporter';
import { RunsStatusBar } from './runs/statusBar';
import { removeRun } from './runs/runCommands';
import { stopRunWithoutAsking } from './runs/stopCommands';
import { followOtherWindows } from './runs/otherWindows';
import { followViewedRuns } from './runs/viewedRuns';
import { RunOutputDocuments } from './runView/outputDocuments';
import { RUN_VIEW_TYPE, RunPanelManager } from './runView/runPanel';
import { RunPanelProbe } from './runView/runPanelProbe';
import { readTraceSettings, TRACE_SETTINGS } from './runView/traceSettings';
import { FeedbackReviews } from './feedback/feedbackReview';
import { kickOffWithoutReview } from './kickoff/kickoffCommands';
import { batchActionsWithoutAsking, BatchFeature, batchRunnerDeps } from './batches/batchFeature';
import { BatchRunner } from './batches/core/batchRunner';
import { BatchStore } from './batches/core/batchStore';
import { BatchesTreeProvider } from './batches/batchesTree';
import { BatchResultsPanels } from './batches/batchResultsPanel';
import { inspectChats } from './flowChat/chatApi';
import { participantHandler, registerChat } from './chat/registerChat';
import { registerSuites } from './suites/suiteActivation';
import { registerCommands } from './registerCommands';
import type { AppServices } from './appServices';
import type { PlatformServices } from './platform/platformServices';
import type * as TestApiModule from './testApi';
import type { Inspection } from './testApi';

/** How long a settled send's mark is kept: long past any window that could still be answering its round. */
const SETTLED_SENDS_KEPT_MS = 7 * 24 * 3_600_000;

/** What deactivate() must await: the host does not wait for what a dispose() starts. */
let release: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext) {
  const log = vscode.window.createOutputChannel('Crew Runs', { log: true });
  context.subscriptions.push(log, setListenerErrorSink((error) => log.error(`An event listener failed: ${errorText(error)}`)));
  // Integration tests and the bench only (CREW_RUNS_TEST_HOOKS=1): what the test API may see inside.
  const inspection: Inspection | undefined = process.env.CREW_RUNS_TEST_HOOKS === '1' ? {} : undefined;

  const core = createCore(context, log, inspection);
  const { services, runs, poller } = core;
  const batches = createBatches(core, inspection);
  const views = createViews(core, batches, inspection);
  const suites = registerSuites(services, inspection && ((part) => (inspection.suites = part)));
  context.subscriptions.push(
    ...core.disposables,
    ...batches.register(),
    ...views.disposables,
    ...registerCommands(services, { panels: views.panels, reviews: views.reviews, documents: views.documents, demo: views.demo, batches, inspectChats: inspection && ((part) => (inspection.flowChats = part)), treeSession: (arg) => views.tree.chatSessionOfRow(arg) }),
    ...registerChat(services, context.extensionUri, log),
    ...suites.disposables,
    ...core.closing,
    followOtherWindows({ poller, notices: views.notices, onFocus: [() => runs.reload(), () => core.chatSessions.reload()], backstop: [() => runs.reload(), () => batches.refresh(), () => core.chatSessions.reload()] }),
    followSettings(core, views.panels),
  );
  void core.loaded.then(
    () => startAfterHistory(core, batches, views.demo),
    (error) => log.error(`Could not load the run history: ${errorText(error)}`),
  );
  release = async () => {
    poller.dispose();
    await Promise.all([views.demo.dispose(), core.leases.dispose(), batches.release(), views.notices.setFocused(false)]);
  };
  performance.mark(CORE_STARTED_MARK);
  return inspection && views.probe ? testApiOf(core, batches, views, suites, inspection, views.probe) : undefined;
}

/** The crews, their tokens and client, the runs every window shares and their poller, the platform: what features are handed. */
function createCore(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, inspection: Inspection | undefined) {
  const userAgent = `crew-runs/${context.extension.packageJSON.version ?? 'dev'}`;
  // Clamped, and user-only where a workspace must not decide (history size; every number when untrusted).
  const numbers = () => readCrewRunsNumbers(vscode.workspace.getConfiguration('crewRuns'), vscode.workspace.isTrusted);
  const setting = (name: NumberSetting, settings = vscode.workspace.getConfiguration('crewRuns')) => readNumberSetting(settings, name, vscode.workspace.isTrusted);

  // Crews and their tokens; the client that reaches them.
  const tokens = new TokenStore(context.secrets);
  const crews = new CrewRegistry(tokens, log);
  const client = new CrewClient({ getToken: (url) => tokens.get(url), getNetworkSettings: () => readNetworkSettings(log), userAgent });

  // Runs, shared by every window through global storage; a lease per run decides which window polls it.
  const globalState = { get: <T>(key: string) => context.globalState.get<T>(key), update: async (key: string, value: unknown) => context.globalState.update(key, value) };
  const storageDir = context.globalStorageUri.fsPath;
  // The history's cap is read as the history is (a user-only setting: inspect(), a third of a millisecond).
  const runs = new RunStore(globalState, storageDir, log, { maxRunsPerCrew: () => setting('maxRunsPerCrew') });
  // Small values every window shares; what older versions kept in globalState is read from there until first changed.
  const shared = new SharedState(path.join(storageDir, 'shared'), log, context.globalState);
  const windowId = randomUUID();
  // setContext runs in the workbench: its answer proves this extension host still has a window.
  const liveness = new WindowLiveness(() => vscode.commands.executeCommand('setContext', 'crewRuns.windowAnswers', true));
  const leases = new LeaseManager(path.join(storageDir, 'leases'), windowId, log, { liveness });
  // The reporter writes the user-facing lines (deduplicated); the poller's own notes stay at debug level.
  const pollerLog = { info: (m: string) => log.debug(m), warn: (m: string) => log.debug(m), error: (m: string) => log.error(m) };
  const settings = vscode.workspace.getConfiguration('crewRuns');
  const poller = new RunPoller(runs, client, systemClock, pollerLog, leases, {
    maxIntervalMs: setting('pollMaxIntervalSeconds', settings) * 1000,
    unfocusedFactor: setting('pollUnfocusedFactor', settings),
    watchDeadlineMs: setting('watchDeadlineHours', settings) * 3_600_000,
    tokenChanges: tokens.onDidChange,
    inspect: inspection && ((part) => (inspection.poller = part)),
  });

  const sends = new SendOnce(path.join(storageDir, 'sending'), windowId);
  const platform = createPlatform(context, log, userAgent, shared, sends);
  const chats = new ChatSupport({ probe: (crewUrl) => inspectChats(client, crewUrl), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
  // Each crew's recent chat sessions: one file per crew beside the runs, shared by every window.
  const chatSessions = new ChatSessionStore(path.join(storageDir, 'chat-sessions'), log);
  const stops = new StopSupport(shared);
  const services: AppServices = { context, log, tokens, crews, client, runs, poller, sends, presets: new InputPresets(shared), stops, chats, chatSessions, shared, platform };
  // Reading the run history is I/O: it goes on after activate() returns; restored run views wait for it.
  const loaded = runs.load();
  void chatSessions.start().catch((error: unknown) => log.error(`Could not read the chat sessions: ${errorText(error)}`));
  const disposables: vscode.Disposable[] = [
    tokens,
    crews,
    platform.account,
    platform.auth,
    platform.imported,
    platform.health,
    { dispose: () => void platform.client.dispose() },
    platform.imported.followCrews(crews, log),
    registerAccount(platform.auth, log),
  ];
  // Let go after the views and commands that use them (the subscriptions are disposed in order).
  const closing: vscode.Disposable[] = [
    { dispose: () => poller.dispose() },
    { dispose: () => void leases.dispose() },
    { dispose: () => runs.dispose() },
    { dispose: () => void client.dispose() },
    stops,
    chats,
    chatSessions,
    tokens.onDidChange((crewUrl) => chats.forget(crewUrl)),
  ];
  return { services, runs, poller, leases, sends, platform, chatSessions, client, storageDir, windowId, liveness, numbers, loaded, disposables, closing };
}
type Core = ReturnType<typeof createCore>;

/** The crews tree, the status bar, the log and notices, the run views and documents, feedback reviews, the demo. */
function createViews(core: Core, batches: BatchFeature, inspection: Inspection | undefined) {
  const { services, runs, platform } = core;
  const tree = new CrewsTreeProvider(services.crews, runs, core.chatSessions);
  tree.setStopHidden((crewUrl) => !services.stops.offersStop(crewUrl), services.stops.onDidChange);
  tree.setDeployments((crewUrl) => (platform.imported.get(crewUrl) ? (platform.health.get(crewUrl) ?? { state: 'unknown' }) : undefined), (listener) =>
    vscode.Disposable.from(platform.health.onDidChange(listener), platform.imported.onDidChange(listener)),
  );
  tree.setChatSupport((crewUrl) => services.chats.chats(crewUrl), services.chats.onDidChange);
  const treeView = vscode.window.createTreeView('crewRuns.crews', { treeDataProvider: tree, showCollapseAll: true });
  const statusBar = new RunsStatusBar(runs, { activeCount: () => batches.activeCount(), onDidChange: (listener) => batches.store.onDidChange(listener) }, inspection && ((part) => (inspection.statusBar = part)));
  // Run notices are shown in the focused window, whichever window polled the run.
  const notices = new NoticeRelay(path.join(core.storageDir, 'notices'), core.windowId, services.log);
  const reporter = new RunReporter(services, notices, () => panels.activeRunId());
  // Made before any run view, so every run view of a test session reports to it.
  const probe = inspection && new RunPanelProbe();
  const panels = new RunPanelManager({ extensionUri: services.context.extensionUri, runs, log: services.log, ready: core.loaded, observer: probe, traceSettings: readTraceSettings });
  const reviews = new FeedbackReviews();
  const documents = new RunOutputDocuments(runs);
  const demo = new DemoCrews(services, (text) => (treeView.message = text), () => void platform.health.refresh());
  platform.auth.offerDemoPlatform(() => demo.platform());
  const disposables: vscode.Disposable[] = [
    tree,
    treeView,
    new RunRevealer(tree, treeView, runs, inspection && ((part) => (inspection.revealer = part))),
    statusBar,
    reporter,
    panels,
    vscode.window.registerWebviewPanelSerializer(RUN_VIEW_TYPE, { deserializeWebviewPanel: (panel, state: unknown) => panels.deserialize(panel, state) }),
    reviews,
    reviews.register(),
    documents,
    documents.register(),
    followViewedRuns({ treeView, panels }, core.poller),
  ];
  return { tree, treeView, notices, reporter, probe, panels, reviews, documents, demo, disposables };
}
type Views = ReturnType<typeof createViews>;

/** Settings that apply at once: the network's (a new transport), the history's size, the trace's prices. */
function followSettings(core: Core, panels: RunPanelManager): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (affectsNetworkSettings(e)) {
      void core.client.resetTransport();
    }
    if (e.affectsConfiguration('crewRuns.maxRunsPerCrew')) {
      void core.runs.setMaxRunsPerCrew(core.numbers().maxRunsPerCrew);
    }
    if (e.affectsConfiguration(TRACE_SETTINGS)) {
      panels.refreshTraces();
    }
  });
}

/** Once the history is read: runs in flight are picked up again, batches go on, imported crews are asked about. */
function startAfterHistory(core: Core, batches: BatchFeature, demo: DemoCrews): void {
  const { services, runs, platform } = core;
  services.context.subscriptions.push(watchRecords(runs.recordsDir, (id) => runs.refresh(id), services.log));
  core.leases.startRenewing();
  core.poller.start();
  void core.sends.prune(SETTLED_SENDS_KEPT_MS).catch((error: unknown) => services.log.warn(`Could not tidy the send marks: ${errorText(error)}`));
  void platform.health.refresh();
  batches.start();
  if (process.env.CREWAI_API_URL && process.env.CREWAI_BEARER_TOKEN) {
    void offerEnvironmentImport(services);
  }
  if (process.env.CREW_RUNS_DEMO === '1') {
    void demo.start(); // `npm run demo`: the demo crews are ready without a click.
  }
}

/** Integration tests only: dist/testApi.js, never loaded (nor packaged) otherwise. */
function testApiOf(core: Core, batches: BatchFeature, views: Views, suites: ReturnType<typeof registerSuites>, inspection: Inspection, probe: RunPanelProbe) {
  const { services, runs, poller, platform } = core;
  const { createTestApi } = require('./testApi') as typeof TestApiModule;
  return createTestApi(services, {
    ...{ tree: views.tree, treeView: views.treeView, reporter: views.reporter, settings: core.numbers, batches, inspection, panels: probe, reviews: views.reviews, demo: views.demo, loadSuites: suites.load },
    unprompted: {
      addCrew: (args) => addCrewDirectly(services, args),
      kickOff: (args) => kickOffWithoutReview(services, args),
      stopRun: (runId) => stopRunWithoutAsking(services, runId),
      stopWatching: (runId) => poller.stopWatching(runId),
      removeRun: async (runId) => {
        const run = runs.get(runId);
        return run && removeRun(services, run);
      },
      forgetToken: async (crewUrl) => {
        const crew = services.crews.get(crewUrl);
        return crew && forgetToken(services, crew);
      },
      signOut: () => platform.auth.removeSession(),
      batches: batchActionsWithoutAsking(services, batches),
      chatHandler: () => participantHandler(services),
    },
  });
}

export async function deactivate(): Promise<void> {
  // Awaited here, not in a disposable: the leases outlived a reload otherwise, and the reloaded window could
  // not poll its runs until they expired.
  await release?.();
  release = undefined;
}

/** The organization's platform: sign-in, imported crews and their deployment health (src/platform/). */
function createPlatform(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, userAgent: string, shared: SharedValues, sends: SendOnce): PlatformServices {
  const account = new PlatformAccount(context.secrets, log);
  const client = new PlatformClient({ getNetworkSettings: () => readNetworkSettings(log), userAgent });
  const imported = new ImportedCrews(shared);
  return { account, client, imported, auth: new CrewAIAuthenticationProvider(account, client), health: new DeploymentHealth(account, imported, client, log, undefined, sends) };
}

/** Batches: their store, the window that sends each (leases), the runner, the view and the results panels. */
function createBatches(core: Core, inspection: Inspection | undefined): BatchFeature {
  const { services, storageDir } = core;
  const leases = new LeaseManager(path.join(storageDir, 'leases', 'batches'), core.windowId, services.log, { liveness: core.liveness });
  const store = new BatchStore(path.join(storageDir, 'batches'), services.log);
  return new BatchFeature(services, {
    store,
    leases,
    runner: new BatchRunner(batchRunnerDeps(services, store, leases)),
    tree: new BatchesTreeProvider(store, services.runs),
    panels: new BatchResultsPanels({ extensionUri: services.context.extensionUri, store, runs: services.runs, log: services.log, inspect: inspection && ((part) => (inspection.batchPanels = part)) }),
  });
}

/** The "CrewAI" account; an id another extension took already must not keep the crews from starting. */
function registerAccount(provider: vscode.AuthenticationProvider, log: vscode.LogOutputChannel): vscode.Disposable {
  try {
    return vscode.authentication.registerAuthenticationProvider(AUTH_PROVIDER_ID, 'CrewAI', provider, { supportsMultipleAccounts: false });
  } catch (error) {
    log.error(`The CrewAI account could not be registered (${errorText(error)}); the platform commands still work.`);
    return { dispose: () => undefined };
  }
}
