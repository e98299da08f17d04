import * as vscode from 'vscode';
import { CrewApiError, mayHaveActed } from '../api/errors';
import type { Crew } from '../crews/crewConfig';
import { inputsFromJson, isOptionalInput, isStringRecord, MAX_INPUT_VALUE_LENGTH } from '../crews/inputPresets';
import type { RunRecord } from '../runs/model';
import type { Services } from '../services';
import { describeError } from '../views/errorMessages';
import { askPick, askText } from '../views/quickInput';
import { setTokenInteractively } from './crewCommands';
import { pickCrew } from './pickCrew';
import { runFromArgument } from './pickRun';
import { startRecordedRun } from './startRun';
import { showError, showInfo, showStatusMessage, showWarning } from '../views/notify';
import { isPlausibleKickoffId } from '../api/url';
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
async function fetchInputNames(services: Services, crew: Crew): Promise<string[] | undefined> {
  for (;;) {
    try {
      const names = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: inertLine(vscode.l10n.t('Asking {0} which inputs it needs…', crew.name)), cancellable: true },
        (_p, cancellation) => {
          const abort = new AbortController();
          cancellation.onCancellationRequested(() => abort.abort());
          return services.client.getInputs(crew.url, { signal: abort.signal });
        },
      );
      services.crews.setHealth(crew.url, 'ready');
      return names;
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

type Draft = Record<string, string>;

/** A run's inputs live in its file, not the shared index. */
async function inputsOf(services: Services, run: RunRecord): Promise<Draft> {
  return (await services.runs.readDetails(run.id)).inputs ?? {};
}

/**
 * The full flow: starting point → one step per input (Back, edit in editor) → review → kickoff.
 * Every error path comes back to the review with the values typed so far.
 */
async function kickOffInteractively(services: Services, crew: Crew, startFrom?: Draft): Promise<RunRecord | undefined> {
  const names = await fetchInputNames(services, crew);
  if (!names) {
    return undefined;
  }
  let draft: Draft | undefined = startFrom ? { ...startFrom } : await chooseStartingPoint(services, crew, names);
  if (!draft) {
    return undefined;
  }
  let inputNames = [...names];
  // Inputs the draft carries that the crew no longer lists are dropped, so the kickoff matches /inputs.
  draft = Object.fromEntries(inputNames.map((n) => [n, draft?.[n] ?? '']));
  // A complete starting point (last used, a preset, a run's inputs) goes straight to the review.
  let toAsk: string[] = inputNames.some((n) => !isOptionalInput(n) && !draft?.[n]?.trim()) ? inputNames : [];
  for (;;) {
    if (toAsk.length > 0) {
      const asked = await askInputs(crew, toAsk, draft, inputNames);
      if (!asked) {
        return undefined;
      }
      draft = asked;
      toAsk = [];
    }
    const review = await reviewStep(services, crew, inputNames, draft);
    if (review.kind === 'cancel') {
      return undefined;
    }
    if (review.kind === 'edit') {
      toAsk = [review.name];
      continue;
    }
    if (review.kind === 'back') {
      toAsk = inputNames.length ? [inputNames[inputNames.length - 1]] : [];
      continue;
    }
    const inputs = inputsToSend(inputNames, draft);
    const outcome = await sendKickoff(services, crew, inputs);
    if (outcome.kind === 'started') {
      return outcome.run;
    }
    if (outcome.kind === 'missing') {
      // Ask only for what the crew says is missing, adding names it did not list in /inputs.
      inputNames = [...inputNames, ...outcome.names.filter((n) => !inputNames.includes(n))];
      toAsk = outcome.names;
      continue;
    }
    if (outcome.kind === 'stop') {
      return undefined;
    }
    // 'review': back to the review step with everything kept.
  }
}

async function chooseStartingPoint(services: Services, crew: Crew, names: string[]): Promise<Draft | undefined> {
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
  if (names.length === 0 || items.length === 1) {
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
      return chooseStartingPoint(services, crew, names);
    }
    return parsed.inputs;
  }
  return choice.value.draft ? { ...choice.value.draft } : {};
}

function summarise(inputs: Draft, names: string[]): string {
  return names
    .filter((n) => inputs[n])
    .map((n) => `${inertLine(n)}: ${oneLine(inputs[n], 30)}`)
    .join(' · ');
}

const editInEditorButton: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('go-to-file'),
  tooltip: vscode.l10n.t('Edit in an editor (for long or multi-line text)'),
};

