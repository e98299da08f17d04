// The signed-in platform account: the personal access token and the organization chosen, in SecretStorage
// keyed by the normalised platform URL (a changed URL never receives another platform's token). Nothing
// else holds the token longer than a request; it is never logged, shown or put in state. A secret storage that
// fails (a locked or missing system keyring) is one clear error where the user acted, never a rejection left
// unhandled: reading reports signed out (and why, through unreadable()), writing throws SecretStorageError.
import * as vscode from 'vscode';
import { errorText } from '../util/errorText';
import { isPlainObject } from '../util/objects';
import { readPlatformUrl } from './platformUrl';
import type { PlatformCredentials } from './platformClient';

const KEY_PREFIX = 'crewRuns.platformToken:';

export interface PlatformSignIn extends PlatformCredentials {
  organizationName?: string;
}

/** VS Code's secret storage refused to keep, read or delete the sign-in; the message says so in the user's words. */
export class SecretStorageError extends Error {
  constructor(readonly reason: unknown) {
    super(vscode.l10n.t('VS Code’s secret storage (the system keyring) failed: {0}', errorText(reason)));
    this.name = 'SecretStorageError';
  }
}

export class PlatformAccount implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** The sign-in changed (this window or another, or the platform URL setting). */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[];
  /** Why the last read of the sign-in failed; undefined once one worked. */
  private readFailure: SecretStorageError | undefined;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log?: { warn(message: string): void },
  ) {
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

  /**
   * The sign-in for the configured platform URL, if any. Never rejects (timers and events ask too): a secret storage
   * that fails reads as signed out, and unreadable() says why.
   */
  async current(): Promise<PlatformSignIn | undefined> {
    const baseUrl = this.baseUrl();
    if (!baseUrl) {
      return undefined;
    }
    let raw: string | undefined;
    try {
      raw = await this.secrets.get(KEY_PREFIX + baseUrl);
      this.readFailure = undefined;
    } catch (error) {
      const failure = new SecretStorageError(error);
      if (this.readFailure?.message !== failure.message) {
        this.log?.warn(`Could not read the CrewAI sign-in from VS Code's secret storage: ${errorText(error)}`); // Once, not at every refresh.
      }
      this.readFailure = failure;
      return undefined;
    }
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

  /** Why the last look at the sign-in found none although there may be one: the secret storage failed. */
  unreadable(): SecretStorageError | undefined {
    return this.readFailure;
  }

  /** Keeps the sign-in; throws SecretStorageError when the secret storage refuses. */
  async save(signIn: PlatformSignIn): Promise<void> {
    const value = { token: signIn.token, organizationId: signIn.organizationId, organizationName: signIn.organizationName };
    try {
      await this.secrets.store(KEY_PREFIX + signIn.baseUrl, JSON.stringify(value));
    } catch (error) {
      throw new SecretStorageError(error);
    }
  }

  /** Deletes the personal token of the configured platform; crew tokens are not touched. Throws SecretStorageError. */
  async signOut(): Promise<void> {
    const baseUrl = this.baseUrl();
    if (baseUrl) {
      try {
        await this.secrets.delete(KEY_PREFIX + baseUrl);
      } catch (error) {
        throw new SecretStorageError(error);
      }
    }
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
