// The crew tools a language model can call (contributes.languageModelTools): input checks,
// confirmations for the tools with effects, and their results as text. Loaded on first use.
// Results (the text below and toolResults.ts) are read by the model: plain English on purpose.
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { ChatKit } from './chatKit';
import { escapeMarkdown } from '../util/markdownText';
import { MAX_OUTPUT_BUDGET } from './chatText';
import { oneLine } from '../util/inertText';
import { feedbackConfirmation, kickoffConfirmation, type Confirmation } from './confirmations';
import { crewActionsFor, type CrewLookup } from './crewActions';
import { TOOL, type ToolName } from './toolNames';
import { ambiguousCrewText, crewsText, inputsText, kickoffText, runsText, runText, unknownCrewText } from './toolResults';

/** The longest a tool waits for a run to end before answering with its state. */
export const MAX_WAIT_SECONDS = 300;

type Input = Record<string, unknown>;
type Tool = vscode.LanguageModelTool<Input>;

const text = (value: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
const str = (input: Input, key: string): string | undefined => (typeof input[key] === 'string' && (input[key] as string).trim() ? (input[key] as string) : undefined);
const num = (input: Input, key: string): number | undefined => (typeof input[key] === 'number' && Number.isFinite(input[key]) ? (input[key] as number) : undefined);
const waitMs = (input: Input) => Math.min(Math.max(0, num(input, 'waitSeconds') ?? 0), MAX_WAIT_SECONDS) * 1000;

/** Input values as the model sent them, when they are an object of texts (numbers and booleans become text). */
function inputValues(input: Input): Record<string, string> | undefined {
  const raw = input.inputs ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return undefined;
  }
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return undefined;
    }
    values[name] = String(value);
  }
  return values;
}

function crewProblem(reference: string, lookup: CrewLookup): string | undefined {
  if (lookup.kind === 'unknown') {
    return unknownCrewText(reference, lookup.known);
  }
  return lookup.kind === 'ambiguous' ? ambiguousCrewText(reference, lookup.matches.map((c) => c.url)) : undefined;
}

/** A confirmation as VS Code shows it: every label and value appended as text (escaped). */
function prepared(invocationMessage: string, confirmation: Confirmation): vscode.PreparedToolInvocation {
  const message = new vscode.MarkdownString();
  message.appendText(confirmation.intro);
  message.appendMarkdown('\n\n');
  for (const [label, value] of confirmation.lines) {
    message.appendMarkdown('- ');
    message.appendText(`${label}: ${value}`);
    message.appendMarkdown('\n');
  }
  return { invocationMessage, confirmationMessages: { title: confirmation.title, message } };
}

export function createTools(services: Services, kit: ChatKit): Record<ToolName, Tool> {
  const actions = crewActionsFor(services, kit);

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
        return text(inputs.ok ? inputsText(lookup.crew.name, inputs) : `Could not read the inputs: ${oneLine(inputs.problem, 500)}`);
      } finally {
        cancelled.dispose();
      }
    },
  };

  const kickoff: Tool = {
    prepareInvocation: (options) => {
      const reference = str(options.input, 'crew') ?? '';
      const lookup = actions.findCrew(reference);
      const values = inputValues(options.input);
      if (lookup.kind !== 'found' || !values) {
        return { invocationMessage: vscode.l10n.t('Looking for crew {0}…', escapeMarkdown(oneLine(reference, 80))) };
      }
      return prepared(vscode.l10n.t('Kicking off {0}…', escapeMarkdown(oneLine(lookup.crew.name, 80))), kickoffConfirmation(lookup.crew, values));
    },
    invoke: async (options, token) => {
      const reference = str(options.input, 'crew') ?? '';
      const lookup = actions.findCrew(reference);
      if (lookup.kind !== 'found') {
        return text(crewProblem(reference, lookup) ?? '');
      }
      const values = inputValues(options.input);
      if (!values) {
        return text('Nothing was sent: "inputs" must be an object of input names to text values, e.g. {"topic": "AI"}.');
      }
      const outcome = await actions.kickOff(lookup.crew, values);
      const wait = waitMs(options.input);
      if (outcome.kind !== 'started' || wait === 0) {
        return text(kickoffText(lookup.crew.name, outcome));
      }
      const run = (await actions.waitForRun(outcome.run.id, wait, token)) ?? outcome.run;
      return text(kickoffText(lookup.crew.name, outcome, { run, details: await actions.readDetails(run) }));
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
      return text(runText(run, await actions.readDetails(run), { offset: num(input, 'offset'), maxChars }));
    },
  };

  const listRuns: Tool = {
    invoke: async (options) => text(runsText(actions.listRuns({ crew: str(options.input, 'crew'), state: str(options.input, 'state'), limit: num(options.input, 'limit') }))),
  };

  const feedbackRun = (input: Input) => actions.findRun({ runId: str(input, 'runId'), kickoffId: str(input, 'kickoffId'), crew: str(input, 'crew') });

  const giveFeedback: Tool = {
    prepareInvocation: (options) => {
      const found = feedbackRun(options.input);
      if (found.kind !== 'found' || !found.run.needsFeedback) {
        return { invocationMessage: vscode.l10n.t('Looking for the run…') };
      }
      const approve = options.input.approve === true;
      const feedback = str(options.input, 'feedback') ?? '';
      const label = escapeMarkdown(oneLine(found.run.label, 60)); // The invocation message renders Markdown.
      return prepared(
        approve ? vscode.l10n.t('Approving {0}…', label) : vscode.l10n.t('Sending feedback on {0}…', label),
        feedbackConfirmation(found.run, approve, feedback),
      );
    },
    invoke: async (options) => {
      const input = options.input;
      const found = feedbackRun(input);
      if (found.kind !== 'found') {
        return text(`Nothing was sent: ${found.message}`);
      }
      if (typeof input.approve !== 'boolean') {
        return text('Nothing was sent: "approve" must be true (approve the task) or false (request changes, with feedback text).');
      }
      const outcome = await actions.giveFeedback(found.run, { approve: input.approve, feedback: str(input, 'feedback') ?? '', taskId: str(input, 'taskId') });
      if (outcome.kind === 'problem') {
        if (outcome.mayHaveActed) {
          return text(
            `Crew Runs could not tell whether the crew received the feedback (${oneLine(outcome.message, 600)}). Do not send it again: call ${TOOL.getRun} with runId ${found.run.id}; only if the run still waits for feedback, ask the user whether to send it again.`,
          );
        }
        return text(`${outcome.sent ? 'The feedback was not accepted' : 'Nothing was sent'}: ${oneLine(outcome.message, 600)}`);
      }
      return text(
        `${input.approve ? 'Approved' : 'Sent the feedback to'} ${JSON.stringify(oneLine(outcome.run.label, 80))} (run id ${outcome.run.id}, kickoff id ${outcome.run.kickoffId}); the run goes on and is checked until it ends. Call ${TOOL.getRun} to follow it.`,
      );
    },
  };

  return {
    [TOOL.listCrews]: listCrews,
    [TOOL.describeInputs]: describeInputs,
    [TOOL.kickoff]: kickoff,
    [TOOL.getRun]: getRun,
    [TOOL.listRuns]: listRuns,
    [TOOL.giveFeedback]: giveFeedback,
  };
}