/** One step per input, with Back between them; returns the new draft or undefined when cancelled. */
async function askInputs(crew: Crew, names: string[], start: Draft, allNames: string[]): Promise<Draft | undefined> {
  const draft = { ...start };
  let index = 0;
  while (index < names.length) {
    const name = names[index];
    const optional = isOptionalInput(name);
    const multiLine = draft[name]?.includes('\n');
    // Steps count over all inputs, also when only some are asked again (after a 422, or from the review).
    const position = allNames.indexOf(name) + 1 || index + 1;
    const answer = await askText({
      title: vscode.l10n.t('Kick Off {0}: {1}', crew.name, name),
      step: position,
      totalSteps: allNames.length + 1,
      value: multiLine ? oneLine(draft[name], 200) : draft[name],
      prompt: optional
        ? vscode.l10n.t('Optional. For flows, "id" restores a saved state; leave it empty to start fresh.')
        : multiLine
          ? vscode.l10n.t('This value has several lines; press Enter to keep it, or use the editor button to change it.')
          : vscode.l10n.t('Value of "{0}" ({1} of {2}). Enter to continue.', name, String(position), String(allNames.length)),
      canGoBack: index > 0,
      buttons: [editInEditorButton],
      validate: (value) => {
        if (multiLine && value === oneLine(draft[name], 200)) {
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
    if (answer.kind === 'cancel') {
      return undefined;
    }
    if (answer.kind === 'back') {
      index--;
      continue;
    }
    if (answer.kind === 'button') {
      const edited = await editInEditor(name, multiLine && answer.value === oneLine(draft[name], 200) ? draft[name] : answer.value);
      if (edited !== undefined) {
        draft[name] = edited;
      }
      continue;
    }
    if (!(multiLine && answer.value === oneLine(draft[name], 200))) {
      draft[name] = answer.value;
    }
    index++;
  }
  return draft;
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

type ReviewChoice = { kind: 'kickoff' } | { kind: 'edit'; name: string } | { kind: 'back' } | { kind: 'cancel' };

async function reviewStep(services: Services, crew: Crew, names: string[], draft: Draft): Promise<ReviewChoice> {
  for (;;) {
    type Item = vscode.QuickPickItem & { action: 'kickoff' | 'edit' | 'preset' | 'cancel'; name?: string };
    const missing = names.filter((n) => !isOptionalInput(n) && !draft[n]?.trim());
    const items: Item[] = [
      missing.length
        ? { label: `$(warning) ${vscode.l10n.t('Fill in {0} first', inertLine(missing.join(', ')))}`, action: 'edit', name: missing[0] }
        : { label: `$(rocket) ${vscode.l10n.t('Kick Off')}`, description: inertLine(crew.name), action: 'kickoff' },
      { label: vscode.l10n.t('Inputs'), kind: vscode.QuickPickItemKind.Separator, action: 'edit' },
      ...names.map((name) => ({
        label: `$(edit) ${inertLine(name)}`,
        description: draft[name] ? oneLine(draft[name], 80) : vscode.l10n.t('(empty)'),
        action: 'edit' as const,
        name,
      })),
      { label: '', kind: vscode.QuickPickItemKind.Separator, action: 'cancel' },
      { label: `$(save) ${vscode.l10n.t('Save as Preset…')}`, action: 'preset' },
      { label: `$(close) ${vscode.l10n.t('Cancel')}`, action: 'cancel' },
    ];
    const choice = await askPick({
      title: vscode.l10n.t('Kick Off {0}: review', crew.name),
      step: names.length + 1,
      totalSteps: names.length + 1,
      placeholder: vscode.l10n.t('Enter to kick off, or pick an input to change it'),
      items,
      canGoBack: names.length > 0,
      matchOnDescription: false,
    });
    if (choice.kind === 'back') {
      return { kind: 'back' };
    }
    if (choice.kind !== 'value' || choice.value.action === 'cancel') {
      return { kind: 'cancel' };
    }
    if (choice.value.action === 'preset') {
      await savePreset(services, crew.url, inputsToSend(names, draft));
      continue;
    }
    if (choice.value.action === 'edit' && choice.value.name) {
      return { kind: 'edit', name: choice.value.name };
    }
    return { kind: 'kickoff' };
  }
}

/** The inputs as sent: every listed input, except an empty optional one (a flow's `id`). */
function inputsToSend(names: string[], draft: Draft): Draft {
  return Object.fromEntries(names.filter((n) => !(isOptionalInput(n) && !draft[n])).map((n) => [n, draft[n] ?? '']));
}

type KickoffOutcome =
  | { kind: 'started'; run: RunRecord }
  | { kind: 'missing'; names: string[] }
  | { kind: 'review' }
  | { kind: 'stop' };

async function sendKickoff(services: Services, crew: Crew, inputs: Draft): Promise<KickoffOutcome> {
  try {
    const run = await startRun(services, crew, inputs);
    return { kind: 'started', run };
  } catch (error) {
    services.log.warn(`Kickoff of ${crew.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    const cancelled = error instanceof Error && error.name === 'AbortError';
    if (!(error instanceof CrewApiError) && !cancelled) {
      void showError(describeError(error, crew.name));
      return { kind: 'review' };
    }
    switch (cancelled ? 'cancelled' : mayHaveActed(error) ? 'mayHaveStarted' : (error as CrewApiError).kind) {
      case 'missingInputs':
        void showWarning(describeError(error, crew.name));
        return { kind: 'missing', names: (error as CrewApiError).missingInputs ?? [] };
      case 'noToken':
      case 'unauthorized': {
        const setToken = vscode.l10n.t('Set Token…');
        const choice = await showError(describeError(error, crew.name), setToken, vscode.l10n.t('Back to Review'));
        if (choice === setToken) {
          await setTokenInteractively(services, crew);
        }
        return { kind: 'review' };
      }
      case 'cancelled':
      case 'mayHaveStarted': {
        // The request may have reached the crew (a fault, a 5xx, an unreadable reply, or cancelled after it was
        // sent): never retry by ourselves nor offer to, or the run could start twice.
        const track = vscode.l10n.t('Track a Kickoff ID…');
        const review = vscode.l10n.t('Back to Review');
        const lead = cancelled ? vscode.l10n.t('Kickoff of {0} cancelled.', crew.name) : describeError(error, crew.name);
        const choice = await showWarning(
          vscode.l10n.t('{0} The run may or may not have started. If it did, find its kickoff ID in the crew\'s dashboard and track it here; kicking off again could start it twice.', lead),
          { modal: false },
          track,
          review,
        );
        if (choice === track) {
          await trackKickoffId(services, crew);
          return { kind: 'stop' };
        }
        return choice === review ? { kind: 'review' } : { kind: 'stop' };
      }
      default: {
        const review = vscode.l10n.t('Back to Review');
        const choice = await showError(describeError(error, crew.name), review);
        return choice === review ? { kind: 'review' } : { kind: 'stop' };
      }
    }
  }
}

/** POST /kickoff under progress, then record the run at once and start watching it. */
async function startRun(services: Services, crew: Crew, inputs: Draft): Promise<RunRecord> {
  const run = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: inertLine(vscode.l10n.t('Kicking off {0}…', crew.name)), cancellable: true },
    (_progress, cancel) => {
      const abort = new AbortController();
      cancel.onCancellationRequested(() => abort.abort());
      return startRecordedRun(services, crew, inputs, abort.signal);
    },
  );
  const open = vscode.l10n.t('Open Run');
  // The service has started it: when the run could not be saved, say so, and that it must not be kicked off again.
  const shown = run.warning
    ? showWarning(vscode.l10n.t('Started {0} on {1} (kickoff id {2}), but it is not saved to the run history yet: this window keeps it and saves it with the next change. Do not kick it off again.', run.label, crew.name, run.kickoffId), open)
    : showInfo(vscode.l10n.t('Started {0} on {1}.', run.label, crew.name), open);
  void shown.then((choice) => {
    if (choice === open) {
      void vscode.commands.executeCommand('crewRuns.openRun', { runId: run.id });
    }
  });
  return run;
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

async function trackKickoffId(services: Services, crew: Crew): Promise<RunRecord | undefined> {
  const id = await vscode.window.showInputBox({
    title: inertLine(vscode.l10n.t('Track a Kickoff ID on {0}', crew.name)),
    prompt: vscode.l10n.t('The kickoff ID of a run started elsewhere (the crew\'s dashboard, an API call).'),
    placeHolder: 'e.g. 6f140412-8094-43fc-a6f0-70e65f912172',
    ignoreFocusOut: true,
    validateInput: (value) => {
      const text = value.trim();
      if (!text) {
        return vscode.l10n.t('Paste a kickoff ID.');
      }
      if (!isPlausibleKickoffId(text)) {
        return vscode.l10n.t('A kickoff ID has only letters, digits and dashes.');
      }
      return services.runs.findByKickoffId(text) ? vscode.l10n.t('That run is already in the list.') : undefined;
    },
  });
  if (!id) {
    return undefined;
  }
  const run = await services.runs.add({ crewUrl: crew.url, crewName: crew.name, kickoffId: id.trim(), inputs: {} });
  services.log.info(`[${crew.name}] Tracking kickoff id ${run.kickoffId}.`);
  services.poller.watch(run.id);
  return run;
}

async function savePreset(services: Services, crewUrl: string, inputs: Draft): Promise<void> {
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
