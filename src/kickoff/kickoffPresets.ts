// Named inputs per crew: Save as Preset (from a run or the review step) and Manage Presets (use, rename, delete).
import * as vscode from 'vscode';
import { inputLine } from '../api/inputValues';
import type { Crew } from '../crews/crewConfig';
import type { Draft } from './core/inputSteps';
import type { RunRecord } from '../runTracking/model';
import type { KickoffServices } from './kickoffServices';
import { showInfo, showStatusMessage } from '../ui/notify';
import { inertLine, oneLine } from '../util/inertText';

/** A run's inputs live in its details file, not its record. */
export async function inputsOf(services: KickoffServices, run: RunRecord): Promise<Draft> {
  return (await services.runs.readDetails(run.id)).inputs ?? {};
}

/** Saves the inputs as a named preset of the crew (a preset with the same name is replaced). */
export async function savePreset(services: KickoffServices, crewUrl: string, inputs: Draft): Promise<void> {
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

/** The crews Manage Presets offers: those with presets (the only one is not asked for). */
export function crewsWithPresets(services: KickoffServices): Crew[] {
  return services.crews.list().filter((crew) => services.presets.presets(crew.url).length > 0);
}

/** The presets of a crew, with rename and delete buttons; Enter kicks off with one (through `kickOff`). */
export async function managePresets(services: KickoffServices, crew: Crew, kickOff: (inputs: Draft) => Promise<unknown>): Promise<void> {
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
    pick.items = presets.map((p) => ({ label: inertLine(p.name), description: oneLine(Object.values(p.inputs).map(inputLine).join(' · '), 80), name: p.name, buttons: [renameButton, deleteButton] }));
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
        await kickOff(preset.inputs);
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
