// Batches, wired: their store and runner, the view, the results panels and the CodeLens (their commands are
// registered with the others, registerCommands.ts). activate() builds the parts (extension.ts createBatches), hands
// them to one BatchFeature, `start`s it once the runs are loaded and `release`s it on the way out.
import * as vscode from 'vscode';
import type { BatchRunner, BatchRunnerDeps } from './core/batchRunner';
import type { BatchStore } from './core/batchStore';
import { type Batch, batchProgress } from './core/model';
import type { LeaseManager } from '../storage/lease';
import { POLLER_DEFAULTS } from '../runTracking/poller';
import type { Services } from '../services';
import { systemClock } from '../util/clock';
import { errorText } from '../util/errorText';
import { BATCH_SOURCE_SELECTOR, BatchCodeLensProvider } from './batchCodeLens';
import type { BatchesTreeProvider } from './batchesTree';
import { announceBatchEnd, announceBatchPaused } from './batchNotice';
import type { BatchResultsPanels } from './batchResultsPanel';
import { cancelBatchAs, removeBatch, rerunFailed } from './batchCommands';
import { batchRunEnd, sendBatchRow } from './batchSending';
import { exportResults } from './batchResultsCommands';
import { followContext } from '../ui/contextKey';

/** The parts of the batches feature, built by the composition root (extension.ts createBatches). */
export interface BatchParts {
  readonly store: BatchStore;
  readonly tree: BatchesTreeProvider;
  readonly runner: BatchRunner;
  readonly panels: BatchResultsPanels;
  /** Which window sends a batch's rows: the lease mechanism the poller uses, in a folder of its own. */
  readonly leases: LeaseManager;
}

/** How a batch row is sent and its run's end awaited: through the one kickoff path and the run store. */
export function batchRunnerDeps(services: Services, store: BatchStore, leases: LeaseManager): BatchRunnerDeps {
  return {
    store,
    send: (batch, row) => sendBatchRow(services, batch, row),
    runEnd: (runId) => batchRunEnd(services, runId),
    endRecorded: (runId) => services.runs.batchEndRecorded(runId),
    lease: leases,
    clock: systemClock,
    logger: services.log,
    maxPerCrew: POLLER_DEFAULTS.maxConcurrentPerCrew,
    sends: services.sends,
  };
}

export class BatchFeature implements BatchParts {
  readonly store: BatchStore;
  readonly tree: BatchesTreeProvider;
  readonly runner: BatchRunner;
  readonly panels: BatchResultsPanels;
  readonly leases: LeaseManager;

  constructor(
    private readonly services: Services,
    parts: BatchParts,
  ) {
    ({ store: this.store, tree: this.tree, runner: this.runner, panels: this.panels, leases: this.leases } = parts);
    // Listens as long as the runner lives (stop() ends its events).
    this.runner.onDidFinish((id) => {
      const batch = this.store.get(id);
      if (batch) {
        announceBatchEnd(batch);
      }
    });
    this.runner.onDidPause(({ batchId, reason }) => {
      const batch = this.store.get(batchId);
      if (batch) {
        announceBatchPaused(batch, reason, async () => void (await this.runner.resume(batchId)));
      }
    });
  }

  /** Batches still sending or running (the status bar counts them). */
  activeCount(): number {
    return this.store.list().filter((b) => !batchProgress(b).finished && !b.cancelled).length;
  }

  register(): vscode.Disposable[] {
    return [
      this.tree,
      vscode.window.createTreeView('crewRuns.batches', { treeDataProvider: this.tree, showCollapseAll: true }),
      vscode.languages.registerCodeLensProvider(BATCH_SOURCE_SELECTOR, new BatchCodeLensProvider()),
      this.panels,
      { dispose: () => this.store.dispose() },
      // The batch commands are in the palette once there is a batch to act on.
      followContext('crewRuns.hasBatches', () => this.store.list().length > 0, (listener) => this.store.onDidChange(listener)),
      this.services.runs.onDidChange(({ runIds }) => void this.runner.runsChanged(runIds)),
    ];
  }

  /** Once the runs are loaded: read the batches and go on with those no other window holds. */
  start(): void {
    this.leases.startRenewing();
    void this.refresh();
  }

  /** Batches another window made or changed; one whose window closed is taken over here. */
  async refresh(): Promise<void> {
    try {
      await this.store.load();
      if (this.store.list().some((b) => !batchProgress(b).finished)) {
        await this.runner.resumeAll();
      }
    } catch (error) {
      this.services.log.error(`Could not load the batches: ${errorText(error)}`);
    }
  }

  /** No row goes out after this; then the batches' leases are given up for the next window. */
  async release(): Promise<void> {
    await this.runner.stop();
    await this.store.flush();
    await this.leases.dispose();
  }
}

/** Cancel, remove and export without their questions (the test API only: no command reaches these). */
export function batchActionsWithoutAsking(services: Services, batches: BatchFeature) {
  const batchOf = (batchId: string): Batch => {
    const batch = batches.store.get(batchId);
    if (!batch) {
      throw new Error(`no batch ${batchId}`);
    }
    return batch;
  };
  return {
    cancel: (batchId: string, stopRunning: boolean): Promise<void> => cancelBatchAs(services, batches, batchOf(batchId), stopRunning),
    remove: (batchId: string): Promise<void> => removeBatch(batches, batchOf(batchId)),
    resume: async (batchId: string): Promise<void> => void (await batches.runner.resume(batchOf(batchId).id)),
    rerunFailed: (batchId: string): Promise<string | undefined> => rerunFailed(services, batches, batchOf(batchId)),
    exportTo: (batchId: string, format: 'jsonl' | 'csv', file: string): Promise<string | undefined> => exportResults(services, batches.store, batchOf(batchId), { format, file }, 'file'),
  };
}
