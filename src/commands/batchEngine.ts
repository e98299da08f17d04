// The batch runner with its way of sending rows, in a bundle of its own (dist/batchEngine.js, see esbuild.js):
// BatchFeature makes it on the first batch to send or resume, so a window without batches never loads it.
import { BatchRunner } from '../batches/batchRunner';
import type { BatchStore } from '../batches/batchStore';
import type { LeaseManager } from '../runs/lease';
import { POLLER_DEFAULTS } from '../runs/poller';
import type { Services } from '../services';
import { systemClock } from '../util/clock';
import { describeError } from '../views/errorMessages';
import type { BatchUiKit } from './batchCommands';
import { batchRunEnd, sendBatchRow } from './batchSending';
import { canOfferStop, stopRun } from './stopCommands';


/** What the batch UI (dist/batchUi.js) takes from outside its bundle; it loads with this one. */
export const batchUiKit: BatchUiKit = { describeError, stopRun, canOfferStop };

export function createBatchRunner(services: Services, store: BatchStore, lease: LeaseManager): BatchRunner {
  return new BatchRunner({
    store,
    send: (batch, row) => sendBatchRow(services, batch, row),
    runEnd: (runId) => batchRunEnd(services, runId),
    lease,
    clock: systemClock,
    logger: services.log,
    maxPerCrew: POLLER_DEFAULTS.maxConcurrentPerCrew,
  });
}
