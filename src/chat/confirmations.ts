// What the user confirms before a tool acts: the crew or run, and every value that will be sent,
// each on one line, clipped. Pure (@vscode/l10n): unit-tested in plain Node; confirmationMarkdown writes
// every line through util/markdownText.ts, so no value can format, link (of any scheme) or run anything.
import * as l10n from '@vscode/l10n';
import { type Inputs, inputLine } from '../api/inputValues';
import { oneLine } from '../util/inertText';
import { markdownLine, markdownText } from '../util/markdownText';
import { revealInvisibles, shownValue } from '../util/invisibleText';

/** Characters of one value shown in a confirmation. */
export const CONFIRM_VALUE_MAX = 300;

export interface Confirmation {
  title: string;
  intro: string;
  /** Label and value, both to be shown as plain text. */
  lines: [string, string][];
}

/** The message VS Code shows above Continue: the intro, then one list item per label and value, all as text. */
export function confirmationMarkdown(confirmation: Confirmation): string {
  return [markdownText(confirmation.intro), '', ...confirmation.lines.map(([label, value]) => `- ${markdownLine(`${label}: ${value}`)}`)].join('\n');
}

function valueLine(label: string, value: string): [string, string] {
  return [oneLine(revealInvisibles(label), 80), shownValue(value, CONFIRM_VALUE_MAX) || l10n.t('(empty)')];
}

export function kickoffConfirmation(crew: { name: string; url: string }, inputs: Inputs): Confirmation {
  const name = oneLine(crew.name, 80);
  const names = Object.keys(inputs);
  return {
    title: l10n.t('Kick off {0}?', name),
    intro: names.length ? l10n.t('Crew Runs will start a run of {0} ({1}) with these inputs:', name, crew.url) : l10n.t('Crew Runs will start a run of {0} ({1}) with no inputs.', name, crew.url),
    // A structured value as compact JSON: its structure reads on one line, cut like any long value.
    lines: names.map((n) => valueLine(n, inputLine(inputs[n]))),
  };
}

/** Everything the resume will carry: the run, its kickoff id, the task id (said when the model chose it) and the text. */
export function feedbackConfirmation(
  run: { id: string; label: string; crewName: string; kickoffId: string },
  answer: { approve: boolean; feedback: string; taskId: string; taskIdFromModel: boolean },
): Confirmation {
  const label = oneLine(run.label, 60);
  const crew = oneLine(run.crewName, 80);
  const taskId = valueLine(l10n.t('Task ID'), answer.taskId);
  return {
    title: answer.approve ? l10n.t('Approve {0}?', label) : l10n.t('Request changes to {0}?', label),
    intro: answer.approve
      ? l10n.t('Crew Runs will approve the waiting task of {0} on {1}, and the run goes on.', label, crew)
      : l10n.t('Crew Runs will send this feedback to {0} on {1}, and the crew redoes the task.', label, crew),
    lines: [
      valueLine(l10n.t('Run ID'), run.id),
      valueLine(l10n.t('Kickoff ID'), run.kickoffId),
      answer.taskIdFromModel ? [taskId[0], l10n.t('{0} (chosen by the model)', taskId[1])] : taskId,
      valueLine(l10n.t('Feedback'), answer.feedback),
    ],
  };
}

/** Still a confirmation when nothing will be sent, so that no call acts without one. */
export function nothingToSendConfirmation(reason: string): Confirmation {
  return { title: l10n.t('Nothing will be sent'), intro: l10n.t('{0} Crew Runs will send nothing, and tells the model why.', oneLine(reason, 300)), lines: [] };
}

/** What a redeploy rebuilds: the deployment, its organization and the live URL that restarts. */
export function redeployConfirmation(deployment: { name: string; uuid: string; publicUrl?: string; importedAs?: string }, platform: { baseUrl: string; organization?: string }): Confirmation {
  const name = oneLine(deployment.name, 80);
  return {
    title: l10n.t('Redeploy {0}?', name),
    intro: l10n.t('The platform rebuilds and restarts this live deployment; runs going on it may be cut off.'),
    lines: [
      valueLine(l10n.t('Deployment'), deployment.uuid),
      ...(deployment.publicUrl ? [valueLine(l10n.t('URL'), deployment.publicUrl)] : []),
      ...(deployment.importedAs ? [valueLine(l10n.t('Crew'), deployment.importedAs)] : []),
      valueLine(l10n.t('Platform'), platform.baseUrl),
      ...(platform.organization ? [valueLine(l10n.t('Organization'), platform.organization)] : []),
    ],
  };
}

/** One message to a conversational flow: the crew, its URL, the session (new or continued) and the message. */
export function chatConfirmation(crew: { name: string; url: string }, sessionId: string | undefined, message: string): Confirmation {
  const name = oneLine(crew.name, 80);
  return {
    title: l10n.t('Send a message to {0}?', name),
    intro: l10n.t('Crew Runs will send this message to the conversational flow {0} ({1}) and hand its answer to the model.', name, crew.url),
    lines: [valueLine(l10n.t('Session'), sessionId ?? l10n.t('a new session')), valueLine(l10n.t('Message'), message)],
  };
}
