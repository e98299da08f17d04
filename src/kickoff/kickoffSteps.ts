// The input steps of Kick Off: one step per input, shaped by what the crew said about it (a
// description as the prompt, a default as the initial value, allowed values as picks, optional
// inputs skippable), and the steps that name inputs by hand for a crew that does not describe them.
// Every step runs in the flow's one StepInput.
import * as vscode from 'vscode';
import type { Crew } from '../crews/crewConfig';
import { hasValue, inputLine, type InputValue, MAX_INPUT_VALUE_LENGTH, parseInputValue } from '../api/inputValues';
import { inputsFromJson, isRequiredInput } from './core/inputPresets';
import { type Draft, inputKind, stepOf, typedFromText, typeProblem } from './core/inputSteps';
import type * as JsonProblem from './jsonProblem';
import type { InputSpec } from '../api/types';
import type { StepInput } from '../ui/quickInput';
import { inertLine, oneLine } from '../util/inertText';
import { editInEditor, offerEditInEditor } from './valueEditor';

export type { Draft } from './core/inputSteps';

/** The input steps' buttons, made when the first step shows rather than when the bundle loads. */
let stepButtons: { editInEditor: vscode.QuickInputButton; toJson: vscode.QuickInputButton; toText: vscode.QuickInputButton } | undefined;
function buttons(): NonNullable<typeof stepButtons> {
  stepButtons ??= {
    editInEditor: { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: vscode.l10n.t('Edit in an editor (for long or multi-line text)') },
    toJson: { iconPath: new vscode.ThemeIcon('json'), tooltip: vscode.l10n.t('Send as JSON (an object, a list, a number…) (Ctrl+Alt+J)') },
    toText: { iconPath: new vscode.ThemeIcon('symbol-string'), tooltip: vscode.l10n.t('Send as text (Ctrl+Alt+J)') },
  };
  return stepButtons;
}

/**
 * Which inputs the wizard takes as JSON: the user's choice per input (the toggle), else those whose value is
 * not text. Shared by the steps so that Back and Edit keep the choice.
 */
export class JsonChoices {
  private readonly chosen: Map<string, boolean>;
  /** Switched in this kickoff: what is remembered for the crew once it starts. */
  private readonly switched = new Map<string, boolean>();

  /** `remembered`: the crew's choices from earlier kickoffs (InputPresets.jsonChoices). */
  constructor(
    private readonly draft: () => Draft,
    remembered: Readonly<Record<string, boolean>> = {},
  ) {
    this.chosen = new Map(Object.entries(remembered));
  }

  /** The choices made in this kickoff, to remember. */
  changes(): Record<string, boolean> {
    return Object.fromEntries(this.switched);
  }

  /**
   * Whether the input is taken as JSON: a value that is not text always is (switching to text makes it text);
   * else as chosen, else when the declared type is not text.
   */
  isJson(spec: InputSpec): boolean {
    if (typeof (this.draft()[spec.name] ?? '') !== 'string') {
      return true;
    }
    return this.chosen.get(spec.name) ?? ['json', 'number', 'boolean'].includes(inputKind(spec));
  }

  /** The user's own choice for the input, if they made one. */
  choice(name: string): boolean | undefined {
    return this.chosen.get(name);
  }

  set(name: string, json: boolean): void {
    this.chosen.set(name, json);
    this.switched.set(name, json);
  }
}

/** What asking ended with: the draft, or Escape with the draft as far as it got (the value in the box too). */
export type Asked = { kind: 'done'; draft: Draft } | { kind: 'cancel'; draft: Draft };

/**
 * One step per input, with Back between them. `steps` are all inputs asked one by one (the step counter);
 * asking begins at `toAsk[from]` (Back still reaches the ones before it).
 */
