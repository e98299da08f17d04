// The address of a trace comparison document: `crew-trace-compare:/<runA>/<runB>/<A ↔ B> · trace.md`. The ids find
// the runs; the name is the tab's title.
import * as vscode from 'vscode';
import type { RunRecord } from '../runTracking/model';
import { safeFileName } from '../util/fileName';

export const COMPARISON_SCHEME = 'crew-trace-compare';

/** `labels` name the document's tab; the ids alone find the runs. */
export function comparisonUri(a: RunRecord, b: RunRecord): vscode.Uri {
  const name = `${safeFileName(`${a.label} ↔ ${b.label}`).replace(/ \u00b7 /g, ' - ')} · trace.md`;
  return vscode.Uri.from({ scheme: COMPARISON_SCHEME, path: `/${a.id}/${b.id}/${name}` });
}

export function parseComparisonUri(uri: vscode.Uri): { a: string; b: string } | undefined {
  const match = uri.scheme === COMPARISON_SCHEME ? /^\/([^/]+)\/([^/]+)\/[^/]*$/.exec(uri.path) : null;
  return match ? { a: match[1], b: match[2] } : undefined;
}
