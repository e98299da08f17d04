// The crew tools a language model can call (contributes.languageModelTools): input checks,
// confirmations for the tools with effects, and their results as text.
// Results (the text below and toolResults.ts) are read by the model: plain English on purpose.
import * as vscode from 'vscode';
import type { ChatServices } from './chatServices';
import { inspectChats, sessionApi, startSession } from '../flowChat/chatApi';
import { describeError } from '../ui/errorMessages';
import { MAX_OUTPUT_BUDGET } from './chatText';
import { crewActionsFor, type CrewLookup } from './crewActions';
import { deploymentToolsFor } from './deploymentTools';
import { ConfirmedPlans, giveConfirmedFeedback, kickOffConfirmed, prepareFeedback, prepareKickoff, str, type FeedbackPlan, type KickoffPlan, type Prepared } from './effectTools';
import { chatConfirmed, prepareChat, type ChatPlan, type ChatToolDeps } from './flowChatTool';
import { TOOL, type ToolName } from './toolNames';
import { confirmationMarkdown } from './confirmations';
import type * as TraceText from './traceText';
import { readTraceSettings } from '../runView/traceSettings';
import { ambiguousCrewText, crewsText, inputsProblemText, inputsText, kickoffText, runsText, runText, unknownCrewText } from './toolResults';

/** The longest a tool waits for a run to end before answering with its state. */
export const MAX_WAIT_SECONDS = 300;

type Input = Record<string, unknown>;
type Tool = vscode.LanguageModelTool<Input>;

