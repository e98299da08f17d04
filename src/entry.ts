// What VS Code loads (dist/extension.js): the composition root, src/extension.ts, bundled as dist/core.js and
// read through V8's code cache (src/util/codeCache.ts) kept in the extension's global storage, so that
// every start after the first skips compiling it. Nothing else lives here.
import type * as vscode from 'vscode';
import * as path from 'node:path';
import { loadWithCodeCache } from './util/codeCache';
import type * as Core from './extension';

/** Long enough for the start-up code (the tree, the run history, the poller) to have run and been compiled. */
const SAVE_CACHE_AFTER_MS = 10_000;

let core: typeof Core | undefined;

export function activate(context: vscode.ExtensionContext): ReturnType<typeof Core.activate> {
  const loaded = loadWithCodeCache<typeof Core>(path.join(__dirname, 'core.js'), path.join(context.globalStorageUri.fsPath, 'code-cache'));
  core = loaded.exports;
  const api = core.activate(context);
  if (!loaded.fromCache) {
    const timer = setTimeout(() => void loaded.persist(), SAVE_CACHE_AFTER_MS);
    context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }
  return api;
}

export function deactivate(): Promise<void> | undefined {
  return core?.deactivate();
}
