// The one run picker: every command that acts on a run and was not given one asks here, with one wording.
// Runs that look alike (the same inputs from a preset or Run Again) are told apart by their start time, a
// differing input and their kickoff id.
import * as vscode from 'vscode';
import type { RunRecord } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import { stateLabel } from '../ui/format';
import { showInfo } from '../ui/notify';
import { inertLine, oneLine } from '../util/inertText';
import { differingInputs, lookAlikes } from './runDifferences';

export interface PickRunOptions {
  /** The runs the command can act on. */
  filter?: (run: RunRecord) => boolean;
  /** The only candidate is taken without asking (commands that only show a run, like Open Run). */
  skipWhenOne?: boolean;
}

/** `{ runId }` (tree node, webview, other commands), or a quick pick. */
export async function runFromArgument(
  services: { readonly runs: RunStore },
  arg: unknown,
  placeholder: string,
  filter: (run: RunRecord) => boolean = () => true,
): Promise<RunRecord | undefined> {
  const runId = (arg as { runId?: unknown } | undefined)?.runId;
  if (typeof runId === 'string') {
    return services.runs.get(runId);
  }
  return pickRun(services.runs, placeholder, { filter });
}

export async function pickRun(runs: RunStore, placeholder: string, options: PickRunOptions = {}): Promise<RunRecord | undefined> {
  const candidates = runs.list().filter(options.filter ?? (() => true));
  if (candidates.length === 0) {
    void showInfo(vscode.l10n.t('No runs to choose from.'));
    return undefined;
  }
  if (candidates.length === 1 && options.skipWhenOne) {
    return candidates[0];
  }
  const alike = lookAlikes(candidates);
  const inputs = await Promise.all(alike.map(async (run) => ({ ...run, inputs: (await runs.readDetails(run.id).catch(() => undefined))?.inputs ?? {} })));
  const differing = differingInputs(inputs);
  const picked = await vscode.window.showQuickPick(
    candidates.map((run) => {
      const differs = differing.get(run.id);
      return {
        label: inertLine(run.label),
        description: `${inertLine(run.crewName)} · ${run.needsFeedback ? vscode.l10n.t('needs feedback') : stateLabel(run.state)} · ${startedAt(run.startedAt)}`,
        detail: [differs ? `${inertLine(differs.name)}: ${oneLine(differs.value, 60)}` : undefined, vscode.l10n.t('kickoff {0}', inertLine(run.kickoffId.slice(0, 8)))]
          .filter((part) => part !== undefined)
          .join(' · '),
        run,
      };
    }),
    { placeHolder: placeholder, matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.run;
}

let timeFormat: Intl.DateTimeFormat | undefined;
let dateTimeFormat: Intl.DateTimeFormat | undefined;

/** The start time to the second (runs of a batch or a double kickoff start within the same minute); the date when not today. */
function startedAt(at: number): string {
  if (new Date(at).toDateString() === new Date().toDateString()) {
    timeFormat ??= new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
    return vscode.l10n.t('started {0}', timeFormat.format(at));
  }
  dateTimeFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return vscode.l10n.t('started {0}', dateTimeFormat.format(at));
}
