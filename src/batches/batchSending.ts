// What the batch runner needs from the rest of the extension: each row kicked off through the same
// path as Kick Off (startRecordedRun; the runner holds the row's send-once mark), and a finished run's result in brief.
import { CrewApiError } from '../api/errors';
import { classifySendFailure } from '../runs/core/sendOnce';
import { batchRowKey, type RunEnd, type SendOutcome } from './core/batchRunner';
import type { Batch, BatchRow } from './core/model';
import { isFinished } from '../runs/core/model';
import type { Services } from '../services';
import { describeError } from '../ui/errorMessages';
import { startRecordedRun } from '../runs/core/startRecordedRun';
import { errorText } from '../util/errorText';
import { withoutUndefined } from '../util/objects';

/** Retry-After of a 429 without one. */
const DEFAULT_RETRY_MS = 2_000;

export async function sendBatchRow(services: Services, batch: Batch, row: BatchRow): Promise<SendOutcome> {
  const crew = services.crews.get(batch.crewUrl);
  if (!crew) {
    return { kind: 'refused', message: `${batch.crewName} is no longer in your crews.` };
  }
  try {
    const run = await startRecordedRun(services, crew, row.inputs, undefined, {
      rememberInputs: false,
      logContext: `(batch ${batch.source}, row ${row.index + 1})`,
      batch: { source: batch.source, row: row.index + 1 },
      heldMark: batchRowKey(batch.id, row.index), // The runner holds the row's send-once mark.
    });
    return { kind: 'sent', runId: run.id, kickoffId: run.kickoffId };
  } catch (error) {
    const message = describeError(error, crew.name);
    services.log.warn(`[${crew.name}] Batch ${batch.source}, row ${row.index + 1}: ${errorText(error)}`);
    // The one rule for "it may have reached the crew" (runs/core/sendOnce.ts): such a row is never sent again by itself.
    if (!(error instanceof CrewApiError) || classifySendFailure(error) === 'mayHaveActed') {
      return { kind: 'uncertain', message };
    }
    switch (error.kind) {
      case 'rateLimited':
        return { kind: 'retryLater', delayMs: error.retryAfterMs ?? DEFAULT_RETRY_MS, message };
      // The crew cannot take any row until the user acts: the rows wait in the queue, not marked failed.
      case 'noToken':
      case 'unauthorized':
        return { kind: 'crewUnavailable', message, final: true };
      case 'network':
      case 'timeout':
        // Not reached before anything was written (refused, no such host, a certificate): nothing started.
        return { kind: 'crewUnavailable', message, final: false };
      case 'missingInputs':
      case 'badRequest':
      case 'notFound':
      case 'refused':
        return { kind: 'refused', message };
      default:
        // Network, timeout, 5xx, an unreadable answer: the run may have started. Never sent again by itself.
        return { kind: 'uncertain', message };
    }
  }
}

export async function batchRunEnd(services: Services, runId: string): Promise<RunEnd | undefined> {
  const run = services.runs.get(runId);
  if (!run) {
    return { kind: 'gone' };
  }
  if (!isFinished(run)) {
    return undefined;
  }
  const details = await services.runs.readDetails(runId);
  const usage = details.lastSnapshot?.usage;
  const tokens = usage?.total_tokens;
  // The model calls' own tally where the crew reports events; else the run's totals, of no named model.
  const totals = usage && withoutUndefined({ promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens });
  const usageByModel = details.events?.byModel ?? (totals && Object.keys(totals).length > 0 ? { '': totals } : undefined);
  return {
    kind: 'ended',
    result: {
      state: run.state,
      finishedAt: run.finishedAt,
      durationMs: run.finishedAt !== undefined ? run.finishedAt - run.startedAt : undefined,
      totalTokens: typeof tokens === 'number' ? tokens : undefined,
      usageByModel,
      error: run.state === 'failed' ? (details.error ?? run.message) : undefined,
    },
    output: details.finalOutput?.text,
  };
}
