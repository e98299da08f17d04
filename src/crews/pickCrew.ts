import * as vscode from 'vscode';
import type { Crew } from './crewConfig';
import type { CrewRegistry } from './crewRegistry';
import { showInfo } from '../ui/notify';
import type { StepInput } from '../ui/quickInput';
import { inertLine } from '../util/inertText';

/** Anything a command can receive from the tree or another command that names a crew. */
export function crewFromArgument(crews: CrewRegistry, arg: unknown): Crew | undefined {
  if (typeof arg === 'string') {
    return crews.get(arg);
  }
  const url = (arg as { crew?: { url?: unknown }; url?: unknown } | undefined)?.crew?.url ?? (arg as { url?: unknown } | undefined)?.url;
  return typeof url === 'string' ? crews.get(url) : undefined;
}

/**
 * The crew a command acts on: from its argument, the only crew, or a quick pick. `among`: the crews the
 * command can act on (when they are fewer than all; the only one of them is not asked for). `input`: the pick is
 * the first step of that multi-step input, which stays open for the command's next steps.
 */
export async function pickCrew(crews: CrewRegistry, arg: unknown, placeholder: string, among?: readonly Crew[], input?: StepInput): Promise<Crew | undefined> {
  const given = crewFromArgument(crews, arg);
  if (given) {
    return given;
  }
  const all = among ?? crews.list();
  if (all.length === 0) {
    const add = vscode.l10n.t('Add Crew…');
    const demo = vscode.l10n.t('Try the Demo Crew');
    const choice = await showInfo(vscode.l10n.t('No crews yet.'), add, demo);
    if (choice === add) {
      await vscode.commands.executeCommand('crewRuns.addCrew');
    } else if (choice === demo) {
      await vscode.commands.executeCommand('crewRuns.tryDemoCrew');
    }
    return undefined;
  }
  if (all.length === 1) {
    return all[0];
  }
  const items = all.map((crew) => ({ label: inertLine(crew.name), description: inertLine(crew.url), detail: sourceLabel(crew), crew }));
  if (input) {
    const picked = await input.choose({ title: placeholder, placeholder: vscode.l10n.t('Type to filter by name or URL'), items });
    return picked.kind === 'value' ? picked.value.crew : undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { placeHolder: placeholder, matchOnDescription: true });
  return picked?.crew;
}

export function sourceLabel(crew: Crew): string | undefined {
  switch (crew.source) {
    case 'workspace':
      return vscode.l10n.t('from workspace settings');
    case 'demo':
      return vscode.l10n.t('demo crew on this machine');
    default:
      return undefined;
  }
}
