import * as vscode from 'vscode';
import { CrewApiError } from '../api/errors';
import type { Crew } from '../crews/crewConfig';
import type { CrewInputs, InputSpec } from '../api/types';
import { inputsFromJson, isRequiredInput, isStringRecord, MAX_INPUT_VALUE_LENGTH } from '../crews/inputPresets';
import type { RunRecord } from '../runs/model';
import type { Services } from '../services';
import { describeError } from '../views/errorMessages';
import { askPick } from '../views/quickInput';
import { setTokenInteractively } from './crewCommands';
import { askInputName, askInputs, askInputsJson, type Draft, inputsOf, inputsToSend, savePreset } from './kickoffSteps';
import { sendKickoff, startRun, trackKickoffId } from './kickoffSend';
import { pickCrew } from './pickCrew';
import { runFromArgument } from './pickRun';
import { showError, showInfo } from '../views/notify';
import { inertLine, oneLine } from '../util/inertText';

/** Lets tests and scripts kick off without prompts: `{ crew: url, inputs }`. */
export interface KickOffArguments {
  crew: string;
  inputs: Record<string, string>;
}

export function registerKickoffCommands(services: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('crewRuns.kickOff', async (arg?: unknown) => {
      if (isKickOffArguments(arg)) {
        const crew = services.crews.get(arg.crew) ?? pickCrewByUrl(services, arg.crew);
        if (!crew) {
          void showError(vscode.l10n.t('No crew at {0}. Add it first.', arg.crew));
          return undefined;
        }
        return (await kickOffDirectly(services, crew, arg.inputs))?.id;
      }
      const crew = await pickCrew(services.crews, arg, vscode.l10n.t('Kick off which crew?'));
      return crew ? (await kickOffInteractively(services, crew))?.id : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.runAgain', async (arg?: unknown) => {
      const run = await runFromArgument(services, arg, vscode.l10n.t('Run which run again?'));
      const crew = run && crewOfRun(services, run);
      return crew && run ? (await kickOffDirectly(services, crew, await inputsOf(services, run)))?.id : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.runAgainWithEditedInputs', async (arg?: unknown) => {
      const run = await runFromArgument(services, arg, vscode.l10n.t('Run which run again?'));
      const crew = run && crewOfRun(services, run);
      return crew && run ? (await kickOffInteractively(services, crew, await inputsOf(services, run)))?.id : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.trackKickoffId', async (arg?: unknown) => {
      const crew = await pickCrew(services.crews, arg, vscode.l10n.t('Which crew started the run?'));
      return crew ? (await trackKickoffId(services, crew))?.id : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.saveInputsAsPreset', async (arg?: unknown) => {
      const run = await runFromArgument(services, arg, vscode.l10n.t('Save the inputs of which run?'));
      if (run) {
        await savePreset(services, run.crewUrl, await inputsOf(services, run));
      }
    }),
    vscode.commands.registerCommand('crewRuns.managePresets', async (arg?: unknown) => {
      const crew = await pickCrew(services.crews, arg, vscode.l10n.t('Manage the presets of which crew?'));
      if (crew) {
        await managePresets(services, crew);
      }
    }),
  ];
}

function pickCrewByUrl(services: Services, url: string): Crew | undefined {
  return services.crews.list().find((c) => c.url === url.replace(/\/+$/, ''));
}

function crewOfRun(services: Services, run: RunRecord): Crew | undefined {
  const crew = services.crews.get(run.crewUrl);
  if (!crew) {
    void showError(vscode.l10n.t('{0} is no longer in your crews; add it again to run it.', run.crewName));
  }
  return crew;
}

