// The kickoff commands: Kick Off (the wizard, its review pre-filled when given inputs), Run Again, Track a
// Kickoff ID, presets. The flows live next door: kickoffWizard (steps, review), kickoffSend, kickoffTrack, kickoffPresets.
import * as vscode from 'vscode';
import { deploymentAllowsKickoff } from './deploymentGate';
import { CrewApiError } from '../api/errors';
import type { Crew } from '../crews/crewConfig';
import { inputsProblem } from '../api/inputValues';
import { isPlainObject } from '../util/objects';
import type { Draft } from './core/inputSteps';
import type { RunRecord } from '../runTracking/model';
import type { KickoffServices } from './kickoffServices';
import { describeError } from '../ui/errorMessages';
import { showError, showInfo } from '../ui/notify';
import { kickOffWithProgress } from './kickoffSend';
import { crewsWithPresets, inputsOf, managePresets, savePreset } from './kickoffPresets';
import { trackKickoffId } from './kickoffTrack';
import { kickOffInteractively } from './kickoffWizard';
import { pickCrew } from '../crews/pickCrew';
import { StepInput } from '../ui/quickInput';
import { runFromArgument } from '../runs/pickRun';
import type { FrontRun } from '../runs/stopCommands';
import { followContext } from '../ui/contextKey';
import { registerValueEditor } from './valueEditor';
import { errorText } from '../util/errorText';

/**
 * `{ crew: url, inputs }` pre-fills Kick Off: the user still sees the inputs in its review and kicks off there
 * (a command link or another extension must not start a billed run). Tests kick off unreviewed through the test API.
 */
export interface KickOffArguments {
  crew: string;
  /** Any JSON value per input, sent as given. */
  inputs: Draft;
}

/**
 * The run a command without an argument means: the one in the front run view, else one the user picks
 * (a run view in front already says which run; asking again would be a question with an obvious answer).
 */
async function runMeant(services: KickoffServices, front: FrontRun, arg: unknown, placeholder: string): Promise<RunRecord | undefined> {
  const frontId = arg === undefined ? front.activeRunId() : undefined;
  return runFromArgument(services, frontId !== undefined && services.runs.get(frontId) ? { runId: frontId } : arg, placeholder);
}

export function registerKickoffCommands(services: KickoffServices, front: FrontRun = { activeRunId: () => undefined }): vscode.Disposable[] {
  return [
    ...registerValueEditor(),
    // The walkthrough's first step is done once there is a crew (added, imported or the demo's).
    followContext('crewRuns.hasCrews', () => services.crews.list().length > 0, (listener) => services.crews.onDidChange(listener)),
    vscode.commands.registerCommand('crewRuns.kickOff', async (arg?: unknown) => {
      if (isKickOffArguments(arg)) {
        const given = checkedArguments(services, arg);
        return given ? (await kickOffInteractively(services, given.crew, given.inputs))?.id : undefined;
      }
      // The crew pick is the wizard's first step, in its quick input: the keyboard stays there from pick to review.
      const input = new StepInput();
      try {
        const crew = await pickCrew(services.crews, arg, vscode.l10n.t('Kick off which crew?'), undefined, input);
        return crew ? (await kickOffInteractively(services, crew, undefined, [], input))?.id : undefined;
      } finally {
        input.dispose();
      }
    }),
    vscode.commands.registerCommand('crewRuns.runAgain', async (arg?: unknown) => {
      const run = await runMeant(services, front, arg, vscode.l10n.t('Run which run again?'));
      const crew = run && crewOfRun(services, run);
      if (!crew || !run) {
        return undefined;
      }
      const inputs = await inputsOf(services, run);
      if (Object.keys(inputs).length === 0) {
        // A run tracked by its kickoff id: its inputs never reached Crew Runs; kicking off with none would not repeat it.
        const edit = vscode.l10n.t('Run Again with Edited Inputs…');
        if ((await showInfo(vscode.l10n.t('{0} was tracked by its kickoff id: its inputs are not known, so it cannot simply run again.', run.label), edit)) === edit) {
          return (await kickOffInteractively(services, crew))?.id;
        }
        return undefined;
      }
      // The review shows what will be sent and Enter starts it: a run is billed, so one click (or a
      // double click, or another extension's call) never starts one by itself.
      return (await kickOffInteractively(services, crew, inputs))?.id;
    }),
    vscode.commands.registerCommand('crewRuns.runAgainWithEditedInputs', async (arg?: unknown) => {
      const run = await runMeant(services, front, arg, vscode.l10n.t('Run which run again?'));
      const crew = run && crewOfRun(services, run);
      return crew && run ? (await kickOffInteractively(services, crew, await inputsOf(services, run)))?.id : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.trackKickoffId', async (arg?: unknown) => {
      const crew = await pickCrew(services.crews, arg, vscode.l10n.t('Which crew started the run?'));
      return crew ? (await trackKickoffId(services, crew))?.id : undefined;
    }),
    vscode.commands.registerCommand('crewRuns.saveInputsAsPreset', async (arg?: unknown) => {
      const run = await runMeant(services, front, arg, vscode.l10n.t('Save the inputs of which run?'));
      if (run) {
        await savePreset(services, run.crewUrl, await inputsOf(services, run));
      }
    }),
    vscode.commands.registerCommand('crewRuns.managePresets', async (arg?: unknown) => {
      // Only crews with presets are offered, and the only one is not asked for.
      const withPresets = crewsWithPresets(services);
      const crew = await pickCrew(services.crews, arg, vscode.l10n.t('Manage the presets of which crew?'), withPresets.length > 0 ? withPresets : undefined);
      if (crew) {
        await managePresets(services, crew, (inputs) => kickOffInteractively(services, crew, inputs));
      }
    }),
  ];
}

