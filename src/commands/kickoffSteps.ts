// The input steps of Kick Off: one step per input, shaped by what the crew said about it (a
// description as the prompt, a default as the initial value, allowed values as picks, optional
// inputs skippable), and the steps that name inputs by hand for a crew that does not describe them.
import * as vscode from 'vscode';
import type { Crew } from '../crews/crewConfig';
import { inputsFromJson, isRequiredInput, MAX_INPUT_VALUE_LENGTH } from '../crews/inputPresets';
import type { InputSpec } from '../api/types';
import type { RunRecord } from '../runs/model';
import type { Services } from '../services';
import { askPick, askText } from '../views/quickInput';
import { showInfo, showStatusMessage } from '../views/notify';
import { inertLine, oneLine } from '../util/inertText';

export type Draft = Record<string, string>;

/** The inputs as sent: every listed input, except an empty optional one (a flow's `id`). */
export function inputsToSend(specs: InputSpec[], draft: Draft): Draft {
  return Object.fromEntries(specs.filter((spec) => isRequiredInput(spec) || draft[spec.name]).map((spec) => [spec.name, draft[spec.name] ?? '']));
}

const editInEditorButton: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('go-to-file'),
  tooltip: vscode.l10n.t('Edit in an editor (for long or multi-line text)'),
};

/** One step per input, with Back between them; returns the new draft or undefined when cancelled. */
export async function askInputs(crew: Crew, toAsk: InputSpec[], start: Draft, all: InputSpec[]): Promise<Draft | undefined> {
  const draft = { ...start };
  let index = 0;
  while (index < toAsk.length) {
    const spec = toAsk[index];
    // Steps count over all inputs, also when only some are asked again (after a 422, or from the review).
    const position = all.findIndex((other) => other.name === spec.name) + 1 || index + 1;
    const step = { crew, spec, position, total: all.length, canGoBack: index > 0 };
    const answer = spec.enum ? await askChoice(step, draft[spec.name]) : await askValue(step, draft);
    if (answer === undefined) {
      return undefined;
    }
    if (answer === 'back') {
      index--;
      continue;
    }
    if (answer === 'again') {
      continue;
    }
    draft[spec.name] = answer.value;
    index++;
  }
  return draft;
}

interface Step {
  crew: Crew;
  spec: InputSpec;
  position: number;
  total: number;
  canGoBack: boolean;
}

type StepAnswer = { value: string } | 'back' | 'again' | undefined;

function stepTitle(step: Step): string {
  return vscode.l10n.t('Kick Off {0}: {1}', step.crew.name, step.spec.name);
}

/** The prompt: the crew's description of the input, else its name; then where the user is and what Enter does. */
function promptFor(step: Step): string {
  const { spec } = step;
  if (spec.name === 'id' && spec.required === undefined && spec.description === undefined) {
    return vscode.l10n.t('Optional. For flows, "id" restores a saved state; leave it empty to start fresh.');
  }
  const type = spec.type && !/^str/i.test(spec.type) ? ` [${spec.type}]` : '';
  const about = (spec.description ?? vscode.l10n.t('Value of "{0}"', spec.name)) + type;
  return isRequiredInput(spec)
    ? vscode.l10n.t('{0} ({1} of {2}). Enter to continue.', about, String(step.position), String(step.total))
    : vscode.l10n.t('{0} ({1} of {2}). Optional: leave it empty to leave it out.', about, String(step.position), String(step.total));
}

async function askValue(step: Step, draft: Draft): Promise<StepAnswer> {
  const { spec } = step;
  const name = spec.name;
  const optional = !isRequiredInput(spec);
  const current = draft[name] ?? '';
  const multiLine = current.includes('\n');
  const shown = multiLine ? oneLine(current, 200) : current || (spec.default ?? '');
  const answer = await askText({
    title: stepTitle(step),
    step: step.position,
    totalSteps: step.total + 1,
    value: shown,
    // VS Code shows a validation message instead of the prompt: the crew's description comes first,
    // "required" once the user edits or presses Enter.
    quietUntilEdited: spec.description !== undefined && !multiLine,
    prompt: multiLine
      ? vscode.l10n.t('This value has several lines; press Enter to keep it, or use the editor button to change it.')
      : promptFor(step),
    canGoBack: step.canGoBack,
    buttons: [editInEditorButton],
    validate: (value) => {
      if (multiLine && value === shown) {
        return undefined;
      }
      if (!optional && !value.trim()) {
        return vscode.l10n.t('"{0}" is required.', name);
      }
      if (value.length > MAX_INPUT_VALUE_LENGTH) {
        return vscode.l10n.t('That value is too long.');
      }
      return undefined;
    },
  });
  switch (answer.kind) {
    case 'cancel':
      return undefined;
    case 'back':
      return 'back';
    case 'button': {
      const edited = await editInEditor(name, multiLine && answer.value === shown ? current : answer.value);
      if (edited !== undefined) {
        draft[name] = edited;
      }
      return 'again';
    }
    case 'value':
      return { value: multiLine && answer.value === shown ? current : answer.value };
  }
}

