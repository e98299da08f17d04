// The signed-in platform account: the personal access token and the organization chosen, in SecretStorage
// keyed by the normalised platform URL (a changed URL never receives another platform's token). Nothing
// else holds the token longer than a request; it is never logged, shown or put in state.
import * as vscode from 'vscode';
import { isPlainObject } from '../util/objects';
import { readPlatformUrl } from './platformUrl';
import type { PlatformCredentials } from './platformClient';

const KEY_PREFIX = 'crewRuns.platformToken:';

export interface PlatformSignIn extends PlatformCredentials {
  organizationName?: string;
}

export class PlatformAccount implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** The sign-in changed (this window or another, or the platform URL setting). */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.disposables = [
      this.changed,
      secrets.onDidChange((e) => e.key.startsWith(KEY_PREFIX) && this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('crewRuns.platform.url') && this.changed.fire()),
    ];
  }

  /** The platform URL now, or undefined when the setting is not a usable URL. */
  baseUrl(): string | undefined {
    const url = readPlatformUrl();
    return url.ok ? url.url : undefined;
  }

  /** The sign-in for the configured platform URL, if any. */
  async current(): Promise<PlatformSignIn | undefined> {
    const baseUrl = this.baseUrl();
    if (!baseUrl) {
      return undefined;
    }
    const raw = await this.secrets.get(KEY_PREFIX + baseUrl);
    if (!raw) {
      return undefined;
    }
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isPlainObject(parsed) && typeof parsed.token === 'string' && parsed.token) {
        return {
          baseUrl,
          token: parsed.token,
          organizationId: typeof parsed.organizationId === 'string' && parsed.organizationId ? parsed.organizationId : undefined,
          organizationName: typeof parsed.organizationName === 'string' && parsed.organizationName ? parsed.organizationName : undefined,
        };
      }
    } catch {
      // Damaged: treated as signed out, so the user is asked again.
    }
    return undefined;
  }

  async save(signIn: PlatformSignIn): Promise<void> {
    const value = { token: signIn.token, organizationId: signIn.organizationId, organizationName: signIn.organizationName };
    await this.secrets.store(KEY_PREFIX + signIn.baseUrl, JSON.stringify(value));
  }

  /** Deletes the personal token of the configured platform; crew tokens are not touched. */
  async signOut(): Promise<void> {
    const baseUrl = this.baseUrl();
    if (baseUrl) {
      await this.secrets.delete(KEY_PREFIX + baseUrl);
    }
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
