// Batches, wired: their store and runner, the view, the results panels, the CodeLens and the
// commands. activate() builds one, `start`s it once the runs are loaded and `release`s it on the way out.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BatchRunner } from '../batches/batchRunner';
import { BatchStore } from '../batches/batchStore';
import { batchProgress } from '../batches/model';
import { LeaseManager } from '../runs/lease';
import type { Liveness } from '../runs/windowLiveness';
import type { Services } from '../services';
import { BATCH_SOURCE_SELECTOR, BatchCodeLensProvider } from '../views/batchCodeLens';
import { BatchesTreeProvider } from '../views/batchesTree';
import { announceBatchEnd, announceBatchPaused } from '../views/batchNotice';
import type { BatchResultsPanels } from '../views/batchResultsPanel';
import type * as BatchEngineModule from './batchEngine';
import type * as BatchUiModule from './batchUi';
import { errorText } from '../util/errorText';

/** Registered at activation; their handlers load with the batch UI on first use. */
const UI_COMMANDS = [
  'crewRuns.kickOffBatch',
  'crewRuns.cancelBatch',
  'crewRuns.resumeBatch',
  'crewRuns.rerunFailedRows',
  'crewRuns.removeBatch',
  'crewRuns.openBatchResults',
  'crewRuns.exportBatchResults',
  'crewRuns.compareBatches',
];

export class BatchFeature {
  readonly store: BatchStore;
  readonly tree: BatchesTreeProvider;
  private readonly leases: LeaseManager;
  private ui?: BatchUiModule.BatchUi;
  private batchRunner?: BatchRunner;

  constructor(
    private readonly services: Services,
    storageDir: string,
    window: { id: string; liveness: Liveness },
  ) {
    // The lease mechanism the poller uses decides which window sends a batch's rows.
    this.leases = new LeaseManager(path.join(storageDir, 'leases', 'batches'), window.id, services.log, { liveness: window.liveness });
    this.store = new BatchStore(path.join(storageDir, 'batches'), services.log);
    this.tree = new BatchesTreeProvider(this.store, services.runs);
  }

  /** Made (dist/batchEngine.js loaded) on the first batch to send or resume. */
  get runner(): BatchRunner {
    if (!this.batchRunner) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { createBatchRunner } = require('./batchEngine') as typeof BatchEngineModule;
      this.batchRunner = createBatchRunner(this.services, this.store, this.leases);
      // Listens as long as the runner lives (stop() ends its events).
      const runner = this.batchRunner;
      runner.onDidFinish((id) => {
        const batch = this.store.get(id);
        if (batch) {
          announceBatchEnd(batch);
        }
      });
      runner.onDidPause(({ batchId, reason }) => {
        const batch = this.store.get(batchId);
        if (batch) {
          announceBatchPaused(batch, reason, () => runner.resume(batchId));
        }
      });
    }
    return this.batchRunner;
  }

  /** The results panels (tests); they exist once a batch command has loaded the batch UI. */
  get panels(): BatchResultsPanels {
    return this.loadUi().panels;
  }

  /** Cancel, remove and export without their questions (the test API only). */
  get unprompted(): BatchUiModule.BatchUi['unprompted'] {
    return this.loadUi().unprompted;
  }

  private loadUi(): BatchUiModule.BatchUi {
    if (!this.ui) {
      // A plain require: the bundle loads dist/batchUi.js synchronously, like dist/transport.js.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { createBatchUi } = require('./batchUi') as typeof BatchUiModule;
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { batchUiKit } = require('./batchEngine') as typeof BatchEngineModule;
      this.ui = createBatchUi(this.services, this.store, this.runner, batchUiKit);
    }
    return this.ui;
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
      { dispose: () => this.store.dispose() },
      { dispose: () => this.ui?.dispose() },
      // No runner yet: no batch runs in this window.
      this.services.runs.onDidChange(({ runIds }) => void this.batchRunner?.runsChanged(runIds)),
      ...UI_COMMANDS.map((id) => vscode.commands.registerCommand(id, (arg?: unknown) => this.loadUi().handlers.get(id)?.(arg))),
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
    await this.batchRunner?.stop();
    await this.store.flush();
    await this.leases.dispose();
  }
}