/** An input with allowed values: pick one (or, when optional, none). */
async function askChoice(step: Step, current: string | undefined): Promise<StepAnswer> {
  const { spec } = step;
  type Item = vscode.QuickPickItem & { value: string };
  const items: Item[] = (spec.enum ?? []).map((choice) => ({
    label: inertLine(choice),
    description: choice === spec.default ? vscode.l10n.t('default') : undefined,
    value: choice,
  }));
  if (!isRequiredInput(spec)) {
    items.push({ label: `$(circle-slash) ${vscode.l10n.t('Leave empty')}`, value: '' });
  }
  const wanted = current || spec.default;
  const answer = await askPick({
    title: stepTitle(step),
    step: step.position,
    totalSteps: step.total + 1,
    placeholder: promptFor(step),
    items,
    activeItem: items.find((item) => item.value === wanted),
    canGoBack: step.canGoBack,
  });
  if (answer.kind === 'back') {
    return 'back';
  }
  return answer.kind === 'value' ? { value: answer.value.value } : undefined;
}

/** Opens the value in an untitled editor; the text of that editor becomes the value when the user says so. */
async function editInEditor(name: string, value: string): Promise<string | undefined> {
  const document = await vscode.workspace.openTextDocument({ content: value, language: 'markdown' });
  await vscode.window.showTextDocument(document, { preview: false });
  const use = vscode.l10n.t('Use This Text');
  const choice = await showInfo(
    vscode.l10n.t('Edit the value of "{0}" in the editor, then choose Use This Text.', name),
    use,
    vscode.l10n.t('Discard'),
  );
  const text = document.getText();
  if (vscode.window.activeTextEditor?.document === document) {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }
  // Only Discard drops the text: a notification closed without a choice must not lose what was typed.
  return choice === use || (choice === undefined && text !== value) ? text : undefined;
}

/** For a crew that does not describe its inputs: the name of one more input. */
export async function askInputName(crew: Crew, known: InputSpec[]): Promise<string | undefined> {
  const answer = await askText({
    title: vscode.l10n.t('Kick Off {0}: add an input', crew.name),
    prompt: vscode.l10n.t('The name of an input the crew expects (a {placeholder} in its prompts), e.g. topic.'),
    validate: (value) => {
      if (!value.trim()) {
        return vscode.l10n.t('Enter the input\'s name.');
      }
      return known.some((spec) => spec.name === value.trim()) ? vscode.l10n.t('"{0}" is already in the list.', value.trim()) : undefined;
    },
  });
  return answer.kind === 'value' ? answer.value.trim() : undefined;
}

/** For a crew that does not describe its inputs: every input at once, as a JSON object. */
export async function askInputsJson(crew: Crew, draft: Draft): Promise<Draft | undefined> {
  const answer = await askText({
    title: vscode.l10n.t('Kick Off {0}: inputs as JSON', crew.name),
    value: Object.keys(draft).length > 0 ? JSON.stringify(draft) : '',
    prompt: vscode.l10n.t('An object of input names to text values, e.g. {"topic": "AI"}.'),
    validate: (value) => {
      if (!value.trim()) {
        return undefined;
      }
      const parsed = inputsFromJson(value);
      return parsed.ok ? undefined : parsed.reason === 'notJson' ? vscode.l10n.t('That is not valid JSON.') : vscode.l10n.t('The JSON must be an object of input names to text values, e.g. {"topic": "AI"}.');
    },
  });
  if (answer.kind !== 'value' || !answer.value.trim()) {
    return undefined;
  }
  const parsed = inputsFromJson(answer.value);
  return parsed.ok ? parsed.inputs : undefined;
}

/** A run's inputs live in its file, not the shared index. */
export async function inputsOf(services: Services, run: RunRecord): Promise<Draft> {
  return (await services.runs.readDetails(run.id)).inputs ?? {};
}

/** Saves the inputs as a named preset of the crew (a preset with the same name is replaced). */
export async function savePreset(services: Services, crewUrl: string, inputs: Draft): Promise<void> {
  const name = await vscode.window.showInputBox({
    title: vscode.l10n.t('Save Inputs as Preset'),
    prompt: vscode.l10n.t('A name for these inputs. A preset with the same name is replaced.'),
    validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('A preset needs a name.')),
  });
  if (name?.trim()) {
    await services.presets.savePreset(crewUrl, { name: name.trim(), inputs });
    showStatusMessage(vscode.l10n.t('Saved preset {0}', name.trim()), 3000);
  }
}
