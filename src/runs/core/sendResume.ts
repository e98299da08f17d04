import type { CrewApi } from '../../api/client';
import { errorText } from '../../util/errorText';
import type { Logger, RunRecord } from './model';
import type { RunPoller } from './poller';
import type { RunStore } from './runStore';

/** What sending an answer takes from the extension's services (structural: runs/ sits below the composition). */
export interface RunResuming {
  readonly client: Pick<CrewApi, 'resume'>;
  readonly runs: Pick<RunStore, 'get' | 'addFeedbackRound'>;
  readonly poller: Pick<RunPoller, 'pokeRun'>;
  readonly log: Logger;
}

export interface ResumeAnswer {
  approve: boolean;
  feedback: string;
  taskId: string;
  /** The output the human reviewed, kept with the round. */
  output?: string;
}

/** Runs whose /resume is on its way from this window. */
const resuming = new Set<string>();

/** A second answer for a run while the first is on its way, or after it was taken: nothing was sent. */
export class AnswerAlreadyGiven extends Error {
  constructor(readonly runLabel: string) {
    super(`Feedback on ${runLabel} is already on its way or was taken; nothing more was sent.`);
    this.name = 'AnswerAlreadyGiven';
  }
}

/** By name: the chat tools' bundle has its own copy of this class. */
export function isAnswerAlreadyGiven(error: unknown): error is AnswerAlreadyGiven {
  return error instanceof Error && error.name === 'AnswerAlreadyGiven';
}

/**
 * POST /resume, then record the round and follow the run (under its new kickoff id when the service
 * gives one): shared by the review, the commands and the chat tools. Throws (CrewApiError) only when the
 * request failed. Once the service took the answer nothing may offer to send it again: the round and the
 * new kickoff id are one write (the store keeps in memory what it cannot save), and `notSaved` says why
 * for the caller to tell the user.
 */
export async function sendResume(services: RunResuming, run: RunRecord, answer: ResumeAnswer): Promise<{ notSaved?: string }> {
  // A double click, or the same review answered from two places: one answer per pause, never two /resume.
  const current = services.runs.get(run.id);
  if (resuming.has(run.id) || (run.needsFeedback && current !== undefined && !current.needsFeedback)) {
    throw new AnswerAlreadyGiven(run.label);
  }
  resuming.add(run.id);
  try {
    return await resumeAndRecord(services, run, answer);
  } finally {
    resuming.delete(run.id);
  }
}

async function resumeAndRecord(services: RunResuming, run: RunRecord, answer: ResumeAnswer): Promise<{ notSaved?: string }> {
  const { approve, feedback, taskId, output } = answer;
  const result = await services.client.resume(run.crewUrl, { executionId: run.kickoffId, taskId, humanFeedback: feedback, isApprove: approve });
  const failures: string[] = [];
  const record = (write: () => Promise<void>) => write().catch((e: unknown) => void failures.push(errorText(e)));
  const next = result.kind === 'continuedAs' ? result.kickoffId : undefined;
  await record(() => services.runs.addFeedbackRound(run.id, { at: Date.now(), approve, feedback, taskId, output }, next));
  if (next) {
    services.log.info(`[${run.crewName} · ${run.label}] Continues under kickoff id ${next}.`);
  }
  if (failures.length) {
    services.log.error(`[${run.crewName} · ${run.label}] Feedback was sent, but saving it here failed: ${failures.join('; ')}`);
  }
  services.log.info(`[${run.crewName} · ${run.label}] ${approve ? 'Approved' : 'Requested changes'}${feedback ? `: ${feedback}` : ''}`);
  services.poller.pokeRun(run.id);
  return { notSaved: failures[0] };
}
