import type { CrewApi } from '../api/client';
import { errorText } from '../util/errorText';
import type { FeedbackDraft, RunDetails, RunRecord } from './model';
import type { Logger } from '../util/logger';
import type { RunPoller } from './poller';
import type { RunStore } from './runStore';
import { classifySendFailure, isBlocked, type SendOnce } from './sendOnce';

/** What sending an answer takes from the extension's services (structural: runs/ sits below the composition). */
export interface RunResuming {
  readonly client: Pick<CrewApi, 'resume'>;
  readonly runs: Pick<RunStore, 'get' | 'addFeedbackRound' | 'readDetails'>;
  readonly poller: Pick<RunPoller, 'pokeRun'>;
  readonly log: Logger;
  /** The machine-wide send-once marks: one answer per round, whichever window sends it. */
  readonly sends: Pick<SendOnce, 'claim' | 'forget'>;
}

export interface ResumeAnswer {
  approve: boolean;
  feedback: string;
  taskId: string;
  /** The output the human reviewed, kept with the round. */
  output?: string;
  /** The feedback round the human answered (`roundOf` when they were asked); the round under way when not given. */
  round?: number;
}

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
 * An answer to this round went out (from this window or another) and may have reached the crew: whether it did
 * is not known, so nothing is sent again by itself. The run's status tells; `forgetUncertainAnswer` lets the
 * user send anyway once they have seen it.
 */
export class AnswerUncertain extends Error {
  constructor(
    readonly runLabel: string,
    readonly sentAt: number,
  ) {
    super(`An answer on ${runLabel} may have reached the crew already; nothing more was sent.`);
    this.name = 'AnswerUncertain';
  }
}

export function isAnswerUncertain(error: unknown): error is AnswerUncertain {
  return error instanceof Error && error.name === 'AnswerUncertain';
}

/** The round a paused run waits in: one more than the rounds answered. */
export function roundOf(details: Pick<RunDetails, 'feedbackRounds'>): number {
  return details.feedbackRounds.length + 1;
}

/** Text kept for the round under way, if any: a draft of an earlier round is never offered (nor sent) again. */
export function draftOfRound(details: Pick<RunDetails, 'feedbackDraft' | 'feedbackRounds'>): FeedbackDraft | undefined {
  const draft = details.feedbackDraft;
  if (!draft) {
    return undefined;
  }
  if (draft.round !== undefined) {
    return draft.round === roundOf(details) ? draft : undefined;
  }
  // Kept before drafts had a round: it belongs to the round under way when it was written.
  const last = details.feedbackRounds[details.feedbackRounds.length - 1];
  return last === undefined || draft.at > last.at ? draft : undefined;
}

const resumeKey = (run: RunRecord, round: number) => `resume:${run.id}:${round}`;

/** The user has seen that an earlier answer to this round may have arrived, and sends anyway. */
export async function forgetUncertainAnswer(services: RunResuming, run: RunRecord): Promise<void> {
  await services.sends.forget(resumeKey(run, roundOf(await services.runs.readDetails(run.id))));
}

/**
 * POST /resume, then record the round and follow the run (under its new kickoff id when the service
 * gives one): shared by the review, the commands and the chat tools. Throws (CrewApiError) only when the
 * request failed. Once the service took the answer nothing may offer to send it again: the round and the
 * new kickoff id are one write (the store keeps in memory what it cannot save), and `notSaved` says why
 * for the caller to tell the user.
 */
export async function sendResume(services: RunResuming, run: RunRecord, answer: ResumeAnswer): Promise<{ notSaved?: string }> {
  // A double click, the same review answered from two places or two windows: one answer per round, never two
  // /resume. The round's mark is machine-wide (sendOnce.ts) and outlives the send: a window that has not seen
  // the answer yet finds it there.
  const current = services.runs.get(run.id);
  if (run.needsFeedback && current !== undefined && !current.needsFeedback) {
    throw new AnswerAlreadyGiven(run.label);
  }
  const round = roundOf(await services.runs.readDetails(run.id));
  if (answer.round !== undefined && answer.round !== round) {
    throw new AnswerAlreadyGiven(run.label); // The round the human saw was answered (here or elsewhere) meanwhile.
  }
  const claim = await services.sends.claim(resumeKey(run, round));
  if (isBlocked(claim)) {
    if (claim.kind === 'uncertain') {
      throw new AnswerUncertain(run.label, claim.mark.at);
    }
    throw new AnswerAlreadyGiven(run.label);
  }
  let outcome: 'sent' | 'uncertain' | 'notSent' = 'uncertain';
  try {
    const result = await resumeAndRecord(services, run, answer);
    outcome = 'sent';
    return result;
  } catch (error) {
    outcome = classifySendFailure(error) === 'mayHaveActed' ? 'uncertain' : 'notSent';
    throw error;
  } finally {
    await claim.settle(outcome);
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
