// Show Deployment Logs: a read-only document (scheme crew-deployment-log) with the deployment's build log,
// its last MAX_LOG_LINES lines, one line each: timestamp, level, message. Followed while a redeploy runs;
// Filter Deployment Log keeps the lines that contain a text (a level, an error's words).
import * as vscode from 'vscode';
import type { ServicesWithPlatform } from './platformServices';
import type { LogText } from '../api/logLines';
import { errorText } from '../util/errorText';
import { PlatformError } from './platformClient';

export const LOG_SCHEME = 'crew-deployment-log';

/** The document's text: the log's lines (read on the status reader's thread), under a line saying how many earlier ones it left out. */
export function logDocumentText(log: LogText): string {
  const head = log.dropped ? `${vscode.l10n.t('… {0} earlier lines not shown', log.dropped)}\n` : '';
  return `${head}${log.text}\n`;
}

/** The lines of `text` (formatted log lines) that contain `filter`, case-insensitively, under a line that says so. */
export function filterLogText(text: string, filter: string): string {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  const needle = filter.toLowerCase();
  const kept = lines.filter((line) => line.toLowerCase().includes(needle));
  const head = vscode.l10n.t('Lines containing “{0}”: {1} of {2} (Filter Deployment Log to change)', filter, kept.length, lines.length);
  return [head, ...kept].join('\n') + '\n';
}

export class DeploymentLogDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Per open log document: the text its lines must contain. */
  private readonly filters = new Map<string, string>();

  constructor(private readonly services: ServicesWithPlatform) {}

  uriOf(crewUrl: string, name: string): vscode.Uri {
    const file = `${name.replace(/[^\w.-]+/g, '-').slice(0, 60) || 'deployment'}.log`;
    return vscode.Uri.from({ scheme: LOG_SCHEME, path: `/${file}`, query: new URLSearchParams({ crew: crewUrl }).toString() });
  }

  filterOf(uri: vscode.Uri): string | undefined {
    return this.filters.get(uri.toString());
  }

  /** Shows only the lines containing `filter` (empty: every line); the log is read again. */
  setFilter(uri: vscode.Uri, filter: string): void {
    if (filter) {
      this.filters.set(uri.toString(), filter);
    } else {
      this.filters.delete(uri.toString());
    }
    this.changed.fire(uri);
  }

  /** The open log of this crew (if any) reads the platform again. */
  refresh(crewUrl: string): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === LOG_SCHEME && new URLSearchParams(doc.uri.query).get('crew') === crewUrl) {
        this.changed.fire(doc.uri);
      }
    }
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const crewUrl = new URLSearchParams(uri.query).get('crew') ?? '';
    const imported = this.services.platform.imported.get(crewUrl);
    if (!imported) {
      return vscode.l10n.t('{0} is not a crew imported from the platform.', crewUrl) + '\n';
    }
    const signIn = await this.services.platform.account.current();
    if (!signIn || signIn.baseUrl !== imported.platformUrl) {
      return vscode.l10n.t('Sign in to {0} (CrewAI in the Accounts menu) to read this deployment\'s logs.', imported.platformUrl) + '\n';
    }
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    try {
      const log = await this.services.platform.client.logText(signIn, imported.uuid, abort.signal);
      if (!log.count) {
        return vscode.l10n.t('The platform has no deployment logs for {0} yet.', imported.name) + '\n';
      }
      const text = logDocumentText(log);
      const filter = this.filters.get(uri.toString());
      return filter ? filterLogText(text, filter) : text;
    } catch (error) {
      const words = error instanceof PlatformError && error.kind === 'unauthorized' ? vscode.l10n.t('the platform refused your personal access token; sign in again') : errorText(error);
      return vscode.l10n.t('Could not read the deployment logs of {0}: {1}', imported.name, words) + '\n';
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
