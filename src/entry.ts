// What VS Code loads (dist/extension.js): the composition root, src/extension.ts, bundled as dist/core.js and
// read through V8's code cache (src/util/codeCache.ts) kept in the extension's global storage, so that
// every start after the first skips compiling it. Nothing else lives here.
import type * as vscode from 'vscode';
import * as path from 'node:path';
import { loadWithCodeCache } from './util/codeCache';
import type * as Core from './extension';

let core: typeof Core | undefined;

export function activate(context: vscode.ExtensionContext): ReturnType<typeof Core.activate> {
  const loaded = loadWithCodeCache<typeof Core>(path.join(__dirname, 'core.js'), path.join(context.globalStorageUri.fsPath, 'code-cache'));
  core = loaded.exports;
  const api = core.activate(context);
  if (!loaded.fromCache) {
    // Just after activate(): its functions are compiled by then and go into the cache too. A window may
    // close within seconds (a quick look, a reload): later, and the next start would compile again.
    const timer = setTimeout(() => void loaded.persist(), 0);
    context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }
  return api;
}

export function deactivate(): Promise<void> | undefined {
  return core?.deactivate();
}
