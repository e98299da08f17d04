// Every command the manifest contributes, registered in one place; each family lives in its own file.
import type * as vscode from 'vscode';
import { registerCrewCommands } from './crews/crewCommands';
import type { DemoCrews } from './crews/demoCommands';
import { registerPlatformCommands } from './platform/platformCommands';
import { registerTriggerKickoff } from './platform/triggerCommand';
import { registerRunCommands } from './runs/runCommands';
import { registerStopCommands } from './runs/stopCommands';
import type { RunOutputDocuments } from './runView/outputDocuments';
import type { RunPanelManager } from './runView/runPanel';
import { registerRunViewCommands } from './runView/runViewCommands';
import { registerFeedbackCommands } from './feedback/feedbackCommands';
import type { FeedbackReviews } from './feedback/feedbackReview';
import { registerKickoffCommands } from './kickoff/kickoffCommands';
import { kickOffInteractively } from './kickoff/kickoffWizard';
import { editInEditor } from './kickoff/valueEditor';
import { registerBatchCommands } from './batches/batchCommands';
import type { BatchFeature } from './batches/batchFeature';
import { registerBatchResultsCommands } from './batches/batchResultsCommands';
import { type FlowChatInspection, registerFlowChat } from './flowChat/chatCommands';
import type { AppServices } from './appServices';
import { StepInput } from './ui/quickInput';

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

export function registerCommands(services: AppServices, targets: CommandTargets): vscode.Disposable[] {
  const { panels, reviews, documents, batches, demo, inspectChats, treeSession } = targets;
  return [
    ...registerCrewCommands(services),
    ...registerKickoffCommands(services, panels),
    ...registerRunCommands(services),
    ...registerFeedbackCommands(services, reviews, panels),
    ...registerRunViewCommands(services, panels, documents),
    ...registerStopCommands(services, panels),
    ...registerBatchCommands(services, batches),
    ...registerBatchResultsCommands(services, batches.store, batches.panels),
    ...registerPlatformCommands(services),
    // The platform's trigger payloads, kicked off through the wizard's review.
    registerTriggerKickoff(services, { kickOff: (crew, draft, extra) => kickOffInteractively(services, crew, draft, extra), editJson: (name, text) => editInEditor(name, text, 'json'), newInput: () => new StepInput() }),
    ...demo.register(),
    ...registerFlowChat(services, () => services.runs.get(panels.activeRunId() ?? '')?.crewUrl, inspectChats, treeSession),
  ];
}
