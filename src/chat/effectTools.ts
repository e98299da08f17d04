// The two tools that act, kickoff and feedback, bound to what the user confirmed: prepareInvocation
// resolves the crew or run once and always returns a confirmation (also "nothing will be sent", so no
// call acts unconfirmed when a poll lands between prepare and invoke); invoke acts only on that plan and
// never looks the crew or run up again. Pure (@vscode/l10n, no `vscode`): unit-tested in plain Node.
import * as l10n from '@vscode/l10n';
import { type Inputs, isInputs } from '../api/inputValues';
import type { Crew } from '../crews/crewConfig';
import type { RunRecord } from '../runTracking/model';
import { oneLine } from '../util/inertText';
import { escapeMarkdown } from '../util/markdownText';
import { feedbackConfirmation, kickoffConfirmation, nothingToSendConfirmation, type Confirmation } from './confirmations';
import type { CrewActions, KickoffOutcome } from './crewActions';
import { TOOL } from './toolNames';
import { ambiguousCrewText, idText, problemFenced, unknownCrewText } from './toolResults';

export type ToolInput = Record<string, unknown>;

/** A non-blank string input. */
export const str = (input: ToolInput, key: string): string | undefined => (typeof input[key] === 'string' && (input[key] as string).trim() ? (input[key] as string) : undefined);

export interface Prepared<P> {
  plan: P;
  /** Markdown: anything from a crew or the model in it is escaped. */
  invocationMessage: string;
  confirmation: Confirmation;
}

/** Nothing will be sent; `text` tells the model why. */
export type Refusal = { kind: 'refuse'; text: string };
export type KickoffPlan = { kind: 'send'; crew: Crew; values: Inputs } | Refusal;
export type FeedbackPlan = { kind: 'send'; run: RunRecord; approve: boolean; feedback: string; taskId: string; modelTaskId?: string } | Refusal;

type Actions = Pick<CrewActions, 'findCrew' | 'findRun' | 'readDetails' | 'feedbackTaskId' | 'kickOff' | 'giveFeedback'>;

/** Input values as the model sent them, any JSON value each (a crew may take objects and lists), within the limits. */
function inputValues(input: ToolInput): Inputs | undefined {
  const raw = input.inputs ?? {};
  return isInputs(raw) ? raw : undefined;
}

function refused(text: string, reason: string, invocationMessage: string): Prepared<Refusal> {
  return { plan: { kind: 'refuse', text }, invocationMessage, confirmation: nothingToSendConfirmation(reason) };
}

export function prepareKickoff(actions: Actions, input: ToolInput): Prepared<KickoffPlan> {
  const reference = str(input, 'crew') ?? '';
  const lookup = actions.findCrew(reference);
  const looking = l10n.t('Looking for crew {0}…', escapeMarkdown(oneLine(reference, 80)));
  if (lookup.kind === 'unknown') {
    return refused(unknownCrewText(reference, lookup.known), l10n.t('There is no crew {0}.', oneLine(reference, 80)), looking);
  }
  if (lookup.kind === 'ambiguous') {
    return refused(ambiguousCrewText(reference, lookup.matches.map((c) => c.url)), l10n.t('Several crews are called {0}.', oneLine(reference, 80)), looking);
  }
  const values = inputValues(input);
  if (!values) {
    return refused('Nothing was sent: "inputs" must be an object of input names to JSON values, e.g. {"topic": "AI"}, each at most 1,000,000 characters and 64 levels deep.', l10n.t('The inputs are not a list of names and values.'), looking);
  }
  return {
    plan: { kind: 'send', crew: lookup.crew, values },
    invocationMessage: l10n.t('Kicking off {0}…', escapeMarkdown(oneLine(lookup.crew.name, 80))),
    confirmation: kickoffConfirmation(lookup.crew, values),
  };
}

/** The confirmed kickoff, if the crew is still the one confirmed; the text to return otherwise. */
export async function kickOffConfirmed(actions: Actions, plan: KickoffPlan | undefined): Promise<{ text: string } | { crew: Crew; outcome: KickoffOutcome }> {
  if (!plan) {
    return { text: notConfirmed(TOOL.kickoff) };
  }
  if (plan.kind === 'refuse') {
    return { text: plan.text };
  }
  const now = actions.findCrew(plan.crew.url);
  if (now.kind !== 'found' || now.crew.url !== plan.crew.url || now.crew.name !== plan.crew.name) {
    return { text: `Nothing was sent: crew ${JSON.stringify(oneLine(plan.crew.name, 80))} was removed or changed since the user confirmed. Call ${TOOL.listCrews}, then ${TOOL.kickoff} again.` };
  }
  return { crew: plan.crew, outcome: await actions.kickOff(plan.crew, plan.values) };
}

