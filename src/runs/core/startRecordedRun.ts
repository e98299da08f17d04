import type { Inputs } from '../../api/inputValues';
import type { CrewApi } from '../../api/client';
import { errorText } from '../../util/errorText';
import type { BatchOrigin, Logger, RunRecord } from './model';
import type { RunPoller } from './poller';
import type { RunStore } from './runStore';

/** What starting a run takes from the extension's services (structural: runs/ sits below the composition). */
export interface RunStarting {
  readonly client: Pick<CrewApi, 'kickoff'>;
  readonly runs: Pick<RunStore, 'add'>;
  readonly poller: Pick<RunPoller, 'watch'>;
  readonly presets: { rememberLastUsed(crewUrl: string, inputs: Inputs): Promise<void> };
  readonly log: Logger;
}

/**
 * POST /kickoff, then record the run at once and start watching it: the one kickoff path, shared by
 * the palette and the chat tools (no UI here; callers add their own progress and messages).
 * `signal` aborts the POST (the palette's Cancel); the chat tools pass none. A batch's rows come
 * through here too, without becoming the crew's "last used" inputs.
 */
export async function startRecordedRun(
  services: RunStarting,
  crew: { readonly url: string; readonly name: string },
  inputs: Inputs,
  signal?: AbortSignal,
  options: { rememberInputs?: boolean; logContext?: string; batch?: BatchOrigin } = {},
): Promise<RunRecord> {
  const kickoffId = await services.client.kickoff(crew.url, { inputs }, { signal });
  // The service has started the run: nothing from here on may throw (a caller would report a failed
  // kickoff and invite a second one). The store keeps a run it cannot save, with a warning that says so.
  const run = await services.runs.add({ crewUrl: crew.url, crewName: crew.name, kickoffId, inputs, batch: options.batch });
  services.log.info(`[${crew.name}] Started run ${run.label} (kickoff id ${kickoffId})${options.logContext ? ` ${options.logContext}` : ''}.`);
  services.poller.watch(run.id);
  if (options.rememberInputs !== false) {
    await services.presets.rememberLastUsed(crew.url, inputs).catch((e: unknown) => services.log.warn(`[${crew.name}] Could not remember the inputs used: ${errorText(e)}`));
  }
  return run;
}
