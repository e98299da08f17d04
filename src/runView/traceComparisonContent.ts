// The text of a trace comparison document (traceComparison.ts): both runs' kept events built into span trees,
// compared step by step, written as Markdown. Loaded on first use with the rest of traceViews.ts.
import * as vscode from 'vscode';
import { isFinished, type RunRecord } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import type { Span } from '../runTracking/trace/span';
import { compareTraces } from '../runTracking/trace/traceCompare';
import { buildTrace } from '../runTracking/trace/traceModel';
import { formatRelative, stateLabel } from '../ui/format';
import { parseComparisonUri } from './traceComparisonUri';
import { type ComparedRun, comparisonMarkdown } from './traceComparisonMarkdown';

/** The comparison document at `uri`: its two runs' traces step by step, or why one cannot be shown. */
export async function comparisonContent(runs: RunStore, uri: vscode.Uri): Promise<string> {
  const ids = parseComparisonUri(uri);
  const a = ids && runs.get(ids.a);
  const b = ids && runs.get(ids.b);
  if (!a || !b) {
    return `${vscode.l10n.t('One of these runs is no longer in the history.')}\n`;
  }
  const [left, right] = await Promise.all([side(runs, a), side(runs, b)]);
  const comparison = left.spans && right.spans ? compareTraces(left.spans, right.spans) : undefined;
  return comparisonMarkdown(left.run, right.run, comparison);
}

/** A run's header and its spans; no spans when it has no events. */
async function side(runs: RunStore, record: RunRecord): Promise<{ run: ComparedRun; spans?: readonly Span[] }> {
  const [{ events }, details] = await Promise.all([runs.readEvents(record.id), runs.readDetails(record.id)]);
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
