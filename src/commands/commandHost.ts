// The command implementations and the run view host, in a bundle of their own (dist/commands.js, see
// esbuild.js), loaded by lazyCommands.ts on the first command or restored run view. Here they register
// as they always did; activation only registered their ids.
import type * as vscode from 'vscode';
import type { Services } from '../services';
import { FeedbackReviews } from '../views/feedbackReview';
import { RunOutputDocuments } from '../views/outputDocuments';
import { RunPanelManager } from '../views/runPanel';
import { RunPanelProbe } from '../views/runPanelProbe';
import { type AddCrewArguments, addCrewDirectly, registerCrewCommands } from './crewCommands';
import { DemoCrews } from './demoCommands';
import { pickCrew } from './pickCrew';
import { offerEnvironmentImport } from './environmentImport';
import { registerFeedbackCommands } from './feedbackCommands';
import { type KickOffArguments, kickOffWithoutReview, registerKickoffCommands } from './kickoffCommands';
import { registerRunCommands } from './runCommands';
import { registerRunViewCommands } from './runViewCommands';
import { registerStopCommands, type StopOutcome, stopRunWithoutAsking } from './stopCommands';
import { registerPlatformCommands } from '../platform/platformCommands';
import { openChats, registerFlowChat } from '../flowChat/chatPanel';


export interface CommandHost {
  panels: RunPanelManager;
  /** Test hooks only (CREW_RUNS_TEST_HOOKS): made with the panels, so every page of the session reports to it. */
  panelProbe?: RunPanelProbe;
  /** The review documents and the run output documents (their schemes are served through lazyCommands.ts). */
  reviews: FeedbackReviews;
  documents: RunOutputDocuments;
  demo: DemoCrews;
  /** The open Chat with Flow panels (the test API). */
  flowChats: typeof openChats;
  /** Offers once to import the crew of CREWAI_API_URL / CREWAI_BEARER_TOKEN (activation calls it only when both are set). */
  offerEnvironmentImport(): Promise<void>;
  /** Adds a crew with its token, no questions (the test API). */
  addCrewDirectly(args: AddCrewArguments): ReturnType<typeof addCrewDirectly>;
  /** What the commands always ask first, without asking (the test API): kick off unreviewed, stop unconfirmed. */
  kickOffWithoutReview(args: KickOffArguments): Promise<string | undefined>;
  stopRunWithoutAsking(runId: string): Promise<StopOutcome>;
  /** The commands, panels and documents; the demo is stopped by deactivate (it awaits that). */
  disposables: vscode.Disposable[];
}

/** `ready`: the run history is loaded (restored panels wait for it). */
export function createCommandHost(services: Services, ready: Promise<void>): CommandHost {
  const panels = new RunPanelManager({ extensionUri: services.context.extensionUri, runs: services.runs, log: services.log, ready });
  const reviews = new FeedbackReviews();
  const documents = new RunOutputDocuments(services.runs);
  const demo = new DemoCrews(services);
  return {
    panels,
    panelProbe: process.env.CREW_RUNS_TEST_HOOKS === '1' ? new RunPanelProbe(panels) : undefined,
    reviews,
    documents,
    demo,
    flowChats: openChats,
    offerEnvironmentImport: () => offerEnvironmentImport(services),
    addCrewDirectly: (args) => addCrewDirectly(services, args),
    kickOffWithoutReview: (args) => kickOffWithoutReview(services, args),
    stopRunWithoutAsking: (runId) => stopRunWithoutAsking(services, runId),
    disposables: [
      panels,
      reviews,
      documents,
      ...registerCrewCommands(services),
      ...registerKickoffCommands(services),
      ...registerRunCommands(services),
      ...registerFeedbackCommands(services, reviews, panels),
      ...registerRunViewCommands(services, panels, documents),
      ...registerStopCommands(services, panels),
      ...registerPlatformCommands(services, { addCrew: (args) => addCrewDirectly(services, args), pickCrew }),
      ...demo.register(),
      ...registerFlowChat(services),
    ],
  };
}
