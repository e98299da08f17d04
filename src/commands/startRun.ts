import type { Crew } from '../crews/crewConfig';
import type { RunRecord } from '../runs/model';
import type { Services } from '../services';

/**
 * POST /kickoff, then record the run at once and start watching it: the one kickoff path, shared by
 * the palette and the chat tools (no UI here; callers add their own progress and messages).
 * `signal` aborts the POST (the palette's Cancel); the chat tools pass none.
 */
export async function startRecordedRun(services: Services, crew: Crew, inputs: Record<string, string>, signal?: AbortSignal): Promise<RunRecord> {
  const kickoffId = await services.client.kickoff(crew.url, { inputs }, { signal });
  const run = await services.runs.add({ crewUrl: crew.url, crewName: crew.name, kickoffId, inputs });
  services.log.info(`[${crew.name}] Started run ${run.label} (kickoff id ${kickoffId}).`);
  services.poller.watch(run.id);
  await services.presets.rememberLastUsed(crew.url, inputs);
  return run;
}