/** GET /inputs under progress; undefined (after telling the user) when it fails. */
async function fetchInputs(services: Services, crew: Crew): Promise<CrewInputs | undefined> {
  for (;;) {
    try {
      const inputs = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: inertLine(vscode.l10n.t('Asking {0} which inputs it needs…', crew.name)), cancellable: true },
        (_p, cancellation) => {
          const abort = new AbortController();
          cancellation.onCancellationRequested(() => abort.abort());
          return services.client.getInputs(crew.url, { signal: abort.signal });
        },
      );
      services.crews.setHealth(crew.url, 'ready');
      if (!inputs.described) {
        services.log.info(`${crew.name} does not describe its inputs (${inputs.reason}); asking for them by hand.`);
      }
      return inputs;
    } catch (error) {
      if (error instanceof Error && error.name === 'AbortError') {
        return undefined;
      }
      services.log.warn(`GET /inputs of ${crew.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      if (error instanceof CrewApiError && (error.kind === 'unauthorized' || error.kind === 'noToken')) {
        services.crews.setHealth(crew.url, error.kind === 'noToken' ? 'noToken' : 'tokenRejected');
        const setToken = vscode.l10n.t('Set Token…');
        if ((await showError(describeError(error, crew.name), setToken)) === setToken && (await setTokenInteractively(services, crew))) {
          continue;
        }
        return undefined;
      }
      services.crews.setHealth(crew.url, 'unreachable');
      const retry = vscode.l10n.t('Try Again');
      if ((await showError(describeError(error, crew.name), retry)) !== retry) {
        return undefined;
      }
    }
  }
}

/**
 * The full flow: starting point → one step per input (Back, edit in editor) → review → kickoff.
 * Every error path comes back to the review with the values typed so far. A crew that does not
 * describe its inputs gets them named by hand (one by one, or as JSON) from the review.
 */
async function kickOffInteractively(services: Services, crew: Crew, startFrom?: Draft): Promise<RunRecord | undefined> {
  const described = await fetchInputs(services, crew);
  if (!described) {
    return undefined;
  }
  const byHand = !described.described;
  let draft: Draft | undefined = startFrom ? { ...startFrom } : await chooseStartingPoint(services, crew, described);
  if (!draft) {
    return undefined;
  }
  // By hand, the inputs are those of the starting point; else inputs the draft carries that the
  // crew no longer lists are dropped, so the kickoff matches /inputs.
  let specs: InputSpec[] = described.described ? described.inputs : Object.keys(draft).map((name) => ({ name }));
  draft = Object.fromEntries(specs.map((spec) => [spec.name, draft?.[spec.name] ?? '']));
  // A complete starting point (last used, a preset, a run's inputs) goes straight to the review.
  let toAsk: InputSpec[] = specs.some((spec) => isRequiredInput(spec) && !draft?.[spec.name]?.trim()) ? specs : [];
  for (;;) {
    if (toAsk.length > 0) {
      const asked = await askInputs(crew, toAsk, draft, specs);
      if (!asked) {
        return undefined;
      }
      draft = asked;
      toAsk = [];
    }
    const review = await reviewStep(services, crew, specs, draft, byHand ? described.reason : undefined);
    switch (review.kind) {
      case 'cancel':
        return undefined;
      case 'edit':
        toAsk = specs.filter((spec) => spec.name === review.name);
        continue;
      case 'back':
        toAsk = specs.slice(-1);
        continue;
      case 'add': {
        const name = await askInputName(crew, specs);
        if (name !== undefined) {
          specs = [...specs, { name }];
          toAsk = specs.slice(-1);
        }
        continue;
      }
      case 'json': {
        const fromJson = await askInputsJson(crew, draft);
        if (fromJson !== undefined) {
          specs = [...specs, ...Object.keys(fromJson).filter((name) => !specs.some((spec) => spec.name === name)).map((name) => ({ name }))];
          draft = { ...draft, ...fromJson };
        }
        continue;
      }
    }
    const inputs = inputsToSend(specs, draft);
    const outcome = await sendKickoff(services, crew, inputs);
    if (outcome.kind === 'started') {
      return outcome.run;
    }
    if (outcome.kind === 'missing') {
      // Ask only for what the crew says is missing, adding names it did not list in /inputs.
      specs = [...specs, ...outcome.names.filter((n) => !specs.some((spec) => spec.name === n)).map((name) => ({ name, required: true }))];
      toAsk = specs.filter((spec) => outcome.names.includes(spec.name));
      continue;
    }
    if (outcome.kind === 'stop') {
      return undefined;
    }
    // 'review': back to the review step with everything kept.
  }
}

async function chooseStartingPoint(services: Services, crew: Crew, inputs: CrewInputs): Promise<Draft | undefined> {
  const names = inputs.described ? inputs.inputs.map((spec) => spec.name) : undefined;
  type Item = vscode.QuickPickItem & { draft?: Draft; fromEditor?: boolean };
  const items: Item[] = [];
  const last = services.presets.lastUsed(crew.url);
  if (last) {
    items.push({ label: `$(history) ${vscode.l10n.t('Last used inputs')}`, description: summarise(last, names), draft: last });
  }
  for (const preset of services.presets.presets(crew.url)) {
    items.push({ label: `$(bookmark) ${inertLine(preset.name)}`, description: summarise(preset.inputs, names), draft: preset.inputs });
  }
  items.push({ label: `$(edit) ${vscode.l10n.t('Enter new values')}`, draft: {} });
  const editorText = vscode.window.activeTextEditor?.document.getText();
  if (editorText && editorText.length < 5_000_000 && /^\s*\{/.test(editorText)) {
    items.push({ label: `$(json) ${vscode.l10n.t('From the JSON in the active editor')}`, fromEditor: true });
  }
  if (names?.length === 0 || items.length === 1) {
    return {};
  }
  const choice = await askPick({
    title: vscode.l10n.t('Kick Off {0}', crew.name),
    placeholder: vscode.l10n.t('Start from… (values can be changed in the next steps)'),
    items,
  });
  if (choice.kind !== 'value') {
    return undefined;
  }
  if (choice.value.fromEditor) {
    const parsed = inputsFromJson(vscode.window.activeTextEditor?.document.getText() ?? '');
    if (!parsed.ok) {
      void showError(
        parsed.reason === 'notJson'
          ? vscode.l10n.t('The active editor does not hold valid JSON.')
          : vscode.l10n.t('The JSON must be an object of input names to text values, e.g. {"topic": "AI"}.'),
      );
      return chooseStartingPoint(services, crew, inputs);
    }
    return parsed.inputs;
  }
  return choice.value.draft ? { ...choice.value.draft } : {};
}

/** The values of a starting point, for the crew's inputs (all of them when it does not describe them). */
function summarise(inputs: Draft, names: string[] | undefined): string {
  return (names ?? Object.keys(inputs))
    .filter((n) => inputs[n])
    .map((n) => `${inertLine(n)}: ${oneLine(inputs[n], 30)}`)
    .join(' · ');
}

type ReviewChoice =
  | { kind: 'kickoff' }
  | { kind: 'edit'; name: string }
  | { kind: 'back' }
  | { kind: 'cancel' }
  | { kind: 'add' }
  | { kind: 'json' };

/**
 * The last step: Kick Off, or pick an input to change. `undescribed` (the crew's words on why it lists no
 * inputs) adds the ways to name inputs by hand.
 */
async function reviewStep(services: Services, crew: Crew, specs: InputSpec[], draft: Draft, undescribed?: string): Promise<ReviewChoice> {
  for (;;) {
    type Item = vscode.QuickPickItem & { action: 'kickoff' | 'edit' | 'preset' | 'cancel' | 'add' | 'json'; name?: string };
    const missing = specs.filter((spec) => isRequiredInput(spec) && !draft[spec.name]?.trim()).map((spec) => spec.name);
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
      ...specs.map((spec) => ({
        label: `$(edit) ${inertLine(spec.name)}`,
        description: draft[spec.name] ? oneLine(draft[spec.name], 80) : isRequiredInput(spec) ? vscode.l10n.t('(empty)') : vscode.l10n.t('(empty, optional)'),
        action: 'edit' as const,
        name: spec.name,
      })),
      ...byHand,
      { label: '', kind: vscode.QuickPickItemKind.Separator, action: 'cancel' },
      { label: `$(save) ${vscode.l10n.t('Save as Preset…')}`, action: 'preset' },
      { label: `$(close) ${vscode.l10n.t('Cancel')}`, action: 'cancel' },
    ];
    const choice = await askPick({
      title: vscode.l10n.t('Kick Off {0}: review', crew.name),
      step: specs.length + 1,
      totalSteps: specs.length + 1,
      placeholder:
        undescribed === undefined
          ? vscode.l10n.t('Enter to kick off, or pick an input to change it')
          : inertLine(vscode.l10n.t('{0} does not describe its inputs ({1}): add them by name, or as JSON', crew.name, undescribed)),
      items,
      canGoBack: specs.length > 0,
      matchOnDescription: false,
    });
    if (choice.kind === 'back') {
      return { kind: 'back' };
    }
    if (choice.kind !== 'value' || choice.value.action === 'cancel') {
      return { kind: 'cancel' };
    }
    switch (choice.value.action) {
      case 'preset':
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

async function kickOffDirectly(services: Services, crew: Crew, inputs: Draft): Promise<RunRecord | undefined> {
  if (!isStringRecord(inputs)) {
    void showError(vscode.l10n.t('Inputs must be an object of input names to text values.'));
    return undefined;
  }
  const tooLong = Object.keys(inputs).find((name) => inputs[name].length > MAX_INPUT_VALUE_LENGTH);
  if (tooLong !== undefined) {
    // The same limit as the input boxes: a value this large is a paste gone wrong, not an input.
    void showError(vscode.l10n.t('The value of "{0}" is too long (over {1} characters).', tooLong, String(MAX_INPUT_VALUE_LENGTH)));
    return undefined;
  }
  try {
    return await startRun(services, crew, inputs);
  } catch (error) {
    services.log.warn(`Kickoff of ${crew.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof CrewApiError && error.kind === 'missingInputs') {
      const fill = vscode.l10n.t('Fill In…');
      if ((await showError(describeError(error, crew.name), fill)) === fill) {
        return kickOffInteractively(services, crew, inputs);
      }
      return undefined;
    }
    void showError(describeError(error, crew.name));
    return undefined;
  }
}

