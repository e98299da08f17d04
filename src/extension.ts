// Activation registers only what VS Code may ask for by name before anything else happens (command
// ids, the run view's serializer, document providers, the chat tools). The runs, crews, views and
// polling (core.ts, its own bundle dist/core.js) start just after activate() returns.
import * as vscode from 'vscode';
import { registerChat } from './chat/registerChat';
import { LazyCommands } from './commands/lazyCommands';
import type * as CoreModule from './core';
import type * as TestApiModule from './testApi';
import { errorText } from './util/errorText';
import { startSoon } from './util/startSoon';
import { showError } from './views/notify';

/** The command implementations, loaded on first use; deactivate stops the demo crews if they were started. */
let commands: LazyCommands | undefined;
let core: Promise<CoreModule.Core> | undefined;
/** Set by deactivate(): a core not started yet is not started at all (its disposables would outlive the window). */
let deactivated = false;

export function activate(context: vscode.ExtensionContext) {
  deactivated = false;
  const log = vscode.window.createOutputChannel('Crew Runs', { log: true });
  const lazy = new LazyCommands();
  commands = lazy;
  const started = startSoon(() => startCore(context, log, lazy), () => deactivated);
  started.catch((error: unknown) => {
    lazy.fail(error);
    if (!deactivated) {
      log.error(`Crew Runs could not start: ${errorText(error)}`);
      const showLog = vscode.l10n.t('Show Log');
      void showError(vscode.l10n.t('Crew Runs could not start: {0}', errorText(error)), showLog).then((choice) => choice === showLog && log.show());
    }
  });
  core = started;
  const services = started.then((c) => c.services);
  services.catch(() => undefined); // Told above; a chat tool called later gets the error itself.
  context.subscriptions.push(log, ...lazy.register(), ...registerChat(services, context.extensionUri, log));

  if (process.env.CREW_RUNS_TEST_HOOKS !== '1') {
    return undefined;
  }
  // Integration tests only: dist/testApi.js, never loaded (nor packaged) otherwise.
  return started.then(({ services, parts }) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createTestApi } = require('./testApi') as typeof TestApiModule;
    return createTestApi(services, { ...parts, commands: lazy });
  });
}

function startCore(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, lazy: LazyCommands): CoreModule.Core {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startCore } = require('./core') as typeof CoreModule;
  return startCore(context, log, lazy);
}

export async function deactivate(): Promise<void> {
  deactivated = true;
  // Awaited here, not in a disposable: the host does not wait for what a dispose() starts, so the
  // leases outlived a reload and the reloaded window could not poll its runs until they expired.
  await Promise.all([commands?.deactivate(), core?.then((c) => c.release(), () => undefined)]);
  commands = undefined;
  core = undefined;
}