export async function askInputs(
  input: StepInput,
  crew: Crew,
  toAsk: InputSpec[],
  start: Draft,
  steps: InputSpec[],
  from = 0,
  json?: JsonChoices,
  problems: ReadonlyMap<string, string> = new Map(),
): Promise<Asked> {
  const draft = { ...start };
  const choices = json ?? new JsonChoices(() => draft);
  // Text typed as JSON that does not parse yet: shown again in the box (never lost, never sent).
  const unparsed = new Map<string, string>();
  let index = Math.min(Math.max(0, from), Math.max(0, toAsk.length - 1));
  while (index < toAsk.length) {
    const spec = toAsk[index];
    const step: Step = { crew, spec, ...stepOf(steps, spec.name), canGoBack: index > 0, problem: problems.get(spec.name) };
    const current = draft[spec.name];
    const kind = inputKind(spec);
    const answer =
      kind === 'boolean' && choices.choice(spec.name) === undefined && (typeof current === 'boolean' || current === undefined || current === '')
        ? await askYesNo(input, step, current)
        : spec.enum && !choices.isJson(spec)
          ? await askChoice(input, step, typeof current === 'string' ? current : inputLine(current))
          : choices.isJson(spec)
            ? await askJson(input, step, draft, choices, unparsed)
            : await askValue(input, step, draft, choices);
    if (answer.kind === 'cancel') {
      if (answer.value !== undefined) {
        draft[spec.name] = answer.value;
      }
      return { kind: 'cancel', draft };
    }
    if (answer.kind === 'back') {
      index--;
      continue;
    }
    if (answer.kind === 'again') {
      continue;
    }
    draft[spec.name] = answer.value;
    index++;
  }
  return { kind: 'done', draft };
}

interface Step {
  crew: Crew;
  spec: InputSpec;
  step: number;
  total: number;
  canGoBack: boolean;
  /** The crew's words on the value it refused, when the step is asked again for that. */
  problem?: string;
}

type StepAnswer = { kind: 'value'; value: InputValue } | { kind: 'back' } | { kind: 'again' } | { kind: 'cancel'; value?: InputValue };

function stepTitle(step: Step): string {
  return vscode.l10n.t('Kick Off {0}: {1}', step.crew.name, step.spec.name);
}

/** The prompt: the crew's description of the input, else its name. The title counts the steps. */
function promptFor(step: Step): string {
  const { spec } = step;
  if (step.problem !== undefined) {
    return vscode.l10n.t('{0} refused this value: {1}', step.crew.name, step.problem);
  }
  if (spec.name === 'id' && spec.required === undefined && spec.description === undefined) {
    return vscode.l10n.t('Optional. For flows, "id" restores a saved state; leave it empty to start fresh.');
  }
  // A JSON step says "As JSON" itself; "[object]" would only read like a bug there.
  const type = spec.type && !/^str/i.test(spec.type) && inputKind(spec) !== 'json' ? ` [${spec.type}]` : '';
  const about = (spec.description ?? vscode.l10n.t('Value of "{0}"', spec.name)) + type;
  // What Enter does VS Code says under every input box ("Press 'Enter' to confirm…"): not said again here.
  if (!isRequiredInput(spec)) {
    return vscode.l10n.t('{0}. Optional: leave it empty to leave it out.', about);
  }
  return vscode.l10n.t('{0}.', about);
}

async function askValue(input: StepInput, step: Step, draft: Draft, choices: JsonChoices): Promise<StepAnswer> {
  const { spec } = step;
  const name = spec.name;
  const optional = !isRequiredInput(spec);
  const value = draft[name] ?? '';
  const current = typeof value === 'string' ? value : inputLine(value);
  const multiLine = current.includes('\n');
  const shown = multiLine ? oneLine(current, 200) : current || (spec.default ?? '');
  // The keybindings (and commands) for the editor and JSON buttons, while this step is open.
  const offer = offerEditInEditor(
    () => input.pressButton(buttons().editInEditor),
    () => input.pressButton(buttons().toJson),
  );
  const answer = await input
    .text({
      title: stepTitle(step),
      step: step.step,
      totalSteps: step.total,
      value: shown,
      // The prompt says what the input is; "required" only once the user empties the box or presses Enter.
      quietUntilEdited: true,
      prompt: multiLine
        ? vscode.l10n.t('This value has several lines; press Enter to keep it, or use the editor button to change it.')
        : promptFor(step),
      canGoBack: step.canGoBack,
      buttons: [buttons().editInEditor, buttons().toJson],
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
        // Sent as text, but the crew declared a number or true/false: what it will refuse is said here.
        const typed = typedFromText(spec, value);
        return typed === undefined ? undefined : typeProblem(spec, typed);
      },
    })
    .finally(() => offer.dispose());
  const kept = (value: string) => (multiLine && value === shown ? current : value);
  switch (answer.kind) {
    case 'cancel':
      return { kind: 'cancel', value: answer.value === undefined ? undefined : kept(answer.value) };
    case 'back':
      return answer;
    case 'button': {
      if (answer.button === buttons().toJson) {
        // The text as typed becomes the JSON to check: `42` is then the number 42, `{…}` an object.
        choices.set(name, true);
        const parsed = parseInputValue(name, kept(answer.value));
        draft[name] = parsed.ok ? parsed.value : kept(answer.value);
        return { kind: 'again' };
      }
      await input.hide();
      const edited = await editInEditor(name, kept(answer.value));
      draft[name] = edited ?? kept(answer.value);
      return { kind: 'again' };
    }
    case 'value':
      return { kind: 'value', value: kept(answer.value) };
  }
}

