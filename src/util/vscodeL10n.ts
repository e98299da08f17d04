// What `@vscode/l10n` is inside the bundles (esbuild.js aliases it here): VS Code's own l10n, which already
// holds this extension's translations. Lower layers import `@vscode/l10n` because they must not import
// `vscode` (and plain-Node unit tests run them with the real package); in the extension host the package
// would be a second copy per bundle, each to configure, with file and network readers nobody calls.
import * as vscode from 'vscode';

export function t(...args: unknown[]): string {
  return (vscode.l10n.t as (...a: unknown[]) => string)(...args);
}

/** VS Code loaded the bundle already: nothing to configure. */
export function config(): void {}
