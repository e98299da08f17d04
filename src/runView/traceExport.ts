// Export Trace…: a run's trace as OpenTelemetry spans (OTLP/JSON, which other trace viewers import) or as Crew Runs
// JSON (the events and the spans built from them), opened as an unsaved JSON document the user saves where they
// like. The events were redacted when read: no token is in either.

import * as vscode from 'vscode';
import { isFinished, type RunRecord } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import { toOtlp } from '../runTracking/trace/otlp';
import { buildTrace } from '../runTracking/trace/traceModel';
import { showInfo } from '../ui/notify';

type Format = 'otlp' | 'json';

interface FormatItem extends vscode.QuickPickItem {
  format: Format;
}

/** Asks for the format (unless `format` says it) and opens the export; undefined when cancelled or there is nothing to export. */
export async function exportTrace(runs: RunStore, run: RunRecord, format?: Format): Promise<vscode.TextDocument | undefined> {
  const { events } = await runs.readEvents(run.id);
  if (events.length === 0) {
    void showInfo(vscode.l10n.t('“{0}” has no trace to export: its crew reported no events.', run.label));
    return undefined;
  }
  const chosen =
    format ??
    (
      await vscode.window.showQuickPick<FormatItem>(
        [
          { format: 'otlp', label: vscode.l10n.t('OpenTelemetry (OTLP/JSON)'), detail: vscode.l10n.t('Spans that Jaeger, Grafana Tempo, Phoenix and other trace viewers import') },
          { format: 'json', label: vscode.l10n.t('Crew Runs JSON'), detail: vscode.l10n.t('The run’s events as the crew reported them, and the spans built from them') },
        ],
        { title: vscode.l10n.t('Export Trace of “{0}”', run.label), placeHolder: vscode.l10n.t('Choose a format') },
      )
    )?.format;
  if (!chosen) {
    return undefined;
  }
  const endedAt = isFinished(run) ? (run.finishedAt ?? run.updatedAt) : Date.now();
  const trace = buildTrace(events, isFinished(run), endedAt);
  const content =
    chosen === 'otlp'
      ? toOtlp(trace.spans, { runId: run.id, crewName: run.crewName, kickoffId: run.kickoffId, endedAt })
      : { crew: run.crewName, kickoffId: run.kickoffId, state: run.state, startedAt: new Date(run.startedAt).toISOString(), events, spans: trace.spans };
  const document = await vscode.workspace.openTextDocument({ language: 'json', content: `${JSON.stringify(content, null, 2)}\n` });
  await vscode.window.showTextDocument(document, { preview: false });
  return document;
}
