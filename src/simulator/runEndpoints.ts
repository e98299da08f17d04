// The run endpoints of a simulated crew: POST /kickoff starts a SimRun, GET /status/{id} reports it in the
// crew's dialect, POST /stop/{id} stops it.

import { isPlainObject } from '../util/objects';
import * as dialects from './dialects';
import type { Reply } from './types';
import { parseJson } from './http';
import { SimRun } from './runEngine';
import { inputTypeErrors } from './inputTypes';
import { isRequiredDetail } from './selfHosted';
import type { CrewConfig } from './types';
import { type CrewState, DEFAULT_NOT_FOUND_FOR_MS, DEFAULT_PENDING_MS, DEFAULT_STATUS_MAX_EVENTS, dialectOf, type SimWorld } from './world';

/** The defaults a self-hosted crew's schema declares fill its placeholders like a flow's defaults. */
function schemaDefaults(config: CrewConfig): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config.inputDetails ?? {}).flatMap(([name, details]) => (details.default === undefined ? [] : [[name, details.default]])),
  );
}

export function kickoff(world: SimWorld, crew: CrewState, text: string): Reply {
  const { config } = crew;
  const dialect = dialectOf(world, crew);
  const parsed = parseJson(text);
  if (!parsed.ok) {
    return dialects.malformedJson(dialect);
  }
  // Like the live service: inputs outside the `inputs` wrapper do not count.
  const inputs = isPlainObject(parsed.value) && isPlainObject(parsed.value.inputs) ? parsed.value.inputs : {};
  // A crew that validates its inputs' format answers 400, like the documented "bad input format".
  const tooLong = config.maxInputLength === undefined ? undefined : Object.keys(inputs).find((name) => String(inputs[name]).length > config.maxInputLength!);
  if (tooLong !== undefined) {
    return dialects.badInput(dialect, `Input '${tooLong}' is too long (at most ${config.maxInputLength} characters)`);
  }
  // A crew that declares its inputs' types refuses a value of another type, as Pydantic does.
  const typeErrors = inputTypeErrors(inputs, config.inputDetails);
  if (typeErrors.length > 0) {
    return dialects.pydanticValidation(typeErrors);
  }
  if (config.kind === 'crew') {
    // A self-hosted crew's schema may make inputs optional (a default): those may be left out.
    const required = (name: string) => dialect !== 'selfhosted' || isRequiredDetail(config.inputDetails?.[name]);
    const missing = config.inputs.filter((name) => required(name) && (inputs[name] === undefined || inputs[name] === null)).sort();
    if (missing.length > 0) {
      return dialects.missingInputs(dialect, missing);
    }
  }
  const says = (keyword: string | undefined) => keyword !== undefined && Object.values(inputs).some((v) => String(v).includes(keyword));
  const run = new SimRun({
    crewId: config.id,
    crewName: config.name,
    kind: config.kind,
    tasks: config.tasks,
    inputs,
    defaults: { ...schemaDefaults(config), ...config.defaults },
    meta: isPlainObject(parsed.value) ? parsed.value.meta : undefined,
    scenario: says(config.failWhenInputContains) ? 'fail' : (config.scenario ?? 'ok'),
    failureMessage: config.failureMessage,
    slowTool: says(config.slowToolWhenInputContains),
    timeScale: world.timeScale,
    pendingMs: config.pendingMs ?? DEFAULT_PENDING_MS,
    notFoundForMs: config.notFoundForMs ?? DEFAULT_NOT_FOUND_FOR_MS,
    now: Date.now(),
  });
  world.runs.set(run.id, run);
  return dialects.kickoffAccepted(dialect, run.id);
}

export function status(world: SimWorld, crew: CrewState, kickoffId: string): Reply {
  const dialect = dialectOf(world, crew);
  const run = world.runs.get(kickoffId);
  const now = Date.now();
  // A superseded id (the run went on under a new one after a live resume) is no longer tracked.
  if (!run || run.crewId !== crew.config.id || run.hiddenAt(now) || run.kickoffId !== kickoffId) {
    return dialects.statusNotFound(dialect, kickoffId);
  }
  run.advance(now);
  const lagging = crew.laggingPauses?.get(run);
  if (lagging && now < lagging.until) {
    return lagging.reply;
  }
  return statusNow(world, crew, run, now);
}

/** The status body of a run as it is now, in the crew's dialect and shape options. */
export function statusNow(world: SimWorld, crew: CrewState, run: SimRun, now: number): Reply {
  const { config } = crew;
  const { options } = world;
  return dialects.statusReply(run, now, {
    dialect: dialectOf(world, crew),
    livePausedState: config.livePausedState ?? options.livePausedState ?? 'PAUSED',
    exposeTaskId: config.exposeTaskId ?? options.exposeTaskId ?? true,
    liveLastExecutedTaskAsString: config.liveLastExecutedTaskAsString ?? false,
    liveOmitProgress: config.liveOmitProgress ?? false,
    events: {
      mode: (config.oldRuntime ?? options.oldRuntime) ? 'oldRuntime' : (config.statusEvents ?? options.statusEvents ?? true) ? 'on' : 'off',
      maxEvents: config.statusMaxEvents ?? options.statusMaxEvents ?? DEFAULT_STATUS_MAX_EVENTS,
      flushMs: (config.statusEventFlushMs ?? options.statusEventFlushMs ?? 0) * world.timeScale,
    },
  });
}

/** POST /stop/{id}: hosted crews stop a run that has not ended; see crew-api.md "Stopping a run". */
export function stop(world: SimWorld, crew: CrewState, kickoffId: string): Reply {
  const run = world.runs.get(kickoffId);
  if (!run || run.crewId !== crew.config.id || run.kickoffId !== kickoffId) {
    return dialects.stopUnknownExecution(kickoffId);
  }
  return run.stop(Date.now()) ? dialects.stopReply(kickoffId) : dialects.stopAlreadyEnded(run.phase);
}
