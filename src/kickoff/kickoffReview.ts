// The first and last steps of Kick Off: where to start from (continue where the user left off, the last used
// inputs, a preset, new values, the JSON in the active editor) and the review (Kick Off, or change an input).
import * as vscode from 'vscode';
import { hasValue, inputLine } from '../api/inputValues';
import type { CrewInputs, InputSpec } from '../api/types';
import type { Crew } from '../crews/crewConfig';
import { inputsFromJson, isRequiredInput } from './core/inputPresets';
import { type Draft, inputsToSend, isFlowId, missingInputs } from './core/inputSteps';
import type { KickoffServices } from './kickoffServices';
import { showError } from '../ui/notify';
import type { StepInput } from '../ui/quickInput';
import { inertLine, oneLine } from '../util/inertText';
import { revealInvisibles, shownValue } from '../util/invisibleText';
import { savePreset } from './kickoffPresets';

/**
 * Where the draft comes from; `unfinished` when it is what the user left with Escape; `withTrigger`: a trigger's
 * payload, chosen by Kick Off with a Trigger Payload… (platform/triggerKickoff.ts).
 */
export type StartingPoint = { draft: Draft; unfinished?: boolean; withTrigger?: boolean };

export async function chooseStartingPoint(input: StepInput, services: KickoffServices, crew: Crew, inputs: CrewInputs): Promise<StartingPoint | undefined> {
  const names = inputs.described ? inputs.inputs.map((spec) => spec.name) : undefined;
  type Item = vscode.QuickPickItem & { draft?: Draft; fromEditor?: boolean; unfinished?: boolean; withTrigger?: boolean };
  const items: Item[] = [];
  const unfinished = services.presets.unfinished(crew.url);
  if (unfinished) {
    items.push({ label: `$(debug-continue) ${vscode.l10n.t('Continue where you left off')}`, description: summarise(unfinished, names), draft: unfinished, unfinished: true });
  }
  const last = services.presets.lastUsed(crew.url);
  if (last) {
    items.push({ label: `$(history) ${vscode.l10n.t('Last used inputs')}`, description: summarise(last, names), draft: last });
  }
  for (const preset of services.presets.presets(crew.url)) {
    items.push({ label: `$(bookmark) ${inertLine(preset.name)}`, description: summarise(preset.inputs, names), draft: preset.inputs });
  }
  items.push({ label: `$(edit) ${vscode.l10n.t('Enter new values')}`, draft: {} });
  // The editor active when Kick Off was asked for: the one the user means, whatever is active when they pick.
  const editorDocument = vscode.window.activeTextEditor?.document;
  const editorText = editorDocument?.getText();
  if (editorText && editorText.length < 5_000_000 && /^\s*\{/.test(editorText)) {
    items.push({ label: `$(json) ${vscode.l10n.t('From the JSON in the active editor')}`, fromEditor: true });
  }
  // Signed in to the platform: a trigger's payload, where this step shows anyway and for the crews imported from it.
  const platform = services.platform as KickoffServices['platform'] | undefined;
  const shows = names?.length !== 0 && items.length > 1;
  const withTrigger = (shows || platform?.imported.get(crew.url) !== undefined) && (await platform?.account.current().catch(() => undefined)) !== undefined;
  if (withTrigger) {
    items.push({ label: `$(zap) ${vscode.l10n.t('With a Trigger’s Payload…')}`, description: vscode.l10n.t('a sample from the platform, as crewai_trigger_payload'), withTrigger });
  } else if (!shows) {
    return { draft: {} };
  }
  for (;;) {
    const choice = await input.choose({
      title: vscode.l10n.t('Kick Off {0}', crew.name),
      placeholder: vscode.l10n.t('Start from… (values can be changed in the next steps)'),
      items,
    });
    if (choice.kind !== 'value') {
      return undefined;
    }
    if (choice.value.withTrigger) {
      return { draft: {}, withTrigger: true };
    }
    if (!choice.value.fromEditor) {
      return { draft: { ...choice.value.draft }, unfinished: choice.value.unfinished };
    }
    const parsed = inputsFromJson(editorDocument?.getText() ?? ''); // Its text now: fixed after an error, read again.
    if (parsed.ok) {
      return { draft: parsed.inputs };
    }
    // Closed while the error is said, then offered again (nothing chosen is lost).
    await input.hide();
    void showError(
      parsed.reason === 'notJson'
        ? vscode.l10n.t('The active editor does not hold valid JSON.')
        : parsed.reason === 'badValue'
          ? parsed.message
          : vscode.l10n.t('The JSON must be an object of input names to values, e.g. {"topic": "AI", "count": 3}.'),
    );
  }
}

/** The values of a starting point, for the crew's inputs (all of them when it does not describe them). */
function summarise(inputs: Draft, names: string[] | undefined): string {
  return (names ?? Object.keys(inputs))
    .filter((n) => hasValue(inputs[n]))
    .map((n) => `${inertLine(n)}: ${oneLine(inputLine(inputs[n]), 30)}`)
    .join(' · ');
}

/** `escaped`: Escape (the values are kept for next time), not the Cancel item. */
export type ReviewChoice = { kind: 'kickoff' } | { kind: 'edit'; name: string } | { kind: 'back' } | { kind: 'cancel'; escaped: boolean } | { kind: 'add' } | { kind: 'json' };

/**
 * The last step: Kick Off, or pick an input to change. `steps` are the inputs asked one by one: a flow's
 * `id` not among them is offered as "Add "id"". `undescribed` (the crew's words on why it lists no inputs)
 * adds the ways to name inputs by hand.
 */
export async function reviewStep(input: StepInput, services: KickoffServices, crew: Crew, specs: InputSpec[], steps: InputSpec[], draft: Draft, undescribed?: string): Promise<ReviewChoice> {
  for (;;) {
    type Item = vscode.QuickPickItem & { action: 'kickoff' | 'edit' | 'preset' | 'cancel' | 'add' | 'json'; name?: string };
    const missing = missingInputs(specs, draft);
    const left = specs.filter((spec) => isFlowId(spec) && !hasValue(draft[spec.name]) && !steps.includes(spec));
    const byHand: Item[] =
      undescribed === undefined
        ? []
        : [
            { label: vscode.l10n.t('This crew does not describe its inputs'), kind: vscode.QuickPickItemKind.Separator, action: 'add' },
            { label: `$(add) ${vscode.l10n.t('Add an Input…')}`, description: vscode.l10n.t('its name, then its value'), action: 'add' },
            { label: `$(json) ${vscode.l10n.t('Enter Inputs as JSON…')}`, description: '{"topic": "AI"}', action: 'json' },
          ];
    const items: Item[] = [
      missing.length
        ? { label: `$(warning) ${vscode.l10n.t('Fill in {0} first', inertLine(missing.join(', ')))}`, action: 'edit', name: missing[0] }
        : { label: `$(rocket) ${vscode.l10n.t('Kick Off')}`, description: inertLine(crew.name), action: 'kickoff' },
      { label: vscode.l10n.t('Inputs'), kind: vscode.QuickPickItemKind.Separator, action: 'edit' },
      ...specs
        .filter((spec) => !left.includes(spec))
        .map((spec) => ({
          label: `$(edit) ${inertLine(revealInvisibles(spec.name))}`,
          description: hasValue(draft[spec.name]) ? shownValue(inputLine(draft[spec.name]), 80) : isRequiredInput(spec) ? vscode.l10n.t('(empty)') : vscode.l10n.t('(empty, optional)'),
          action: 'edit' as const,
          name: spec.name,
        })),
      ...left.map((spec) => ({
        label: `$(add) ${vscode.l10n.t('Add "{0}"', inertLine(spec.name))}`,
        description: vscode.l10n.t('optional; for flows it restores a saved state, usually left out'),
        action: 'edit' as const,
        name: spec.name,
      })),
      ...byHand,
      { label: '', kind: vscode.QuickPickItemKind.Separator, action: 'cancel' },
      { label: `$(save) ${vscode.l10n.t('Save as Preset…')}`, action: 'preset' },
      { label: `$(close) ${vscode.l10n.t('Cancel')}`, action: 'cancel' },
    ];
    const choice = await input.choose({
      title: vscode.l10n.t('Kick Off {0}: review', crew.name),
      step: steps.length + 1,
      totalSteps: steps.length + 1,
      placeholder:
        undescribed === undefined
          ? vscode.l10n.t('Enter to kick off, or pick an input to change it')
          : inertLine(vscode.l10n.t('{0} does not describe its inputs ({1}): add them by name, or as JSON', crew.name, undescribed)),
      items,
      canGoBack: steps.length > 0,
      matchOnDescription: false,
    });
    if (choice.kind === 'back') {
      return { kind: 'back' };
    }
    if (choice.kind !== 'value' || choice.value.action === 'cancel') {
      return { kind: 'cancel', escaped: choice.kind !== 'value' };
    }
    switch (choice.value.action) {
      case 'preset':
        await input.hide();
        await savePreset(services, crew.url, inputsToSend(specs, draft));
        continue;
      case 'add':
      case 'json':
        return { kind: choice.value.action };
      case 'edit':
        if (choice.value.name) {
          return { kind: 'edit', name: choice.value.name };
        }
        break;
    }
    return { kind: 'kickoff' };
  }
}
