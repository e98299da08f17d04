import type { RunRecord } from '../runs/model';
import type { Services } from '../services';

export interface ResumeAnswer {
  approve: boolean;
  feedback: string;
  taskId: string;
  /** The output the human reviewed, kept with the round. */
  output?: string;
}

/**
 * POST /resume, then record the round and follow the run (under its new kickoff id when the service
 * gives one): shared by the review, the commands and the chat tools. Throws CrewApiError; no UI.
 */
export async function sendResume(services: Services, run: RunRecord, answer: ResumeAnswer): Promise<void> {
  const { approve, feedback, taskId, output } = answer;
  const result = await services.client.resume(run.crewUrl, { executionId: run.kickoffId, taskId, humanFeedback: feedback, isApprove: approve });
  await services.runs.addFeedbackRound(run.id, { at: Date.now(), approve, feedback, taskId, output });
  if (result.kind === 'continuedAs') {
    await services.runs.continueAs(run.id, result.kickoffId);
    services.log.info(`[${run.crewName} · ${run.label}] Continues under kickoff id ${result.kickoffId}.`);
  }
  services.log.info(`[${run.crewName} · ${run.label}] ${approve ? 'Approved' : 'Requested changes'}${feedback ? `: ${feedback}` : ''}`);
  services.poller.pokeRun(run.id);
}
