// The runs, the crews, their views and the polling: its own bundle (dist/core.js), which activate()
// loads just after it returns, so that activation itself only registers what VS Code asks for by name
// (command ids, the run view's serializer, document providers, the chat tools).
import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LazyCrewClient } from './api/lazyClient';
import { affectsNetworkSettings, readNetworkSettings } from './api/networkSettings';
import { BatchFeature } from './commands/batchFeature';
import type { LazyCommands } from './commands/lazyCommands';
import { CrewRegistry } from './crews/crewRegistry';
import { InputPresets } from './crews/inputPresets';
import { StopSupport } from './crews/stopSupport';
import { TokenStore } from './crews/tokenStore';
import { PlatformAccount } from './platform/account';
import { AUTH_PROVIDER_ID, CrewAIAuthenticationProvider } from './platform/authProvider';
import { DeploymentHealth } from './platform/deploymentHealth';
import { ImportedCrews } from './platform/importedCrews';
import { PlatformClient } from './platform/platformClient';
import { LeaseManager } from './runs/lease';
import { WindowLiveness } from './runs/windowLiveness';
import { RunPoller } from './runs/poller';
import { watchRecords } from './runs/recordWatcher';
import { RunStore } from './runs/runStore';
import { SharedState } from './runs/sharedState';
import type { Services } from './services';
import { systemClock } from './util/clock';
import { errorText } from './util/errorText';
import { CORE_STARTED_MARK } from './util/marks';
import { setListenerErrorSink } from './util/event';
import { type CrewsTreeNode, CrewsTreeProvider } from './views/crewsTree';
import { RunReporter } from './views/runReporter';
import { RunRevealer } from './views/revealRuns';
import { RunsStatusBar } from './views/statusBar';
import { followViewedRuns } from './views/viewedRuns';
import { type CrewRunsNumbers, readCrewRunsNumbers } from './util/crewRunsSettings';

