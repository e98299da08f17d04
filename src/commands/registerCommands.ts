// Every command the manifest contributes, registered in one place; each family lives in its own file.
import type * as vscode from 'vscode';
import { registerPlatformCommands } from '../platform/platformCommands';
import { type FlowChatInspection, registerFlowChat } from '../flowChat/chatPanel';
import type { Services } from '../services';
import type { FeedbackReviews } from '../views/feedbackReview';
import type { RunOutputDocuments } from '../views/outputDocuments';
import type { RunPanelManager } from '../views/runPanel';
import type { BatchFeature } from './batches/batchFeature';
import { registerBatchCommands } from './batches/batchCommands';
import { registerBatchResultsCommands } from './batches/batchResultsCommands';
import { addCrewDirectly, registerCrewCommands } from './crewCommands';
import type { DemoCrews } from './demoCommands';
import { registerFeedbackCommands } from './feedbackCommands';
import { registerKickoffCommands } from './kickoff/kickoffCommands';
import { pickCrew } from './pickCrew';
import { registerRunCommands } from './runCommands';
import { registerRunViewCommands } from './runViewCommands';
import { registerStopCommands } from './stopCommands';

/** What the commands act on besides the services: the run views, documents, batches and the demo crews. */
export interface CommandTargets {
  panels: RunPanelManager;
  reviews: FeedbackReviews;
  documents: RunOutputDocuments;
  batches: BatchFeature;
  demo: DemoCrews;
  /** Tests only: given the chats' inspection. */
  inspectChats?: (inspection: FlowChatInspection) => void;
  /** The chat session a row of the crews tree stands for (Forget Chat acts only on the tree's own rows). */
  treeSession?: (arg: unknown) => { crewUrl: string; sessionId: string } | undefined;
}

export function registerCommands(services: Services, targets: CommandTargets): vscode.Disposable[] {
  const { panels, reviews, documents, batches, demo, inspectChats, treeSession } = targets;
  return [
    ...registerCrewCommands(services),
    ...registerKickoffCommands(services),
    ...registerRunCommands(services),
    ...registerFeedbackCommands(services, reviews, panels),
    ...registerRunViewCommands(services, panels, documents),
    ...registerStopCommands(services, panels),
    ...registerBatchCommands(services, batches),
    ...registerBatchResultsCommands(services, batches.store, batches.panels),
    ...registerPlatformCommands(services, { addCrew: (args) => addCrewDirectly(services, args), pickCrew }),
    ...demo.register(),
    ...registerFlowChat(services, () => services.runs.get(panels.activeRunId() ?? '')?.crewUrl, inspectChats, treeSession),
  ];
}