async function managePresets(services: Services, crew: Crew): Promise<void> {
  const deleteButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Delete Preset') };
  const renameButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: vscode.l10n.t('Rename Preset') };
  for (;;) {
    const presets = services.presets.presets(crew.url);
    if (presets.length === 0) {
      void showInfo(vscode.l10n.t('{0} has no presets yet. Save one from the review step of Kick Off.', crew.name));
      return;
    }
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { name: string }>();
    pick.title = inertLine(vscode.l10n.t('Presets of {0}', crew.name));
    pick.placeholder = vscode.l10n.t('Enter to kick off with a preset; use the buttons to rename or delete');
    pick.items = presets.map((p) => ({ label: inertLine(p.name), description: oneLine(Object.values(p.inputs).join(' · '), 80), name: p.name, buttons: [renameButton, deleteButton] }));
    const result = await new Promise<{ action: 'use' | 'rename' | 'delete'; name: string } | undefined>((resolve) => {
      pick.onDidAccept(() => resolve(pick.selectedItems[0] ? { action: 'use', name: pick.selectedItems[0].name } : undefined));
      pick.onDidTriggerItemButton((e) => resolve({ action: e.button === deleteButton ? 'delete' : 'rename', name: e.item.name }));
      pick.onDidHide(() => resolve(undefined));
      pick.show();
    });
    pick.dispose();
    if (!result) {
      return;
    }
    if (result.action === 'use') {
      const preset = presets.find((p) => p.name === result.name);
      if (preset) {
        await kickOffInteractively(services, crew, preset.inputs);
      }
      return;
    }
    if (result.action === 'delete') {
      await services.presets.deletePreset(crew.url, result.name);
    } else {
      const to = await vscode.window.showInputBox({ title: vscode.l10n.t('Rename Preset'), value: result.name });
      if (to?.trim()) {
        await services.presets.renamePreset(crew.url, result.name, to.trim());
      }
    }
  }
}

function isKickOffArguments(arg: unknown): arg is KickOffArguments {
  return typeof arg === 'object' && arg !== null && typeof (arg as KickOffArguments).crew === 'string' && typeof (arg as KickOffArguments).inputs === 'object';
}
