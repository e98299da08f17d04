// Compare Trace with Another Run…: two runs' traces step by step (runs/core/trace/traceCompare.ts) in a read-only
// Markdown document, `crew-trace-compare:/<runA>/<runB>/<A ↔ B> · trace.md`, shown in the Markdown preview. The ids
// find the runs, so the text is built from their kept events whenever VS Code asks, and follows them while they run.
import * as vscode from 'vscode';
import { isFinished, type RunRecord } from '../runs/core/model';
import type { RunStore } from '../runs/core/runStore';
import { compareTraces } from '../runs/core/trace/traceCompare';
import type { Span } from '../runs/core/trace/span';
import { buildTrace } from '../runs/core/trace/traceModel';
import { formatRelative, stateLabel } from '../ui/format';
import { safeFileName } from '../util/fileName';
import { type ComparedRun, comparisonMarkdown } from './traceComparisonMarkdown';

export const COMPARISON_SCHEME = 'crew-trace-compare';

/** `labels` name the document's tab; the ids alone find the runs. */
export function comparisonUri(a: RunRecord, b: RunRecord): vscode.Uri {
  const name = `${safeFileName(`${a.label} ↔ ${b.label}`).replace(/ · /g, ' - ')} · trace.md`;
  return vscode.Uri.from({ scheme: COMPARISON_SCHEME, path: `/${a.id}/${b.id}/${name}` });
}

export function parseComparisonUri(uri: vscode.Uri): { a: string; b: string } | undefined {
  const match = uri.scheme === COMPARISON_SCHEME ? /^\/([^/]+)\/([^/]+)\/[^/]*$/.exec(uri.path) : null;
  return match ? { a: match[1], b: match[2] } : undefined;
}

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

  private async contentOf(uri: vscode.Uri): Promise<string> {
    const ids = parseComparisonUri(uri);
    const a = ids && this.runs.get(ids.a);
    const b = ids && this.runs.get(ids.b);
    if (!a || !b) {
      return `${vscode.l10n.t('One of these runs is no longer in the history.')}\n`;
    }
    const [left, right] = await Promise.all([this.side(a), this.side(b)]);
    const comparison = left.spans && right.spans ? compareTraces(left.spans, right.spans) : undefined;
    return comparisonMarkdown(left.run, right.run, comparison);
  }

  /** A run's header and its spans; no spans when it has no events. */
  private async side(record: RunRecord): Promise<{ run: ComparedRun; spans?: readonly Span[] }> {
    const [{ events }, details] = await Promise.all([this.runs.readEvents(record.id), this.runs.readDetails(record.id)]);
    const log = details.lastSnapshot?.eventLog;
    const kept = details.events?.kept ?? 0;
    const dropped = details.events?.dropped ?? 0;
    const run: ComparedRun = {
      crewName: record.crewName,
      label: record.label,
      started: `${new Date(record.startedAt).toLocaleString()} (${formatRelative(record.startedAt)})`,
      state: record.needsFeedback ? vscode.l10n.t('needs feedback') : stateLabel(record.state),
      unseen: log?.count !== undefined ? Math.max(0, log.count - kept - dropped) : 0,
    };
    if (events.length === 0) {
      // A status without event fields, or with them null, is a runtime that keeps no log; one that lists none, a run without events.
      run.noEvents = log?.present || !details.lastSnapshot ? 'none' : 'off';
      return { run };
    }
    const ended = isFinished(record);
    return { run, spans: buildTrace(events, ended, ended ? (record.finishedAt ?? record.updatedAt) : Date.now()).spans };
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