const text = (value: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
const num = (input: Input, key: string): number | undefined => (typeof input[key] === 'number' && Number.isFinite(input[key]) ? (input[key] as number) : undefined);
const waitMs = (input: Input) => Math.min(Math.max(0, num(input, 'waitSeconds') ?? 0), MAX_WAIT_SECONDS) * 1000;

function crewProblem(reference: string, lookup: CrewLookup): string | undefined {
  if (lookup.kind === 'unknown') {
    return unknownCrewText(reference, lookup.known);
  }
  return lookup.kind === 'ambiguous' ? ambiguousCrewText(reference, lookup.matches.map((c) => c.url)) : undefined;
}

/** A confirmation as VS Code shows it: every label and value as text (confirmationMarkdown). */
function prepared({ invocationMessage, confirmation }: Prepared<unknown>): vscode.PreparedToolInvocation {
  return { invocationMessage, confirmationMessages: { title: confirmation.title, message: new vscode.MarkdownString(confirmationMarkdown(confirmation)) } };
}

export function createTools(services: ChatServices): Record<ToolName, Tool> {
  const actions = crewActionsFor(services);

  const listCrews: Tool = {
    invoke: async () => text(crewsText(await actions.listCrews(), services.crews.hiddenWorkspaceCrewCount)),
  };

  const describeInputs: Tool = {
    invoke: async (options, token) => {
      const reference = str(options.input, 'crew') ?? '';
      const lookup = actions.findCrew(reference);
      if (lookup.kind !== 'found') {
        return text(crewProblem(reference, lookup) ?? '');
      }
      const abort = new AbortController();
      const cancelled = token.onCancellationRequested(() => abort.abort());
      try {
        const inputs = await actions.readInputs(lookup.crew, abort.signal);
        return text(inputs.ok ? inputsText(lookup.crew.name, inputs) : inputsProblemText(inputs.problem));
      } finally {
        cancelled.dispose();
      }
    },
  };

  // Kickoff and feedback act only on what their confirmation showed (effectTools.ts).
  const kickoffPlans = new ConfirmedPlans<KickoffPlan>();
  const feedbackPlans = new ConfirmedPlans<FeedbackPlan>();

  const kickoff: Tool = {
    prepareInvocation: (options) => {
      const plan = prepareKickoff(actions, options.input);
      kickoffPlans.remember(options.input, plan.plan);
      return prepared(plan);
    },
    invoke: async (options, token) => {
      const confirmed = await kickOffConfirmed(actions, kickoffPlans.take(options.input));
      if ('text' in confirmed) {
        return text(confirmed.text);
      }
      const { crew, outcome } = confirmed;
      const wait = waitMs(options.input);
      if (outcome.kind !== 'started' || wait === 0) {
        return text(kickoffText(crew.name, outcome));
      }
      const run = (await actions.waitForRun(outcome.run.id, wait, token)) ?? outcome.run;
      return text(kickoffText(crew.name, outcome, { run, details: await actions.readDetails(run) }));
    },
  };

  const getRun: Tool = {
    invoke: async (options, token) => {
      const input = options.input;
      const found = actions.findRun({ runId: str(input, 'runId'), kickoffId: str(input, 'kickoffId'), crew: str(input, 'crew') });
      if (found.kind !== 'found') {
        return text(found.message);
      }
      const wait = waitMs(input);
      const run = (wait > 0 ? await actions.waitForRun(found.run.id, wait, token) : undefined) ?? actions.current(found.run);
      const maxChars = Math.min(num(input, 'maxChars') ?? 4000, MAX_OUTPUT_BUDGET);
      const details = await actions.readDetails(run);
      const settings = readTraceSettings();
      // The trace's text loads with the first read (its own bundle, esbuild.js).
      const trace = (require('./traceText') as typeof TraceText).traceSummaryText(run, details, await actions.readEvents(run), settings.prices, settings.modelFor({ url: run.crewUrl, name: run.crewName }));
      return text(runText(run, details, { offset: num(input, 'offset'), maxChars, trace }));
    },
  };

  const listRuns: Tool = {
    invoke: async (options) => text(runsText(actions.listRuns({ crew: str(options.input, 'crew'), state: str(options.input, 'state'), limit: num(options.input, 'limit') }))),
  };

  const giveFeedback: Tool = {
    prepareInvocation: async (options) => {
      const plan = await prepareFeedback(actions, options.input);
      feedbackPlans.remember(options.input, plan.plan);
      return prepared(plan);
    },
    invoke: async (options) => text(await giveConfirmedFeedback(actions, feedbackPlans.take(options.input))),
  };

  // The organization's deployments (deploymentTools.ts): two read-only tools and a confirmed Redeploy.
  const deployments = deploymentToolsFor(services);
  const withAbort = async (token: vscode.CancellationToken, work: (signal: AbortSignal) => Promise<string>) => {
    const abort = new AbortController();
    const cancelled = token.onCancellationRequested(() => abort.abort());
    try {
      return text(await work(abort.signal));
    } finally {
      cancelled.dispose();
    }
  };

  const listDeployments: Tool = {
    invoke: (_options, token) => withAbort(token, (signal) => deployments.listDeployments(signal)),
  };

  const deploymentLogs: Tool = {
    invoke: (options, token) => withAbort(token, (signal) => deployments.deploymentLogs(options.input, signal)),
  };

  const redeploy: Tool = {
    prepareInvocation: async (options) => prepared(await deployments.prepareRedeploy(options.input)),
    invoke: async (options) => text(await deployments.redeployConfirmed(options.input)),
  };

  // One message to a conversational flow (flowChatTool.ts), confirmed like kickoff.
  const chatPlans = new ConfirmedPlans<ChatPlan>();
  const chatDeps: ChatToolDeps = {
    findCrew: (reference) => actions.findCrew(reference),
    hasToken: (crewUrl) => services.crews.hasToken(crewUrl),
    chats: async (crew, signal) => {
      const chats = await inspectChats(services.client, crew.url, signal);
      services.chats.set(crew.url, chats);
      return chats;
    },
    startSession: (crew) => startSession(services.client, crew.url),
    turnApi: (crew, sessionId) => sessionApi(services.client, crew.url, crew.name, sessionId),
    sends: services.sends,
    describe: (error, crewName) => describeError(error, crewName),
    log: (line) => services.log.info(line),
    recordSession: (crew, sessionId, message) => services.chatSessions.record(crew.url, sessionId, message),
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      }),
  };

  const chatWithFlow: Tool = {
    prepareInvocation: async (options, token) => {
      const abort = new AbortController();
      const cancelled = token.onCancellationRequested(() => abort.abort());
      try {
        const plan = await prepareChat(chatDeps, options.input, abort.signal);
        chatPlans.remember(options.input, plan.plan);
        return prepared(plan);
      } finally {
        cancelled.dispose();
      }
    },
    invoke: async (options, token) => {
      const result = await chatConfirmed(chatDeps, chatPlans.take(options.input), token);
      return text(result);
    },
  };

  return {
    [TOOL.listCrews]: listCrews,
    [TOOL.describeInputs]: describeInputs,
    [TOOL.kickoff]: kickoff,
    [TOOL.getRun]: getRun,
    [TOOL.listRuns]: listRuns,
    [TOOL.giveFeedback]: giveFeedback,
    [TOOL.listDeployments]: listDeployments,
    [TOOL.deploymentLogs]: deploymentLogs,
    [TOOL.redeploy]: redeploy,
    [TOOL.chatWithFlow]: chatWithFlow,
  };
}
