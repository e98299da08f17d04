import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Crew Runs', { log: true });
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand('crewRuns.showLog', () => log.show(true)),
  );
}

export function deactivate(): void {}
