// Access to the extension under test from inside the extension host.
import * as vscode from 'vscode';

export const EXTENSION_ID = 'crew-runs.crew-runs';

/** A crew with its token, through the test API (`crewRuns.addCrew` takes no arguments: no command carries a token). */
export async function addCrewWithToken(args: { url: string; name?: string; token: string; tokenKind?: 'organization' | 'user' }): Promise<unknown> {
  const api = await getExtensionApi<{ addCrew?: (a: typeof args) => Promise<unknown> } | undefined>();
  if (!api?.addCrew) {
    throw new Error('the test API is not exported (CREW_RUNS_TEST_HOOKS=1)');
  }
  return api.addCrew(args);
}

/** Kicks off without the review (the test API): `crewRuns.kickOff { crew, inputs }` only pre-fills the review. */
export async function kickOffWithoutReview<T extends string | undefined = string | undefined>(args: { crew: string; inputs: Record<string, string> }): Promise<T> {
  const api = await getExtensionApi<{ kickOff?: (a: typeof args) => Promise<string | undefined> } | undefined>();
  if (!api?.kickOff) {
    throw new Error('the test API is not exported (CREW_RUNS_TEST_HOOKS=1)');
  }
  return (await api.kickOff(args)) as T;
}

export function getExtension(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (!extension) {
    throw new Error(`extension ${EXTENSION_ID} is not installed in this extension host`);
  }
  return extension;
}

/**
 * Activates the extension and returns what activate() returned. With CREW_RUNS_TEST_HOOKS=1
 * that is its test API; its shape is owned by the extension, so callers narrow it themselves.
 */
export async function getExtensionApi<T = unknown>(): Promise<T> {
  const extension = getExtension();
  return (await extension.activate()) as T;
}

/** Command ids the manifest contributes (package.json contributes.commands). */
export function contributedCommands(): string[] {
  const manifest = getExtension().packageJSON as { contributes?: { commands?: { command: string }[] } };
  return (manifest.contributes?.commands ?? []).map((entry) => entry.command);
}

/** Typed wrapper, so tests read `await executeCommand<T>('crewRuns.x')`. */
export function executeCommand<T = unknown>(command: string, ...args: unknown[]): Promise<T> {
  return Promise.resolve(vscode.commands.executeCommand<T>(command, ...args));
}

/** Opens the Crew Runs view container in the side bar. */
export function showCrewRunsView(): Promise<unknown> {
  return executeCommand('workbench.view.extension.crewRuns');
}
