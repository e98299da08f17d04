// A suite run's summary (the core's Markdown: the tally, the comparison with its baseline, the cases that did not
// pass; the crew's words made inert) as a read-only document shown in the Markdown preview.
import * as vscode from 'vscode';

export const SUMMARY_SCHEME = 'crew-suite-summary';

export class SuiteSummaries implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(SUMMARY_SCHEME, this);

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** The summary of a suite's last run, at a URI of its own (one per suite, replaced by the next run's). */
  set(suiteKey: string, suiteName: string, markdown: string): vscode.Uri {
    const name = suiteName.replace(/[^\p{L}\p{N} ._-]+/gu, ' ').trim().slice(0, 80) || 'suite';
    const uri = vscode.Uri.from({ scheme: SUMMARY_SCHEME, path: `/${name}.md`, query: encodeURIComponent(suiteKey) });
    this.contents.set(uri.toString(), markdown);
    this.changed.fire(uri);
    return uri;
  }

  async show(uri: vscode.Uri): Promise<void> {
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      // No Markdown preview in this editor: the text itself.
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