/** Resolves the run once, by its run id only, and says everything the answer will carry. */
export async function prepareFeedback(actions: Actions, input: ToolInput): Promise<Prepared<FeedbackPlan>> {
  const runId = str(input, 'runId');
  const looking = l10n.t('Looking for the run…');
  if (!runId) {
    return refused(
      `Nothing was sent: name the run by its runId (${TOOL.listRuns} with state "needsFeedback" lists the runs that wait), then ask the user again.`,
      l10n.t('No run id was given.'),
      looking,
    );
  }
  if (typeof input.approve !== 'boolean') {
    return refused('Nothing was sent: "approve" must be true (approve the task) or false (request changes, with feedback text).', l10n.t('It does not say whether to approve.'), looking);
  }
  const found = actions.findRun({ runId });
  if (found.kind !== 'found') {
    return refused(`Nothing was sent: ${found.message}`, found.message, looking);
  }
  const run = found.run;
  const label = oneLine(run.label, 60);
  if (!run.needsFeedback) {
    return refused(
      `Nothing was sent: ${JSON.stringify(label)} is not waiting for feedback (state: ${run.state}). Call ${TOOL.getRun} with runId ${run.id} (waitSeconds to wait for it), and only when it waits ask the user again.`,
      l10n.t('{0} is not waiting for feedback.', label),
      looking,
    );
  }
  const approve = input.approve;
  const feedback = str(input, 'feedback')?.trim() ?? '';
  if (!approve && !feedback) {
    return refused('Nothing was sent: requesting changes needs feedback text that says what should change.', l10n.t('Requesting changes needs feedback text.'), looking);
  }
  const modelTaskId = str(input, 'taskId')?.trim();
  const taskId = actions.feedbackTaskId(run, await actions.readDetails(run), modelTaskId);
  if (!taskId) {
    return refused(
      'Nothing was sent: the crew did not say which task waits, so its task ID is needed: the user finds it in the CrewAI dashboard (the paused task of this execution) or in the human-input webhook payload (task_id). Call again with taskId.',
      l10n.t('The waiting task’s ID is not known.'),
      looking,
    );
  }
  const shown = escapeMarkdown(label); // The invocation message renders Markdown.
  return {
    plan: { kind: 'send', run, approve, feedback, taskId, modelTaskId },
    invocationMessage: approve ? l10n.t('Approving {0}…', shown) : l10n.t('Sending feedback on {0}…', shown),
    confirmation: feedbackConfirmation(run, { approve, feedback, taskId, taskIdFromModel: modelTaskId !== undefined }),
  };
}

/** Sends the confirmed answer to the confirmed run only; refuses when the run changed since. */
export async function giveConfirmedFeedback(actions: Actions, plan: FeedbackPlan | undefined): Promise<string> {
  if (!plan) {
    return notConfirmed(TOOL.giveFeedback);
  }
  if (plan.kind === 'refuse') {
    return plan.text;
  }
  const { run } = plan;
  const outcome = await actions.giveFeedback(run, { approve: plan.approve, feedback: plan.feedback, taskId: plan.modelTaskId }, { kickoffId: run.kickoffId, taskId: plan.taskId });
  if (outcome.kind === 'problem') {
    if (outcome.mayHaveActed) {
      return `Crew Runs could not tell whether the crew received the feedback. Do not send it again: call ${TOOL.getRun} with runId ${run.id}; only if the run still waits for feedback, ask the user whether to send it again.\n${problemFenced(outcome.message)}`;
    }
    return `${outcome.sent ? 'The feedback was not accepted' : 'Nothing was sent'}:\n${problemFenced(outcome.message, 'Why')}`;
  }
  return `${plan.approve ? 'Approved' : 'Sent the feedback to'} ${JSON.stringify(oneLine(outcome.run.label, 80))} (run id ${outcome.run.id}, kickoff id ${idText(outcome.run.kickoffId)}); the run goes on and is checked until it ends. Call ${TOOL.getRun} to follow it.`;
}

function notConfirmed(tool: string): string {
  return `Nothing was sent: this call was not confirmed by the user. Call ${tool} again.`;
}

/** At most this many confirmations wait for their invoke (a cancelled one never gets it). */
const PLANS_MAX = 50;

/**
 * What prepareInvocation resolved, for the invoke of the same call. VS Code hands both the same input
 * and no call id (1.96), so the input is the key; a later prepare with the same input replaces the plan
 * (the user confirms the latest), and invoke takes it, so a plan acts once.
 */
export class ConfirmedPlans<P> {
  private readonly plans = new Map<string, P>();

  remember(input: ToolInput, plan: P): void {
    const key = keyOf(input);
    this.plans.delete(key);
    this.plans.set(key, plan);
    for (const oldest of this.plans.keys()) {
      if (this.plans.size <= PLANS_MAX) {
        break;
      }
      this.plans.delete(oldest);
    }
  }

  take(input: ToolInput): P | undefined {
    const key = keyOf(input);
    const plan = this.plans.get(key);
    this.plans.delete(key);
    return plan;
  }
}

/** JSON with sorted keys: the same input gives the same key whatever order its keys came in. */
function keyOf(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(keyOf).join(',')}]`;
  }
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${keyOf((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
