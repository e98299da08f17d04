import * as vscode from 'vscode';
import { inert, inertLine } from '../util/inertText';

// The one way to show a notification: its text may carry a crew's words (input names, error details, run labels,
// crew names from a workspace), and VS Code turns `[x](command:…)` in a message into a link that runs the command.
// eslint.config.mjs forbids calling vscode.window.show*Message and setStatusBarMessage anywhere else.

type Rest<T extends string> = [] | [vscode.MessageOptions, ...T[]] | T[];
type Show = (message: string, ...rest: string[]) => Thenable<unknown>;

function show<T extends string>(fn: Show, message: string, rest: Rest<T>): Thenable<T | undefined> {
  const [first, ...others] = rest;
  const args = typeof first === 'object' ? [{ ...first, detail: first.detail === undefined ? undefined : inert(first.detail) }, ...others] : rest;
  return fn(inert(message), ...(args as string[])) as Thenable<T | undefined>;
}

export function showInfo<T extends string>(message: string, ...rest: Rest<T>): Thenable<T | undefined> {
  return show((m, ...r) => vscode.window.showInformationMessage(m, ...r), message, rest);
}

export function showWarning<T extends string>(message: string, ...rest: Rest<T>): Thenable<T | undefined> {
  return show((m, ...r) => vscode.window.showWarningMessage(m, ...r), message, rest);
}

export function showError<T extends string>(message: string, ...rest: Rest<T>): Thenable<T | undefined> {
  return show((m, ...r) => vscode.window.showErrorMessage(m, ...r), message, rest);
}

/**
 * The one way to ask before an action that costs money or cannot be taken back: a modal warning saying what
 * will happen; true only for the action's own button. Commands that other extensions and links can run with
 * an argument ask here before they act.
 */
export async function confirmAction(message: string, detail: string, action: string): Promise<boolean> {
  return (await showWarning(message, { modal: true, detail }, action)) === action;
}

/** A passing message in the status bar, which renders `$(icon)`: a run label or URL could hold one. */
export function showStatusMessage(text: string, hideAfterMs: number): vscode.Disposable {
  return vscode.window.setStatusBarMessage(inertLine(text), hideAfterMs);
}
