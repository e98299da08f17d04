// Thin registrations: activate() registers the command ids and the run view's serializer; the first
// call loads the implementations (commandHost.ts, its own bundle dist/commands.js like the chat and
// the batch UI), which register the real commands in the stubs' place, and the call goes on to them.
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { ViewedRunSources } from '../views/viewedRuns';
import type * as CommandHostModule from './commandHost';

/** Every command commandHost.ts registers (the activation test checks each contributed command is registered). */
const LAZY_COMMANDS = [
  // crewCommands.ts
  'crewRuns.addCrew',
  'crewRuns.setToken',
  'crewRuns.forgetToken',
  'crewRuns.removeCrew',
  'crewRuns.renameCrew',
  'crewRuns.copyCrewUrl',
  'crewRuns.checkConnection',
  // kickoffCommands.ts
  'crewRuns.kickOff',
  'crewRuns.runAgain',
  'crewRuns.runAgainWithEditedInputs',
  'crewRuns.trackKickoffId',
  'crewRuns.saveInputsAsPreset',
  'crewRuns.managePresets',
  // valueEditor.ts (registered with the kickoff commands)
  'crewRuns.useInputText',
  'crewRuns.discardInputText',
  'crewRuns.editInputInEditor',
  'crewRuns.toggleInputJson',
  // runCommands.ts
  'crewRuns.stopWatching',
  'crewRuns.resumeWatching',
  'crewRuns.removeRun',
  'crewRuns.copyKickoffId',
  'crewRuns.showLog',
  'crewRuns.refresh',
  // feedbackCommands.ts
  'crewRuns.giveFeedback',
  'crewRuns.feedback.approve',
  'crewRuns.feedback.requestChanges',
  'crewRuns.approveRun',
  'crewRuns.requestChanges',
  // runViewCommands.ts
  'crewRuns.openRun',
  'crewRuns.openTaskOutput',
  'crewRuns.copyOutput',
  'crewRuns.saveOutputAs',
  'crewRuns.openOutputInEditor',
  'crewRuns.compareOutput',
  // stopCommands.ts, demoCommands.ts
  'crewRuns.stopRun',
  'crewRuns.tryDemoCrew',
  // platform/platformCommands.ts
  'crewRuns.platform.signIn',
  'crewRuns.platform.signOut',
  'crewRuns.platform.switchOrganization',
  'crewRuns.platform.importCrews',
  'crewRuns.platform.showLogs',
  'crewRuns.platform.redeploy',
  'crewRuns.platform.openDashboard',
  // flowChat/chatPanel.ts
  'crewRuns.chatWithFlow',
];

// From views/runPanel.ts, feedbackReview.ts and outputDocuments.ts (not imported: they stay out of the main bundle).
const RUN_VIEW_TYPE = 'crewRuns.run';
const REVIEW_SCHEME = 'crew-review';
const OUTPUT_SCHEME = 'crew-run';

type VisibleRunsSource = ViewedRunSources['panels'];

/** Also the run views' side of the viewed runs (views/viewedRuns.ts): none before the run view host loads. */
export class LazyCommands implements vscode.Disposable, VisibleRunsSource {
  private host?: CommandHostModule.CommandHost;
  private stubs: vscode.Disposable[] = [];
  /** Open output documents change with their runs (forwarded from the loaded RunOutputDocuments). */
  private readonly outputChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly visibleRunsChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeVisibleRuns = this.visibleRunsChanged.event;

  /** Set by attach(): the services, and the run history loaded. */
  private core?: { services: Services; ready: Promise<void> };
  private settle!: { resolve: () => void; reject: (error: unknown) => void };
  /** Settles when the core (core.ts, started just after activation) has attached its services, or failed. */
  private readonly coreStarted = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));

  constructor() {
    this.coreStarted.catch(() => undefined); // A core that failed is reported by each call that waits for it.
  }

  /** Called once by the core: from then on the implementations can load. */
  attach(services: Services, ready: Promise<void>): void {
    this.core = { services, ready };
    this.settle.resolve();
  }

  /** The core did not start: what waits for it fails with `error` instead of waiting for ever. */
  fail(error: unknown): void {
    this.settle.reject(error);
  }

  /** The implementations, once the core has started (a call during activation waits for it). */
  private async loaded(): Promise<CommandHostModule.CommandHost> {
    await this.coreStarted;
    return this.load();
  }

  register(): vscode.Disposable[] {
    this.stubs = LAZY_COMMANDS.map((id) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        await this.loaded();
        // Now the real command, with the same arguments (a local call: objects are passed as they are).
        return vscode.commands.executeCommand(id, ...args);
      }),
    );
    // Restored editors (run views, output and review documents) may ask before any command ran.
    return [
      this,
      this.outputChanged,
      this.visibleRunsChanged,
      vscode.window.registerWebviewPanelSerializer(RUN_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => (await this.loaded()).panels.deserialize(panel, state),
      }),
      vscode.workspace.registerTextDocumentContentProvider(OUTPUT_SCHEME, {
        onDidChange: this.outputChanged.event,
        provideTextDocumentContent: async (uri) => (await this.loaded()).documents.provideTextDocumentContent(uri),
      }),
      vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, {
        provideTextDocumentContent: async (uri) => (await this.loaded()).reviews.provideTextDocumentContent(uri),
      }),
    ];
  }

  /** The implementations, loaded on first use. */
  load(): CommandHostModule.CommandHost {
    if (!this.host) {
      if (!this.core) {
        throw new Error('the command implementations were asked for before the core started');
      }
      // A plain require: the bundle loads dist/commands.js synchronously, so stubs and real commands swap in one go.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { createCommandHost } = require('./commandHost') as typeof CommandHostModule;
      this.stubs.forEach((stub) => stub.dispose());
      this.stubs = [];
      const host = createCommandHost(this.core.services, this.core.ready);
      host.disposables.push(
        host.documents.onDidChange((uri) => this.outputChanged.fire(uri)),
        host.panels.onDidChangeVisibleRuns(() => this.visibleRunsChanged.fire()),
      );
      this.host = host;
    }
    return this.host;
  }

  visibleRunIds(): string[] {
    return this.host?.panels.visibleRunIds() ?? [];
  }

  /** These load the implementations (tests, bench). */
  get panels(): CommandHostModule.CommandHost['panels'] {
    return this.load().panels;
  }

  get panelProbe(): CommandHostModule.CommandHost['panelProbe'] {
    return this.load().panelProbe;
  }

  get reviews(): CommandHostModule.CommandHost['reviews'] {
    return this.load().reviews;
  }

  get demo(): CommandHostModule.CommandHost['demo'] {
    return this.load().demo;
  }

  /** Stops the demo crews if they were started (deactivate awaits it). */
  async deactivate(): Promise<void> {
    await this.host?.demo.dispose();
  }

  dispose(): void {
    this.stubs.forEach((stub) => stub.dispose());
    this.host?.disposables.forEach((d) => d.dispose());
  }
}
