import type { RunRecord } from '../runs/model';
import type { Services } from '../services';
import { errorText } from '../util/errorText';

export interface ResumeAnswer {
  approve: boolean;
  feedback: string;
  taskId: string;
  /** The output the human reviewed, kept with the round. */
  output?: string;
}

/**
 * POST /resume, then record the round and follow the run (under its new kickoff id when the service
 * gives one): shared by the review, the commands and the chat tools. Throws (CrewApiError) only when the
 * request failed. Once the service took the answer nothing may offer to send it again: the round and the
 * new kickoff id are one write (the store keeps in memory what it cannot save), and `notSaved` says why
 * for the caller to tell the user.
 */
export async function sendResume(services: Services, run: RunRecord, answer: ResumeAnswer): Promise<{ notSaved?: string }> {
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
