import type * as vscode from 'vscode';
import type { Services } from './services';
import type { LazyCommands } from './commands/lazyCommands';
import type { CrewsTreeNode, CrewsTreeProvider } from './views/crewsTree';
import type { RunReporter } from './views/runReporter';
import type { BatchFeature } from './commands/batchFeature';
import type { AddCrewArguments } from './commands/crewCommands';
import type { KickOffArguments } from './commands/kickoffCommands';
import type { CrewRunsNumbers } from './util/crewRunsSettings';
import type { RunsStatusBar } from './views/statusBar';

/**
 * What activate() returns when CREW_RUNS_TEST_HOOKS=1 (integration tests only). It gives the
 * models, never a token: the token store is deliberately not part of it.
 */
export function createTestApi(services: Services, parts: { tree: CrewsTreeProvider; treeView: vscode.TreeView<CrewsTreeNode>; commands: LazyCommands; reporter: RunReporter; settings: () => CrewRunsNumbers; batches: BatchFeature; statusBar: RunsStatusBar }) {
  return {
    runs: services.runs,
    crews: services.crews,
    poller: services.poller,
    presets: services.presets,
    tree: parts.tree,
    treeView: parts.treeView,
    /** The demo, the reviews and the run view host load with the commands (dist/commands.js) on first use. */
    get demo() {
      return parts.commands.demo;
    },
    get reviews() {
      return parts.commands.reviews;
    },
    /** The run panels as tests see them: what each sent, what its page reported. */
    get panels() {
      const probe = parts.commands.panelProbe;
      if (!probe) {
        throw new Error('the run panel probe exists only with CREW_RUNS_TEST_HOOKS=1');
      }
      return probe;
    },
    /** The open Chat with Flow panels: what each page last reported; `submitFromPage` types and presses Enter there. */
    flowChats: () => parts.commands.load().flowChats,
    batches: parts.batches,
    statusBar: parts.statusBar,
    /** The numeric settings as this window reads them (its poller took them at activation), clamped. */
    settings: parts.settings,
    logUri: services.context.logUri,
    globalStorageUri: services.context.globalStorageUri,
    /** Adds a crew with its token, without asking: the only way in with a token that is not typed (no command takes one). */
    /** Through the commands' bundle (loaded on first use). */
    addCrew: (args: AddCrewArguments) => parts.commands.load().addCrewDirectly(args),
    /**
     * What the commands never do without asking the user (a command link or another extension can run them), for
     * tests that need no question: kick off without the review, stop without the confirmation. Cancel, remove and
     * export batches without asking: `batches.unprompted`.
     */
    kickOff: (args: KickOffArguments) => parts.commands.load().kickOffWithoutReview(args),
    stopRun: (runId: string) => parts.commands.load().stopRunWithoutAsking(runId),
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
      signInWithToken: async (token: string, organizationId?: string) => {
        const baseUrl = services.platform.account.baseUrl();
        if (!baseUrl) {
          throw new Error('The platform URL setting is not usable.');
        }
        await services.platform.account.save({ baseUrl, token, organizationId });
      },
      signOut: () => services.platform.auth.removeSession(),
    },
    /** The @crews request handler as registered (the chat view needs a language model to call it). */
    chatHandler: () => import('./chat/chatImpl').then((m) => m.createParticipantHandler(services, m.chatKit)),
  };
}

export type CrewRunsTestApi = ReturnType<typeof createTestApi>;