export interface Core {
  services: Services;
  /** Stops polling and gives up this window's leases (deactivate awaits it). */
  release(): Promise<void>;
  /** What the integration tests' API reads (src/testApi.ts). */
  parts: { tree: CrewsTreeProvider; treeView: vscode.TreeView<CrewsTreeNode>; reporter: RunReporter; settings: () => CrewRunsNumbers; batches: BatchFeature; statusBar: RunsStatusBar };
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

/** Everything is registered in `context.subscriptions`; `commands` gets the services it runs on. */
export function startCore(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, commands: LazyCommands): Core {
  context.subscriptions.push(setListenerErrorSink((error) => log.error(`An event listener failed: ${errorText(error)}`)));
  // Clamped, and user-only where a workspace must not decide (history size; every number when untrusted).
  const numbers = () => readCrewRunsNumbers(vscode.workspace.getConfiguration('crewRuns'), vscode.workspace.isTrusted);
  const atStart = numbers();
  const tokens = new TokenStore(context.secrets);
  const crews = new CrewRegistry(tokens, log);
  const client = new LazyCrewClient({
    getToken: (url) => tokens.get(url),
    getNetworkSettings: () => readNetworkSettings(log),
    userAgent: `crew-runs/${context.extension.packageJSON.version ?? 'dev'}`,
  });
  const globalState = { get: <T>(key: string) => context.globalState.get<T>(key), update: async (key: string, value: unknown) => context.globalState.update(key, value) };
  const storageDir = context.globalStorageUri.fsPath;
  const runs = new RunStore(globalState, storageDir, log, { maxRunsPerCrew: atStart.maxRunsPerCrew });
  // What older versions kept in globalState is read from there until first changed.
  const shared = new SharedState(path.join(storageDir, 'shared'), log, context.globalState);
  // Several windows share the runs; a lease decides which one polls and notifies each run.
  const windowId = randomUUID();
  // setContext runs in the workbench: its answer proves this extension host still has a window.
  const liveness = new WindowLiveness(() => vscode.commands.executeCommand('setContext', 'crewRuns.windowAnswers', true));
  const leases = new LeaseManager(path.join(storageDir, 'leases'), windowId, log, { liveness });
  // The reporter writes the user-facing lines (deduplicated); the poller's own notes stay at debug level.
  const pollerLog = { info: (m: string) => log.debug(m), warn: (m: string) => log.debug(m), error: (m: string) => log.error(m) };
  const poller = new RunPoller(runs, client, systemClock, pollerLog, leases, {
    maxIntervalMs: atStart.pollMaxIntervalSeconds * 1000,
    unfocusedFactor: atStart.pollUnfocusedFactor,
    watchDeadlineMs: atStart.watchDeadlineHours * 3_600_000,
    tokenChanges: tokens.onDidChange,
  });
  const platform = (() => {
    const account = new PlatformAccount(context.secrets);
    // Its transport (dist/transport.js, the crews' own) loads on the first platform request.
    const platformClient = new PlatformClient({ getNetworkSettings: () => readNetworkSettings(log), userAgent: `crew-runs/${context.extension.packageJSON.version ?? 'dev'}` });
    const imported = new ImportedCrews(shared);
    return { account, client: platformClient, imported, auth: new CrewAIAuthenticationProvider(account, platformClient), health: new DeploymentHealth(account, imported, platformClient, log) };
  })();
  const services: Services = { context, log, tokens, crews, client, runs, poller, presets: new InputPresets(shared), stops: new StopSupport(shared), shared, platform };
  const batches = new BatchFeature(services, storageDir, { id: windowId, liveness });
  const tree = new CrewsTreeProvider(crews, runs);
  tree.setStopHidden((crewUrl) => !services.stops.offersStop(crewUrl), services.stops.onDidChange);
  tree.setDeployments((crewUrl) => (platform.imported.get(crewUrl) ? (platform.health.get(crewUrl) ?? { state: 'unknown' }) : undefined), (listener) =>
    vscode.Disposable.from(platform.health.onDidChange(listener), platform.imported.onDidChange(listener)),
  );
  const treeView = vscode.window.createTreeView('crewRuns.crews', { treeDataProvider: tree, showCollapseAll: true });
  const reporter = new RunReporter(services);
  // Loading reads files: done after this returns; panels restored by a reload wait for it.
  const loaded = runs.load();
  commands.attach(services, loaded);
  const statusBar = new RunsStatusBar(runs, { activeCount: () => batches.activeCount(), onDidChange: (listener) => batches.store.onDidChange(listener) });

  context.subscriptions.push(
    tokens,
    crews,
    platform.account,
    platform.auth,
    platform.imported,
    platform.health,
    { dispose: () => void platform.client.dispose() },
    crews.onDidChange(() => void platform.imported.retain(new Set(crews.list().map((c) => c.url)))),
    registerAccount(platform.auth, log),
    tree,
    treeView,
    new RunRevealer(tree, treeView, runs, () => batches.activeCount() > 0),
    reporter,
    statusBar,
    ...batches.register(),
    { dispose: () => poller.dispose() },
    { dispose: () => void leases.dispose() },
    { dispose: () => runs.dispose() },
    { dispose: () => void client.dispose() },
    services.stops,
    followViewedRuns({ treeView, panels: commands }, poller),
    vscode.window.onDidChangeWindowState((state) => {
      poller.setFocused(state.focused);
      if (state.focused) {
        void runs.reload(); // The watcher may have missed another window's change.
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsNetworkSettings(e)) {
        void client.resetTransport();
      }
      if (e.affectsConfiguration('crewRuns.maxRunsPerCrew')) {
        void runs.setMaxRunsPerCrew(numbers().maxRunsPerCrew);
      }
    }),
  );
  poller.setFocused(vscode.window.state.focused);
  // Runs another window started show up here even if this window is never focused, and this window
  // can take them over should that one close.
  const otherWindows = setInterval(() => {
    void runs.reload(); // The backstop: runs' changes come through the watcher (below) within moments.
    void batches.refresh();
  }, 30_000);
  context.subscriptions.push({ dispose: () => clearInterval(otherWindows) });

  // Then runs in flight are picked up again.
  void loaded.then(
    () => {
      context.subscriptions.push(watchRecords(runs.recordsDir, (id) => runs.refresh(id), log));
      leases.startRenewing();
      poller.start();
      void platform.health.refresh();
      batches.start();
      if (process.env.CREWAI_API_URL && process.env.CREWAI_BEARER_TOKEN) {
        void commands.load().offerEnvironmentImport(); // Its Import Crew is a command's: it loads with them.
      }
      if (process.env.CREW_RUNS_DEMO === '1') {
        void commands.demo.start(); // `npm run demo`: the demo crews are ready without a click.
      }
    },
    (error) => log.error(`Could not load the run history: ${errorText(error)}`),
  );
  performance.mark(CORE_STARTED_MARK);
  return {
    services,
    release: async () => {
      poller.dispose();
      await Promise.all([leases.dispose(), batches.release()]);
    },
    parts: { tree, treeView, reporter, settings: numbers, batches, statusBar },
  };
}
