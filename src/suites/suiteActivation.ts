// What the main bundle holds of suites: the commands, and the moment the rest loads (dist/suiteExplorer.js and the
// suite core): a suite file in the workspace, one created or opened, or a suite command. A workspace without
// suites never loads them, and its Testing view has no Crew Suites.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { errorText } from '../util/errorText';
import type * as Feature from './suiteFeature';
import type { SuitesInspection } from './suiteInspection';

/** The suite core's SUITE_FILE_GLOB (test/unit/suiteExplorerParts.test.ts keeps them equal): read without loading the core. */
export const SUITE_GLOB = '**/*.crew-suite.{yaml,yml}';
/** The same files for the watcher, without braces: VS Code matches `**\/*.ext` without building a regular expression. */
export const SUITE_WATCH_GLOBS = ['**/*.crew-suite.yaml', '**/*.crew-suite.yml'];
const SUITE_FILE = /\.crew-suite\.ya?ml$/i;

/** The commands' names after `crewRuns.suites.` (package.json contributes them). */
const COMMANDS = ['openRun', 'pinBaseline', 'showSummary', 'exportReport', 'runForCrew'] as const;

export function registerSuites(services: Services, inspect?: (inspection: SuitesInspection) => void): { disposables: vscode.Disposable[]; load(): Promise<Feature.SuiteFeature> } {
  let feature: Promise<Feature.SuiteFeature> | undefined;
  const load = () => {
    if (!feature) {
      // require, not import(): the main bundle is compiled through V8's code cache (util/codeCache.ts), where a
      // dynamic import() has no loader to call.
      feature = Promise.resolve().then(() => (require('./suiteFeature') as typeof Feature).createSuiteFeature(services, inspect));
      feature.catch((error: unknown) => services.log.error(`The test suites could not load: ${errorText(error)}`));
    }
    return feature;
  };
  const spot = (uri: vscode.Uri) => {
    if (!feature && SUITE_FILE.test(uri.path)) {
      void load().then(() => spotting.dispose());
    }
  };
  const watchers = SUITE_WATCH_GLOBS.map((glob) => vscode.workspace.createFileSystemWatcher(glob, false, true, true));
  const spotting = vscode.Disposable.from(...watchers, ...watchers.map((watcher) => watcher.onDidCreate(spot)), vscode.workspace.onDidOpenTextDocument((document) => spot(document.uri)));
  vscode.workspace.textDocuments.forEach((document) => spot(document.uri));
  const search = feature
    ? Promise.resolve()
    : Promise.resolve(vscode.workspace.findFiles(SUITE_GLOB, '{**/node_modules/**,**/.git/**}', 1)).then(
        (found) => found.forEach(spot),
        () => undefined,
      );
  const commands = COMMANDS.map((name) =>
    vscode.commands.registerCommand(`crewRuns.suites.${name}`, async (arg?: unknown) => {
      // After a redeploy, in a workspace without suites: nothing to offer, and nothing to load.
      if (name === 'runForCrew' && !feature && !(await search.then(() => feature))) {
        return false;
      }
      return (await load()).commands[name](arg);
    }),
  );
  return { disposables: [spotting, ...commands, { dispose: () => void feature?.then((f) => f.dispose(), () => undefined) }], load };
}
