// "Run Batch…" above a table of inputs: JSON Lines and CSV files, and JSON files that hold an
// array of objects (not every package.json or tsconfig.json gets one).
import * as vscode from 'vscode';

export const BATCH_SOURCE_SELECTOR: vscode.DocumentSelector = [
  { pattern: '**/*.{jsonl,ndjson,csv}' },
  { pattern: '**/*.json' },
];

export class BatchCodeLensProvider implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (document.uri.path.toLowerCase().endsWith('.json') && !/^\s*\[\s*\{/.test(document.getText(new vscode.Range(0, 0, 20, 0)))) {
      return [];
    }
    return [
      new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), {
        title: vscode.l10n.t('$(run-all) Run Batch…'),
        tooltip: vscode.l10n.t('Run a crew once per row of this table'),
        command: 'crewRuns.kickOffBatch',
        arguments: [document.uri],
      }),
    ];
  }
}
