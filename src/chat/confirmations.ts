// What the user confirms before a tool acts: the crew or run, and every value that will be sent,
// each on one line, clipped. Pure (l10n injected): unit-tested in plain Node; tools.ts renders the
// lines with MarkdownString.appendText, so no value can format, link or run anything.
import { oneLine } from '../util/inertText';

/** Characters of one value shown in a confirmation. */
export const CONFIRM_VALUE_MAX = 300;

export interface Confirmation {
  title: string;
  intro: string;
  /** Label and value, both to be shown as plain text. */
  lines: [string, string][];
}

type Translate = (message: string, ...args: string[]) => string;

function valueLine(t: Translate, label: string, value: string): [string, string] {
  const shown = oneLine(value, CONFIRM_VALUE_MAX) || t('(empty)');
  return [oneLine(label, 80), value.length > CONFIRM_VALUE_MAX ? `${shown} ${t('({0} characters)', String(value.length))}` : shown];
}

export function kickoffConfirmation(t: Translate, crew: { name: string; url: string }, inputs: Record<string, string>): Confirmation {
  const name = oneLine(crew.name, 80);
  const names = Object.keys(inputs);
  return {
    title: t('Kick off {0}?', name),
    intro: names.length ? t('Crew Runs will start a run of {0} ({1}) with these inputs:', name, crew.url) : t('Crew Runs will start a run of {0} ({1}) with no inputs.', name, crew.url),
    lines: names.map((n) => valueLine(t, n, inputs[n])),
  };
}

export function feedbackConfirmation(t: Translate, run: { label: string; crewName: string }, approve: boolean, feedback: string): Confirmation {
  const label = oneLine(run.label, 60);
  const crew = oneLine(run.crewName, 80);
  return {
    title: approve ? t('Approve {0}?', label) : t('Request changes to {0}?', label),
    intro: approve
      ? t('Crew Runs will approve the waiting task of {0} on {1}, and the run goes on.', label, crew)
      : t('Crew Runs will send this feedback to {0} on {1}, and the crew redoes the task.', label, crew),
    lines: [valueLine(t, t('Feedback'), feedback)],
  };
}
