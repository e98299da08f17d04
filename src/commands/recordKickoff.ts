// The one way a run is started and recorded: POST /kickoff, then the run goes into the store at once
// and is watched. Kick Off, Run Again and each row of a batch all come through here; what the user
// sees around it (progress, notifications) stays with the caller.
import type { Crew } from '../crews/crewConfig';
import type { RunRecord } from '../runs/model';
import type { Services } from '../services';

export interface RecordKickoffOptions {
  /** Remember the inputs as the crew's "last used" (not for a batch's rows). Default true. */
  rememberInputs?: boolean;
  /** A batch's label for the log line. */
  logContext?: string;
  /** Cancels the POST (the user cancelled the progress); once the crew has answered, the run is recorded. */
  signal?: AbortSignal;
}

export async function recordKickoff(services: Services, crew: Pick<Crew, 'url' | 'name'>, inputs: Record<string, string>, options: RecordKickoffOptions = {}): Promise<RunRecord> {
  const kickoffId = await services.client.kickoff(crew.url, { inputs }, { signal: options.signal });
  const run = await services.runs.add({ crewUrl: crew.url, crewName: crew.name, kickoffId, inputs });
  services.log.info(`[${crew.name}] Started run ${run.label} (kickoff id ${kickoffId})${options.logContext ? ` ${options.logContext}` : ''}.`);
  services.poller.watch(run.id);
  if (options.rememberInputs !== false) {
    await services.presets.rememberLastUsed(crew.url, inputs);
  }
  return run;
}
