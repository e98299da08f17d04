import { randomUUID } from 'node:crypto';
import type { Inputs } from '../api/inputValues';
import type { CrewApi } from '../api/client';
import { errorText } from '../util/errorText';
import type { BatchOrigin, RunRecord } from './model';
import type { Logger } from '../util/logger';
import type { RunPoller } from './poller';
import type { RunStore } from './runStore';
import { type Blocked, classifySendFailure, isBlocked, type SendOnce } from './sendOnce';

/** What starting a run takes from the extension's services (structural: runs/ sits below the composition). */
/** The inputs last used per crew, which every start remembers (kept by kickoff/core/inputPresets.ts). */
export interface LastUsedInputs {
  lastUsed(crewUrl: string): Inputs | undefined;
  rememberLastUsed(crewUrl: string, inputs: Inputs): Promise<void>;
}

export interface RunStarting {
  readonly client: Pick<CrewApi, 'kickoff'>;
  readonly runs: Pick<RunStore, 'add'>;
  readonly poller: Pick<RunPoller, 'watch'>;
  readonly presets: Pick<LastUsedInputs, 'rememberLastUsed'>;
  readonly log: Logger;
  /** The machine-wide send-once marks: the kickoff of one pending run goes out once, whichever window sends it. */
  readonly sends: Pick<SendOnce, 'claim'>;
}

/** A pending run's local id: named before its kickoff, it names the kickoff's send-once item and then the run. */
export function newRunId(): string {
  return randomUUID();
}

const kickoffKey = (runId: string) => `kickoff:${runId}`;

/**
 * The kickoff of this pending run is on its way, went, or may have reached the crew (`blocked` says which, and
 * when): nothing was sent. Only a new pending run, which the user chose knowing that, may go.
 */
export class KickoffNotSent extends Error {
  constructor(readonly blocked: Blocked) {
    super(`This kickoff is ${blocked.kind === 'inFlight' ? 'on its way already' : blocked.kind === 'sent' ? 'sent already' : 'one that may have reached the crew already'}; nothing more was sent.`);
    this.name = 'KickoffNotSent';
  }
}

/** By name: the chat tools' bundle has its own copy of this class. */
export function isKickoffNotSent(error: unknown): error is KickoffNotSent {
  return error instanceof Error && error.name === 'KickoffNotSent';
}

export interface StartOptions {
  rememberInputs?: boolean;
  logContext?: string;
  batch?: BatchOrigin;
  /** The pending run this kickoff starts (its mark `kickoff:<runId>`); a new one when not given. */
  runId?: string;
  /** The send-once item the caller holds for this kickoff instead (a batch row's, held by its runner): no other is taken. */
  heldMark?: string;
}

/**
 * POST /kickoff, then record the run at once and start watching it: the one kickoff path, shared by
 * the palette and the chat tools (no UI here; callers add their own progress and messages).
 * `signal` aborts the POST (the palette's Cancel); the chat tools pass none. A batch's rows come
 * through here too, without becoming the crew's "last used" inputs. Whether the kickoff may go is the
 * send-once rule's (sendOnce.ts): throws KickoffNotSent, having sent nothing, when the pending run's mark
 * says it went or may have.
 */
export async function startRun(services: RunStarting, crew: { readonly url: string; readonly name: string }, inputs: Inputs, signal?: AbortSignal, options: StartOptions = {}): Promise<RunRecord> {
  const runId = options.runId ?? newRunId();
  const claim = options.heldMark === undefined ? await services.sends.claim(kickoffKey(runId)) : undefined;
  if (claim && isBlocked(claim)) {
    throw new KickoffNotSent(claim);
  }
  const settle = (outcome: 'sent' | 'uncertain' | 'notSent', kickoffId?: string) =>
    claim?.settle(outcome, kickoffId === undefined ? undefined : { runId, kickoffId }).catch((e: unknown) => services.log.warn(`[${crew.name}] Could not note the kickoff's send: ${errorText(e)}`));
  let kickoffId: string;
  try {
    kickoffId = await services.client.kickoff(crew.url, { inputs }, { signal });
  } catch (error) {
    await settle(classifySendFailure(error) === 'mayHaveActed' ? 'uncertain' : 'notSent');
    throw error;
  }
  // The service has started the run: nothing from here on may throw (a caller would report a failed
  // kickoff and invite a second one). The store keeps a run it cannot save, with a warning that says so.
  await settle('sent', kickoffId);
  const run = await services.runs.add({ id: runId, crewUrl: crew.url, crewName: crew.name, kickoffId, inputs, batch: options.batch });
  services.log.info(`[${crew.name}] Started run ${run.label} (kickoff id ${kickoffId})${options.logContext ? ` ${options.logContext}` : ''}.`);
  services.poller.watch(run.id);
  if (options.rememberInputs !== false) {
    await services.presets.rememberLastUsed(crew.url, inputs).catch((e: unknown) => services.log.warn(`[${crew.name}] Could not remember the inputs used: ${errorText(e)}`));
  }
  return run;
}