/** Kicks off with no review (the test API only: no command reaches this). */
export async function kickOffWithoutReview(services: KickoffServices, arg: KickOffArguments): Promise<string | undefined> {
  const given = checkedArguments(services, arg);
  return given ? (await kickOffUnreviewed(services, given.crew, given.inputs))?.id : undefined;
}

/** The crew and inputs named, or undefined after saying what is wrong with them. */
function checkedArguments(services: KickoffServices, arg: KickOffArguments): { crew: Crew; inputs: Draft } | undefined {
  const crew = services.crews.get(arg.crew) ?? pickCrewByUrl(services, arg.crew);
  if (!crew) {
    void showError(vscode.l10n.t('No crew at {0}. Add it first.', arg.crew));
    return undefined;
  }
  const inputs: unknown = arg.inputs;
  if (!isPlainObject(inputs)) {
    void showError(vscode.l10n.t('Inputs must be an object of input names to values.'));
    return undefined;
  }
  // The same limits as the input steps: a value this large or deep is a paste gone wrong, not an input.
  const problem = inputsProblem(inputs);
  if (problem) {
    void showError(problem.message);
    return undefined;
  }
  return { crew, inputs: inputs as Draft };
}

function pickCrewByUrl(services: KickoffServices, url: string): Crew | undefined {
  return services.crews.list().find((c) => c.url === url.replace(/\/+$/, ''));
}

function crewOfRun(services: KickoffServices, run: RunRecord): Crew | undefined {
  const crew = services.crews.get(run.crewUrl);
  if (!crew) {
    void showError(vscode.l10n.t('{0} is no longer in your crews; add it again to run it.', run.crewName));
  }
  return crew;
}

/** Runs Again (a run's own inputs, from the tree or the run view) and the test API's unreviewed kickoff. */
async function kickOffUnreviewed(services: KickoffServices, crew: Crew, inputs: Draft): Promise<RunRecord | undefined> {
  if (!(await deploymentAllowsKickoff(services, crew))) {
    return undefined;
  }
  try {
    return await kickOffWithProgress(services, crew, inputs);
  } catch (error) {
    services.log.warn(`Kickoff of ${crew.name} failed: ${errorText(error)}`);
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

function isKickOffArguments(arg: unknown): arg is KickOffArguments {
  return typeof arg === 'object' && arg !== null && typeof (arg as KickOffArguments).crew === 'string' && typeof (arg as KickOffArguments).inputs === 'object';
}
