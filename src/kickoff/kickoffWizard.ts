// Kick Off, interactively: GET /inputs, the starting point, one step per input, the review, the kickoff.
// All steps run in one StepInput (one quick input reused from step to step). Escape keeps the values typed
// so far for "Continue where you left off"; a kickoff that starts forgets them.
import * as vscode from 'vscode';
import { CrewApiError } from '../api/errors';
import { hasValue } from '../api/inputValues';
import type { CrewInputs, InputSpec } from '../api/types';
import type { Crew } from '../crews/crewConfig';
import { type Draft, inputsCapNotice, inputsToAsk, inputsToSend, isFlowId, isWorthKeeping, missingInputs, withInputs } from './core/inputSteps';
import type { RunRecord } from '../runTracking/model';
import type { KickoffServices } from './kickoffServices';
import { describeError } from '../ui/errorMessages';
import { showError, showWarning } from '../ui/notify';
import { StepInput } from '../ui/quickInput';
import { inertLine } from '../util/inertText';
import { setTokenInteractively } from '../crews/crewCommands';
import { chooseStartingPoint, reviewStep } from './kickoffReview';
import { pendingRun, sendFromReview } from './kickoffSend';
import { askInputName, askInputs, askInputsJson, JsonChoices } from './kickoffSteps';
import { errorText } from '../util/errorText';

/** The input a crew started by a platform trigger receives its payload in (platform-api.md). */
const TRIGGER_PAYLOAD = 'crewai_trigger_payload';

/**
 * The full flow: starting point → one step per input (Back, edit in editor) → review → kickoff.
 * Every error path comes back to the review with the values typed so far. A crew that does not
 * describe its inputs gets them named by hand (one by one, or as JSON) from the review.
 */
export async function kickOffInteractively(
  services: KickoffServices,
  crew: Crew,
  startFrom?: Draft,
  extra: InputSpec[] = [],
  /** The quick input of a step before (the crew pick), kept open while /inputs is read; disposed here. */
  input = new StepInput(),
): Promise<RunRecord | undefined> {
  let result: RunRecord | 'withTrigger' | undefined;
  try {
    const described = await fetchInputs(services, crew, input);
    result = described && (await wizard(input, services, crew, described, startFrom, extra));
  } finally {
    input.dispose();
  }
  if (result === 'withTrigger') {
    // Chosen in the first step: that command picks the trigger and its payload, then comes back to this review.
    const id = await vscode.commands.executeCommand<string | undefined>('crewRuns.kickOffWithTriggerPayload', crew.url);
    return id === undefined ? undefined : services.runs.get(id);
  }
  return result;
}

