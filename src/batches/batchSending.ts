// What the batch runner needs from the rest of the extension: each row kicked off through the same
// path as Kick Off (startRun; the runner holds the row's send-once mark), and a finished run's result in brief.
import { queuedKickoffFailure } from '../runTracking/sendOnce';
import { batchRowKey, type RunEnd, type SendOutcome } from './core/batchRunner';
import type { Batch, BatchRow } from './core/model';
import { isFinished } from '../runTracking/model';
import type { Services } from '../services';
import { describeError } from '../ui/errorMessages';
import { startRun } from '../runTracking/startRun';
import { errorText } from '../util/errorText';
import { withoutUndefined } from '../util/objects';

export async function sendBatchRow(services: Services, batch: Batch, row: BatchRow): Promise<SendOutcome> {
  const crew = services.crews.get(batch.crewUrl);
  if (!crew) {
    return { kind: 'refused', message: `${batch.crewName} is no longer in your crews.` };
  }
  try {
    const run = await startRun(services, crew, row.inputs, undefined, {
      rememberInputs: false,
      logContext: `(batch ${batch.source}, row ${row.index + 1})`,
      batch: { source: batch.source, row: row.index + 1 },
      heldMark: batchRowKey(batch.id, row.index), // The runner holds the row's send-once mark.
    });
    return { kind: 'sent', runId: run.id, kickoffId: run.kickoffId };
  } catch (error) {
    const message = describeError(error, crew.name);
    services.log.warn(`[${crew.name}] Batch ${batch.source}, row ${row.index + 1}: ${errorText(error)}`);
    // The one reading of a queued kickoff's failure (runTracking/sendOnce.ts): a row that may have reached the crew is never sent again by itself.
    return { ...queuedKickoffFailure(error), message };
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
