// What the user confirms before a tool acts: the crew or run, and every value that will be sent,
// each on one line, clipped. Pure (@vscode/l10n): unit-tested in plain Node; tools.ts renders the
// lines with MarkdownString.appendText, so no value can format, link or run anything.
import * as l10n from '@vscode/l10n';
import { oneLine } from '../util/inertText';

/** Characters of one value shown in a confirmation. */
export const CONFIRM_VALUE_MAX = 300;

export interface Confirmation {
  title: string;
  intro: string;
  /** Label and value, both to be shown as plain text. */
  lines: [string, string][];
}

function valueLine(label: string, value: string): [string, string] {
  const shown = oneLine(value, CONFIRM_VALUE_MAX) || l10n.t('(empty)');
  return [oneLine(label, 80), value.length > CONFIRM_VALUE_MAX ? `${shown} ${l10n.t('({0} characters)', String(value.length))}` : shown];
}

export function kickoffConfirmation(crew: { name: string; url: string }, inputs: Record<string, string>): Confirmation {
  const name = oneLine(crew.name, 80);
  const names = Object.keys(inputs);
  return {
    title: l10n.t('Kick off {0}?', name),
    intro: names.length ? l10n.t('Crew Runs will start a run of {0} ({1}) with these inputs:', name, crew.url) : l10n.t('Crew Runs will start a run of {0} ({1}) with no inputs.', name, crew.url),
    lines: names.map((n) => valueLine(n, inputs[n])),
  };
}

export function feedbackConfirmation(run: { label: string; crewName: string }, approve: boolean, feedback: string): Confirmation {
  const label = oneLine(run.label, 60);
  const crew = oneLine(run.crewName, 80);
  return {
    title: approve ? l10n.t('Approve {0}?', label) : l10n.t('Request changes to {0}?', label),
    intro: approve
      ? l10n.t('Crew Runs will approve the waiting task of {0} on {1}, and the run goes on.', label, crew)
      : l10n.t('Crew Runs will send this feedback to {0} on {1}, and the crew redoes the task.', label, crew),
    lines: [valueLine(l10n.t('Feedback'), feedback)],
  };
}
