// Compare Trace with Another Run…: two runs' traces step by step (runTracking/trace/traceCompare.ts) in a read-only
// Markdown document, `crew-trace-compare:/<runA>/<runB>/<A ↔ B> · trace.md`, shown in the Markdown preview. The ids
// find the runs, so the text is built from their kept events whenever VS Code asks, and follows them while they run.
import * as vscode from 'vscode';
import type { RunRecord } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import { COMPARISON_SCHEME, comparisonUri, parseComparisonUri } from './traceComparisonUri';
import type * as TraceViews from './traceViews';

export class TraceComparisons implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  /** What each open document was last given, so a poll that changed nothing it shows fires nothing. */
  private readonly provided = new Map<string, string>();
  private readonly refreshing = new Set<string>();

  constructor(private readonly runs: RunStore) {
    this.disposables.push(
      runs.onDidChange(({ runIds }) => void this.refresh(new Set(runIds))),
      vscode.workspace.onDidCloseTextDocument((doc) => this.provided.delete(doc.uri.toString())),
    );
  }

  register(): vscode.Disposable {
    const registration = vscode.workspace.registerTextDocumentContentProvider(COMPARISON_SCHEME, this);
    this.disposables.push(registration);
    return registration;
  }

  /** Opens the comparison of `a` (left, the run compared) with `b` in the Markdown preview; returns its document. */
  async open(a: RunRecord, b: RunRecord): Promise<vscode.TextDocument> {
    const uri = comparisonUri(a, b);
    const document = await vscode.workspace.openTextDocument(uri);
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      // No Markdown preview (the built-in extension disabled): the text reads well enough as it is.
      await vscode.window.showTextDocument(document, { preview: true });
    }
    return document;
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const text = await this.contentOf(uri);
    this.provided.set(uri.toString(), text);
    return text;
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }

  /** Built by the lazily loaded part (traceViews.ts): the trace model and the comparison load with the first document. */
  private contentOf(uri: vscode.Uri): Promise<string> {
    return (require('./traceViews') as typeof TraceViews).comparisonContent(this.runs, uri);
  }

  private async refresh(runIds: ReadonlySet<string>): Promise<void> {
    for (const doc of vscode.workspace.textDocuments) {
      const ids = parseComparisonUri(doc.uri);
      const key = doc.uri.toString();
      if (!ids || !(runIds.has(ids.a) || runIds.has(ids.b)) || this.refreshing.has(key)) {
        continue;
      }
      this.refreshing.add(key);
      try {
        if (this.provided.get(key) !== (await this.contentOf(doc.uri))) {
          this.changed.fire(doc.uri);
        }
      } catch {
        // A run's file is being rewritten; the next change tries again.
      } finally {
        this.refreshing.delete(key);
      }
    }
  }
}
