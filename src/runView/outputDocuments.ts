// Read-only virtual documents of run outputs (scheme `crew-run`), for Open Output in Editor, task
// rows and Compare Output with Another Run:
//   crew-run:/<runId>/<run> · output.md     the final output (a JSON result inside a ```json fence)
//   crew-run:/<runId>/<run> · output.json   the final output as JSON (a Markdown output as a JSON string)
//   crew-run:/<runId>/<run> · task-<n>.md   the n-th task output (1-based)
// `<run>` (the run's label, as a file name) is there for the tab title only; the id finds the run.
// Open documents follow the run: onDidChange fires when the run changes and the text differs.

import * as vscode from 'vscode';
import type { FinalOutput } from '../api/types';
import type { RunDetails, RunRecord } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import { stateLabel } from '../ui/format';
import { runDocumentName } from '../util/fileName';

export const OUTPUT_SCHEME = 'crew-run';

export type OutputPart = { kind: 'output'; format: 'md' | 'json' } | { kind: 'task'; index: number };

export interface OutputAddress {
  runId: string;
  part: OutputPart;
}

/** Parses a `crew-run:` URI; undefined when it is not one of ours. */
export function parseOutputUri(uri: vscode.Uri): OutputAddress | undefined {
  if (uri.scheme !== OUTPUT_SCHEME) {
    return undefined;
  }
  const m = /^\/([^/]+)\/(?:[^/]* \u00b7 )?(?:output\.(md|json)|task-(\d+)\.md)$/.exec(uri.path);
  if (!m) {
    return undefined;
  }
  if (m[2]) {
    return { runId: m[1], part: { kind: 'output', format: m[2] as 'md' | 'json' } };
  }
  const n = Number(m[3]);
  return n >= 1 ? { runId: m[1], part: { kind: 'task', index: n - 1 } } : undefined;
}

/** `runLabel` names the run in the tab title (several runs' outputs open at once look alike otherwise). */
export function outputUri(runId: string, part: OutputPart, runLabel?: string): vscode.Uri {
  const name = part.kind === 'output' ? `output.${part.format}` : `task-${part.index + 1}.md`;
  return vscode.Uri.from({ scheme: OUTPUT_SCHEME, path: `/${runId}/${runLabel === undefined ? name : runDocumentName(runLabel, name)}` });
}

/** The final output as Markdown text (a JSON result fenced). */
export function finalAsMarkdown(final: FinalOutput): string {
  return final.kind === 'json' ? `\`\`\`json\n${final.text}\n\`\`\`\n` : final.text;
}

/** The final output as JSON text (a Markdown output as one JSON string). */
export function finalAsJson(final: FinalOutput): string {
  return final.kind === 'json' ? final.text : JSON.stringify(final.text);
}

/** The final output as the user would copy it: the text itself (pretty JSON for a JSON result). */
export function finalAsText(final: FinalOutput): string {
  return final.text;
}

export class RunOutputDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  /** Lengths and samples of what each open document was last given, so unchanged runs fire nothing. */
  private readonly provided = new Map<string, string>();

  constructor(private readonly runs: RunStore) {
    this.disposables.push(
      runs.onDidChange(({ runIds }) => void this.refresh(new Set(runIds))),
      vscode.workspace.onDidCloseTextDocument((doc) => this.provided.delete(doc.uri.toString())),
    );
  }

  /** Registers the provider for the `crew-run` scheme. */
  register(): vscode.Disposable {
    const registration = vscode.workspace.registerTextDocumentContentProvider(OUTPUT_SCHEME, this);
    this.disposables.push(registration);
    return registration;
  }

  uri(runId: string, part: OutputPart): vscode.Uri {
    return outputUri(runId, part, this.runs.get(runId)?.label);
  }

  /** The document to show a run's final output in: JSON for a JSON result, else Markdown. */
  async finalOutputUri(runId: string): Promise<vscode.Uri> {
    const details = await this.runs.readDetails(runId);
    return this.uri(runId, { kind: 'output', format: details.finalOutput?.kind === 'json' ? 'json' : 'md' });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const text = await this.contentOf(uri);
    this.provided.set(uri.toString(), signature(text));
    return text;
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }

  private async contentOf(uri: vscode.Uri): Promise<string> {
    const address = parseOutputUri(uri);
    if (!address) {
      return vscode.l10n.t('Not a run output address.');
    }
    const record = this.runs.get(address.runId);
    if (!record) {
      return vscode.l10n.t('This run is no longer in the history.');
    }
    const details = await this.runs.readDetails(address.runId);
    return documentText(record, details, address.part);
  }

  private async refresh(runIds: Set<string>): Promise<void> {
    for (const doc of vscode.workspace.textDocuments) {
      const address = doc.uri.scheme === OUTPUT_SCHEME ? parseOutputUri(doc.uri) : undefined;
      if (!address || !runIds.has(address.runId)) {
        continue;
      }
      try {
        const text = await this.contentOf(doc.uri);
        if (this.provided.get(doc.uri.toString()) !== signature(text)) {
          this.changed.fire(doc.uri);
        }
      } catch {
        // The run's file is being rewritten; the next change tries again.
      }
    }
  }
}

export function documentText(record: RunRecord, details: RunDetails, part: OutputPart): string {
  const notYet = () => vscode.l10n.t('No output yet (the run is {0}).', stateLabel(record.state));
  if (part.kind === 'task') {
    const task = details.tasks[part.index];
    return task ? String(task.output ?? '') : notYet();
  }
  const final = details.finalOutput;
  if (!final) {
    return part.format === 'json' ? JSON.stringify(notYet()) : notYet();
  }
  return part.format === 'json' ? finalAsJson(final) : finalAsMarkdown(final);
}

function signature(text: string): string {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  }
  return `${text.length}:${hash >>> 0}`;
}
