// The batch UI, in a bundle of its own (dist/batchUi.js, loaded on the first batch command): Kick Off
// Batch with its preview, the results view, export and compare. The store, runner, view and
// CodeLens stay in the main bundle (a batch goes on after a reload without any of this).
import * as vscode from 'vscode';
import type { BatchRunner } from '../batches/batchRunner';
import type { BatchStore } from '../batches/batchStore';
import type { Services } from '../services';
import { BatchResultsPanels } from '../views/batchResultsPanel';
import { type BatchUiKit, cancelBatchAs, registerBatchCommands, removeBatch } from './batchCommands';
import { exportResults, registerBatchResultsCommands } from './batchResultsCommands';


export interface BatchUi {
  handlers: Map<string, (arg?: unknown) => unknown>;
  panels: BatchResultsPanels;
  /** What the commands always ask first, without asking (the test API only). */
  unprompted: {
    cancel(batchId: string, stopRunning: boolean): Promise<void>;
    remove(batchId: string): Promise<void>;
    exportTo(batchId: string, format: 'jsonl' | 'csv', file: string): Promise<string | undefined>;
  };
  dispose(): void;
}

export function createBatchUi(services: Services, store: BatchStore, runner: BatchRunner, kit: BatchUiKit): BatchUi {
  const handlers = new Map<string, (arg?: unknown) => unknown>();
  const register = (id: string, handler: (arg?: unknown) => unknown) => {
    handlers.set(id, handler);
    return new vscode.Disposable(() => handlers.delete(id));
  };
  const panels = new BatchResultsPanels({ extensionUri: services.context.extensionUri, store, runs: services.runs, log: services.log });
  const batchServices = { store, runner, register, kit };
  const disposables = [panels, ...registerBatchCommands(services, batchServices), ...registerBatchResultsCommands(services, store, panels, register)];
  const batchOf = (batchId: string) => {
    const batch = store.get(batchId);
    if (!batch) {
      throw new Error(`no batch ${batchId}`);
    }
    return batch;
  };
  const unprompted: BatchUi['unprompted'] = {
    cancel: (batchId, stopRunning) => cancelBatchAs(services, batchServices, batchOf(batchId), stopRunning),
    remove: (batchId) => removeBatch(batchServices, batchOf(batchId)),
    exportTo: (batchId, format, file) => exportResults(services, store, batchOf(batchId), { format, file }, 'file'),
  };
  return { handlers, panels, unprompted, dispose: () => vscode.Disposable.from(...disposables).dispose() };
}
