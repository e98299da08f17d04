import type * as vscode from 'vscode';
import type { Services } from './services';
import { chatKit } from './chat/chatKit';
import type { DemoCrews } from './commands/demoCommands';
import type { CrewsTreeNode, CrewsTreeProvider } from './views/crewsTree';
import type { RunReporter } from './views/runReporter';
import type { FeedbackReviews } from './views/feedbackReview';
import type { RunPanelManager } from './views/runPanel';
import { RunPanelProbe } from './views/runPanelProbe';
import type { BatchFeature } from './commands/batchFeature';
import { type AddCrewArguments, addCrewDirectly } from './commands/crewCommands';
import type { CrewRunsNumbers } from './util/crewRunsSettings';
import type { RunsStatusBar } from './views/statusBar';

/**
 * What activate() returns when CREW_RUNS_TEST_HOOKS=1 (integration tests only). It gives the
 * models, never a token: the token store is deliberately not part of it.
 */
export function createTestApi(services: Services, parts: { tree: CrewsTreeProvider; treeView: vscode.TreeView<CrewsTreeNode>; demo: DemoCrews; reporter: RunReporter; reviews: FeedbackReviews; panels: RunPanelManager; settings: () => CrewRunsNumbers; batches: BatchFeature; statusBar: RunsStatusBar }) {
  return {
    runs: services.runs,
    crews: services.crews,
    poller: services.poller,
    presets: services.presets,
    tree: parts.tree,
    treeView: parts.treeView,
    demo: parts.demo,
    reviews: parts.reviews,
    /** The run panels as tests see them: what each sent, what its page reported (its pages report only because this exists). */
    panels: new RunPanelProbe(parts.panels),
    batches: parts.batches,
    statusBar: parts.statusBar,
    /** The numeric settings as this window reads them (its poller took them at activation), clamped. */
    settings: parts.settings,
    logUri: services.context.logUri,
    globalStorageUri: services.context.globalStorageUri,
    /** Adds a crew with its token, without asking: the only way in with a token that is not typed (no command takes one). */
    addCrew: (args: AddCrewArguments) => addCrewDirectly(services, args),
    /** The @crews request handler as registered (the chat view needs a language model to call it). */
    chatHandler: () => import('./chat/chatImpl').then((m) => m.createParticipantHandler(services, chatKit)),
  };
}

export type CrewRunsTestApi = ReturnType<typeof createTestApi>;
