// What activate() returns when CREW_RUNS_TEST_HOOKS=1: the integration tests' way in. Its own bundle
// (dist/testApi.js), never loaded otherwise and never packaged.
import type { FlowChatInspection } from './flowChat/chatCommands';
import type * as vscode from 'vscode';
import type { BatchFeature, batchActionsWithoutAsking } from './batches/batchFeature';
import type { AddCrewArguments, addCrewDirectly } from './crews/crewCommands';
import type { DemoCrews } from './crews/demoCommands';
import type { KickOffArguments } from './kickoff/kickoffCommands';
import type { StopOutcome } from './runs/stopCommands';
import type { AppServices } from './appServices';
import type { CrewRunsNumbers } from './util/crewRunsSettings';
import type { CrewsTreeNode, CrewsTreeProvider } from './sidebar/crewsTree';
import type { FeedbackReviews } from './feedback/feedbackReview';
import type { RunPanelProbe } from './runView/runPanelProbe';
import type { RunReporter } from './runs/runReporter';
import type { PollerInspection } from './runTracking/poller';
import type { BatchPanelsInspection } from './batches/batchResultsPanel';
import type { RevealInspection } from './sidebar/revealRuns';
import type { StatusBarInspection } from './runs/statusBar';
import type { SuitesInspection } from './suites/suiteInspection';

/**
 * What tests may see inside production objects: each part is handed over by its owner when it is made, and only
 * where the test API is (CREW_RUNS_TEST_HOOKS=1). No production class has a member for tests.
 */
export interface Inspection {
  poller?: PollerInspection;
  statusBar?: StatusBarInspection;
  batchPanels?: BatchPanelsInspection;
  revealer?: RevealInspection;
  flowChats?: FlowChatInspection;
  suites?: SuitesInspection;
}

/** What the composition root hands the test API besides the services. */
export interface TestApiParts {
  tree: CrewsTreeProvider;
  treeView: vscode.TreeView<CrewsTreeNode>;
  reporter: RunReporter;
  settings: () => CrewRunsNumbers;
  batches: BatchFeature;
  inspection: Inspection;
  /** The run panels as tests see them: what each sent, what its page reported. */
  panels: RunPanelProbe;
  reviews: FeedbackReviews;
  demo: DemoCrews;
  /** Loads the test suites (as a suite file in the workspace does): their inspection is made then. */
  loadSuites(): Promise<unknown>;
  /**
   * What the commands always ask first, without asking. Functions of the main bundle: this bundle's own copies
   * of the commands would not recognise the main bundle's error classes.
   */
  unprompted: {
    addCrew(args: AddCrewArguments): ReturnType<typeof addCrewDirectly>;
    kickOff(args: KickOffArguments): Promise<string | undefined>;
    stopRun(runId: string): Promise<StopOutcome>;
    stopWatching(runId: string): Promise<void>;
    removeRun(runId: string): Promise<void>;
    forgetToken(crewUrl: string): Promise<void>;
    signOut(): Promise<void>;
    batches: ReturnType<typeof batchActionsWithoutAsking>;
    chatHandler(): vscode.ChatRequestHandler;
  };
}

/** It gives the models, never a token: the token store is deliberately not part of it. */
export function createTestApi(services: AppServices, parts: TestApiParts) {
  return {
    runs: services.runs,
    crews: services.crews,
    poller: services.poller,
    presets: services.presets,
    tree: parts.tree,
    treeView: parts.treeView,
    demo: parts.demo,
    reviews: parts.reviews,
    panels: parts.panels,
    /** The open Chat with Flow panels: what each page last reported; `submitFromPage` types and presses Enter there. */
    flowChats: () => required(parts.inspection.flowChats, 'flowChats').panels(),
    batches: parts.batches,
    /** The poller's, the status bar's, the batch results panels' and the run revealer's inspections (see Inspection). */
    inspection: {
      poller: required(parts.inspection.poller, 'poller'),
      statusBar: required(parts.inspection.statusBar, 'statusBar'),
      batchPanels: required(parts.inspection.batchPanels, 'batchPanels'),
      revealer: required(parts.inspection.revealer, 'revealer'),
    },
    /** The numeric settings as this window reads them (its poller took them at activation), clamped. */
    settings: parts.settings,
    logUri: services.context.logUri,
    globalStorageUri: services.context.globalStorageUri,
    /** Adds a crew with its token, without asking: the only way in with a token that is not typed (no command takes one). */
    addCrew: parts.unprompted.addCrew,
    /**
     * What the commands never do without asking the user (a command link or another extension can run them), for
     * tests that need no question: kick off without the review; stop, stop watching, remove a run, forget a token
     * and sign out without the confirmation. Cancel, remove, resume, re-run and export batches: `batchesWithoutAsking`.
     */
    kickOff: parts.unprompted.kickOff,
    stopRun: parts.unprompted.stopRun,
    stopWatching: parts.unprompted.stopWatching,
    removeRun: parts.unprompted.removeRun,
    forgetToken: parts.unprompted.forgetToken,
    signOut: parts.unprompted.signOut,
    batchesWithoutAsking: parts.unprompted.batches,
    /**
     * The platform side, without the personal token: who is signed in (URL and organization), the imported crews,
     * their deployment health, and the platform URL as the extension reads it (a workspace value never counts).
     */
    platform: {
      signedIn: async () => {
        const signIn = await services.platform.account.current();
        return signIn ? { baseUrl: signIn.baseUrl, organizationId: signIn.organizationId, organizationName: signIn.organizationName } : undefined;
      },
      baseUrl: () => services.platform.account.baseUrl(),
      imported: () => services.platform.imported.list(),
      health: (crewUrl: string) => services.platform.health.get(crewUrl),
      refreshHealth: () => services.platform.health.refresh(),
      /**
       * Signs in to the configured platform URL with this personal token, as the sign-in flow saves it (suites that
       * test something else than the flow itself: the flow is driven through its quick inputs in platform.test.ts).
       */
      signInWithToken: async (token: string, organizationId?: string, organizationName?: string) => {
        const baseUrl = services.platform.account.baseUrl();
        if (!baseUrl) {
          throw new Error('The platform URL setting is not usable.');
        }
        await services.platform.account.save({ baseUrl, token, organizationId, organizationName });
      },
      signOut: () => services.platform.auth.removeSession(),
    },
    /**
     * The test suites in the Testing view (loaded first, as a suite file in the workspace does): their items, the
     * results reported, a way to run items as the ▶ does, and the judge's model for later runs.
     */
    suites: async (): Promise<SuitesInspection> => {
      await parts.loadSuites();
      return required(parts.inspection.suites, 'suites');
    },
    /** The @crews request handler as registered (the chat view needs a language model to call it). */
    chatHandler: async () => parts.unprompted.chatHandler(),
  };
}

function required<T>(part: T | undefined, name: string): T {
  if (!part) {
    throw new Error(`The ${name} was made without its inspection.`);
  }
  return part;
}

export type CrewRunsTestApi = ReturnType<typeof createTestApi>;