/**
 * An input taken as JSON: the box holds the value as one line of JSON and accepts only valid JSON (the error
 * says where); the editor button opens it indented in a JSON editor. Text that does not parse is kept.
 */
async function askJson(input: StepInput, step: Step, draft: Draft, choices: JsonChoices, unparsed: Map<string, string>): Promise<StepAnswer> {
  const { spec } = step;
  const name = spec.name;
  const optional = !isRequiredInput(spec);
  const value = draft[name];
  const number = inputKind(spec) === 'number';
  // Empty: the crew's default, else the skeleton of its schema (an object's fields, empty), to fill in.
  const initial = spec.default ?? (spec.skeleton !== undefined ? inputLine(spec.skeleton) : '');
  const shown = unparsed.get(name) ?? (hasValue(value) || typeof value !== 'string' ? inputLine(value) : initial);
  const offer = offerEditInEditor(
    () => input.pressButton(buttons().editInEditor),
    () => input.pressButton(buttons().toText),
  );
  const answer = await input
    .text({
      title: stepTitle(step),
      step: step.step,
      totalSteps: step.total,
      value: shown,
      quietUntilEdited: unparsed.get(name) === undefined,
      // A number's step speaks of numbers only; objects and lists are for the inputs that take them.
      prompt: number
        ? /^int/i.test(spec.type ?? '')
          ? vscode.l10n.t('{0} A whole number, e.g. 42.', promptFor(step))
          : vscode.l10n.t('{0} A number, e.g. 42 or 0.5.', promptFor(step))
        : vscode.l10n.t('{0} As JSON: an object, a list, a number, true or false, or "text" in quotes.', promptFor(step)),
      canGoBack: step.canGoBack,
      buttons: [buttons().editInEditor, buttons().toText],
      validate: (text) => {
        if (!text.trim()) {
          return optional ? undefined : vscode.l10n.t('"{0}" is required.', name);
        }
        const parsed = parseInputValue(name, text);
        if (parsed.ok) {
          return typeProblem(spec, parsed.value);
        }
        // Words typed where a number or true/false goes ("ten") are that type's problem, not JSON's.
        const typed = typedFromText(spec, text);
        if (typed !== undefined) {
          return typeProblem(spec, typed);
        }
        // The message takes the prompt's place: the example the crew gave stays in sight after it.
        return withExample(jsonProblemOf(name, text) ?? parsed.message, spec);
      },
    })
    .finally(() => offer.dispose());
  const keep = (text: string): InputValue => {
    const parsed = text.trim() ? parseInputValue(name, text) : undefined;
    if (parsed?.ok) {
      unparsed.delete(name);
      return parsed.value;
    }
    if (parsed) {
      unparsed.set(name, text);
    }
    return text.trim() ? draft[name] ?? '' : '';
  };
  switch (answer.kind) {
    case 'cancel':
      return { kind: 'cancel', value: answer.value === undefined ? undefined : keep(answer.value) };
    case 'back':
      return answer;
    case 'button': {
      if (answer.button === buttons().toText) {
        // The JSON text, as it reads, becomes the text sent.
        choices.set(name, false);
        unparsed.delete(name);
        const parsed = parseInputValue(name, answer.value);
        draft[name] = parsed.ok && typeof parsed.value === 'string' ? parsed.value : answer.value;
        return { kind: 'again' };
      }
      await input.hide();
      const parsed = parseInputValue(name, answer.value);
      const edited = await editInEditor(name, parsed.ok ? JSON.stringify(parsed.value, undefined, 2) : answer.value, 'json');
      if (edited !== undefined) {
        draft[name] = keep(edited);
      } else {
        draft[name] = keep(answer.value);
      }
      return { kind: 'again' };
    }
    case 'value':
      return { kind: 'value', value: keep(answer.value) };
  }
}