/** `extra`: inputs the crew does not list that the kickoff carries (a trigger's payload), listed after the crew's. */
async function wizard(input: StepInput, services: KickoffServices, crew: Crew, described: CrewInputs, startFrom: Draft | undefined, extra: InputSpec[]): Promise<RunRecord | 'withTrigger' | undefined> {
  const start = startFrom ? { draft: { ...startFrom } } : await chooseStartingPoint(input, services, crew, described);
  if (!start || start.withTrigger) {
    return start?.withTrigger ? 'withTrigger' : undefined;
  }
  // By hand, the inputs are those of the starting point; else inputs the draft carries that the
  // crew no longer lists are dropped, so the kickoff matches /inputs. But for a trigger's payload: a crew never lists
  // it, and a preset, the last used inputs or a run's own that carry one are kept whole.
  const carried = TRIGGER_PAYLOAD in start.draft && !extra.some((e) => e.name === TRIGGER_PAYLOAD) ? [...extra, { name: TRIGGER_PAYLOAD }] : extra;
  let specs: InputSpec[] = described.described
    ? [...described.inputs, ...carried.filter((e) => !described.inputs.some((spec) => spec.name === e.name))]
    : Object.keys(start.draft).map((name) => extra.find((e) => e.name === name) ?? { name });
  let draft: Draft = Object.fromEntries(specs.map((spec) => [spec.name, start.draft[spec.name] ?? '']));
  // An input carried in with its value (a trigger's payload, just edited in an editor of its own) is not asked again
  // as one line of JSON: the review lists it, and picking it there edits it.
  const carriedIn = (spec: InputSpec) => carried.some((e) => e.name === spec.name) && hasValue(draft[spec.name]);
  // Required inputs first; a flow's `id` only when the starting point has one (else "Add "id"" in the review).
  let steps = [...inputsToAsk(specs).filter((spec) => !carriedIn(spec)), ...specs.filter((spec) => isFlowId(spec) && draft[spec.name])];
  // A complete starting point (last used, a preset, a run's inputs) goes straight to the review.
  const missing = missingInputs(specs, draft);
  let toAsk: InputSpec[] = missing.length > 0 ? steps : [];
  // "Continue where you left off" goes on at the first input still unanswered, not at step 1.
  let from = start.unfinished ? Math.max(0, toAsk.findIndex((spec) => missing.includes(spec.name))) : 0;
  // Text or JSON per input as the user last switched it for this crew, else from the values and types.
  const json = new JsonChoices(() => draft, services.presets.jsonChoices(crew.url));
  // The crew's words on inputs it refused, shown in their steps when they are asked again.
  let problems = new Map<string, string>();
  // The run this wizard starts: a kickoff that may have reached the crew is not sent again for it (sendFromReview).
  const pending = pendingRun();
  const keep = async (left: Draft) => {
    if (isWorthKeeping(left, start.draft)) {
      await services.presets.rememberUnfinished(crew.url, left);
    }
  };
  const ask = (spec: InputSpec) => {
    steps = steps.includes(spec) ? steps : [...steps, spec];
    return [spec];
  };
  for (;;) {
    if (toAsk.length > 0) {
      const asked = await askInputs(input, crew, toAsk, draft, steps, from, json, problems);
      problems = new Map();
      from = 0;
      draft = asked.draft;
      if (asked.kind === 'cancel') {
        await keep(draft);
        return undefined;
      }
      toAsk = [];
    }
    const review = await reviewStep(input, services, crew, specs, steps, draft, described.described ? undefined : described.reason);
    switch (review.kind) {
      case 'cancel':
        if (review.escaped) {
          await keep(draft);
        }
        return undefined;
      case 'edit': {
        const spec = specs.find((s) => s.name === review.name);
        toAsk = spec ? ask(spec) : [];
        continue;
      }
      case 'back':
        toAsk = steps.slice(-1);
        continue;
      case 'add': {
        const name = await askInputName(input, crew, specs);
        if (name !== undefined) {
          const spec: InputSpec = { name };
          specs = [...specs, spec];
          toAsk = ask(spec);
        }
        continue;
      }
      case 'json': {
        const fromJson = await askInputsJson(input, crew, draft);
        if (fromJson !== undefined) {
          const added = Object.keys(fromJson).filter((name) => !specs.some((spec) => spec.name === name)).map((name) => ({ name }));
          specs = [...specs, ...added];
          steps = [...steps, ...added];
          draft = { ...draft, ...fromJson };
        }
        continue;
      }
    }
    await input.hide();
    const outcome = await sendFromReview(services, crew, inputsToSend(specs, draft), pending);
    if (outcome.kind === 'started') {
      await services.presets.forgetUnfinished(crew.url).catch((e: unknown) => services.log.warn(`[${crew.name}] ${errorText(e)}`));
      await services.presets.rememberJsonChoices(crew.url, json.changes()).catch((e: unknown) => services.log.warn(`[${crew.name}] ${errorText(e)}`));
      return outcome.run;
    }
    if (outcome.kind === 'missing') {
      // Ask only for what the crew says is missing, adding names it did not list in /inputs.
      specs = withInputs(specs, outcome.names);
      toAsk = specs.filter((spec) => outcome.names.includes(spec.name));
      steps = [...steps, ...toAsk.filter((spec) => !steps.includes(spec))];
      continue;
    }
    if (outcome.kind === 'invalid') {
      // Only the refused inputs, each in the editor the crew's words call for, with those words in its prompt.
      specs = withInputs(specs, outcome.inputs.map((i) => i.name));
      for (const refused of outcome.inputs) {
        if (refused.expects) {
          json.set(refused.name, refused.expects !== 'text');
        }
      }
      problems = new Map(outcome.inputs.map((i) => [i.name, i.message]));
      toAsk = specs.filter((spec) => problems.has(spec.name));
      steps = [...steps, ...toAsk.filter((spec) => !steps.includes(spec))];
      continue;
    }
    if (outcome.kind === 'stop') {
      // Refused (nothing started) and the notice dismissed: what was typed is offered again next time.
      // Not after a kickoff that may have started: offering it again would invite a second run.
      if (outcome.refused) {
        await keep(draft);
      }
      return undefined;
    }
    // 'review': back to the review step with everything kept.
  }
}

/** GET /inputs under progress (the step before, if any, busy meanwhile); undefined (after telling the user) when it fails. */
async function fetchInputs(services: KickoffServices, crew: Crew, input: StepInput): Promise<CrewInputs | undefined> {
  for (;;) {
    try {
      const inputs = await input.busyUntil((escaped) =>
        vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: inertLine(vscode.l10n.t('Asking {0} which inputs it needs…', crew.name)), cancellable: true },
          (_p, cancellation) => {
            const abort = new AbortController();
            cancellation.onCancellationRequested(() => abort.abort());
            escaped.addEventListener('abort', () => abort.abort());
            return services.client.getInputs(crew.url, { signal: abort.signal });
          },
        ),
      );
      services.crews.setHealth(crew.url, 'ready');
      if (!inputs.described) {
        services.log.info(`${crew.name} does not describe its inputs (${inputs.reason}); asking for them by hand.`);
      }
      const capped = inputs.described ? inputsCapNotice(crew.name, inputs.inputs) : undefined;
      if (capped !== undefined) {
        services.log.warn(capped);
        void showWarning(capped);
      }
      return inputs;
    } catch (error) {
      if (error instanceof Error && error.name === 'AbortError') {
        return undefined;
      }
      services.log.warn(`GET /inputs of ${crew.name} failed: ${errorText(error)}`);
      await input.hide(); // The error's notification has the choices now.
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
