// Lower layers (runs, batches, chat) translate with @vscode/l10n because they must not import `vscode`. Each
// bundle in dist/ (the main one and every lazily loaded one) holds its own copy of that module, so each entry
// point calls this once; with no bundle loaded (English) @vscode/l10n returns the English text as it is.
import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';

export function useL10nBundle(): void {
  if (vscode.l10n.bundle) {
    l10n.config({ contents: vscode.l10n.bundle });
  }
}