/** What a JSON text lacks: jsonc-parser loads with it, on the first JSON that does not parse (dist/jsonProblem.js). */
function jsonProblemOf(name: string, text: string): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./jsonProblem') as typeof JsonProblem).jsonProblem(name, text);
}

/** A JSON error followed by the crew's description of the input (its example), else the value's skeleton. */
function withExample(message: string, spec: InputSpec): string {
  if (spec.description) {
    return `${message} ${spec.description}`;
  }
  return spec.skeleton === undefined ? message : `${message} ${vscode.l10n.t('For example: {0}', inputLine(spec.skeleton))}`;
}

/** One step answered by a pick among values (yes/no, allowed values), the wanted one active. */
async function pickValue<T extends InputValue>(input: StepInput, step: Step, items: (vscode.QuickPickItem & { value: T })[], wanted: T | undefined): Promise<StepAnswer> {
  const answer = await input.choose({
    title: stepTitle(step),
    step: step.step,
    totalSteps: step.total,
    placeholder: promptFor(step),
    items,
    activeItem: items.find((item) => item.value === wanted),
    canGoBack: step.canGoBack,
  });
  switch (answer.kind) {
    case 'value':
      return { kind: 'value', value: answer.value.value };
    case 'back':
      return answer;
    default:
      return { kind: 'cancel' };
  }
}

/** A yes/no input (`boolean`): true or false (or, when optional, neither). */
async function askYesNo(input: StepInput, step: Step, current: InputValue | undefined): Promise<StepAnswer> {
  const { spec } = step;
  type Item = vscode.QuickPickItem & { value: InputValue };
  const items: Item[] = [
    { label: vscode.l10n.t('Yes'), description: 'true', value: true },
    { label: vscode.l10n.t('No'), description: 'false', value: false },
  ];
  if (!isRequiredInput(spec)) {
    items.push({ label: `$(circle-slash) ${vscode.l10n.t('Leave empty')}`, value: '' });
  }
  const wanted = typeof current === 'boolean' ? current : spec.default === undefined ? undefined : spec.default === 'true';
  return pickValue(input, step, items, wanted);
}

/** An input with allowed values: pick one (or, when optional, none). */
async function askChoice(input: StepInput, step: Step, current: string | undefined): Promise<StepAnswer> {
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
  return pickValue(input, step, items, wanted);
}

/** For a crew that does not describe its inputs: the name of one more input. */
export async function askInputName(input: StepInput, crew: Crew, known: InputSpec[]): Promise<string | undefined> {
  const answer = await input.text({
    title: vscode.l10n.t('Kick Off {0}: add an input', crew.name),
    prompt: vscode.l10n.t('The name of an input the crew expects (a {placeholder} in its prompts), e.g. topic.'),
    quietUntilEdited: true,
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
export async function askInputsJson(input: StepInput, crew: Crew, draft: Draft): Promise<Draft | undefined> {
  const answer = await input.text({
    title: vscode.l10n.t('Kick Off {0}: inputs as JSON', crew.name),
    value: Object.keys(draft).length > 0 ? JSON.stringify(draft) : '',
    prompt: vscode.l10n.t('An object of input names to values (text, numbers, true/false, lists, objects), e.g. {"topic": "AI", "count": 3}.'),
    validate: (value) => {
      if (!value.trim()) {
        return undefined;
      }
      const parsed = inputsFromJson(value);
      return parsed.ok
        ? undefined
        : parsed.reason === 'notJson'
          ? vscode.l10n.t('That is not valid JSON.')
          : parsed.reason === 'badValue'
            ? parsed.message
            : vscode.l10n.t('The JSON must be an object of input names to values, e.g. {"topic": "AI", "count": 3}.');
    },
  });
  if (answer.kind !== 'value' || !answer.value.trim()) {
    return undefined;
  }
  const parsed = inputsFromJson(answer.value);
  return parsed.ok ? parsed.inputs : undefined;
}
