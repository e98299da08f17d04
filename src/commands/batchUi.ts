// The batch UI, in a bundle of its own (dist/batchUi.js, loaded on the first batch command): Kick Off
// Batch with its preview, the results view, export and compare. The store, runner, view and
// CodeLens stay in the main bundle (a batch goes on after a reload without any of this).
import * as vscode from 'vscode';
import type { BatchRunner } from '../batches/batchRunner';
import type { BatchStore } from '../batches/batchStore';
import type { Services } from '../services';
import { BatchResultsPanels } from '../views/batchResultsPanel';
import { type BatchUiKit, registerBatchCommands } from './batchCommands';
import { registerBatchResultsCommands } from './batchResultsCommands';


export interface BatchUi {
  handlers: Map<string, (arg?: unknown) => unknown>;
  panels: BatchResultsPanels;
  dispose(): void;
}

export function createBatchUi(services: Services, store: BatchStore, runner: BatchRunner, kit: BatchUiKit): BatchUi {
  const handlers = new Map<string, (arg?: unknown) => unknown>();
  const register = (id: string, handler: (arg?: unknown) => unknown) => {
    handlers.set(id, handler);
    return new vscode.Disposable(() => handlers.delete(id));
  };
  const panels = new BatchResultsPanels({ extensionUri: services.context.extensionUri, store, runs: services.runs, log: services.log });
  const disposables = [panels, ...registerBatchCommands(services, { store, runner, register, kit }), ...registerBatchResultsCommands(services, store, panels, register)];
  return { handlers, panels, dispose: () => vscode.Disposable.from(...disposables).dispose() };
}
