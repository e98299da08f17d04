// "CrewAI" in VS Code's Accounts menu: the session is the personal access token of the configured platform
// (PlatformAccount); signing out there deletes it, and leaves every crew token alone.
import * as vscode from 'vscode';
import { originOf } from '../api/url';
import { showError } from '../ui/notify';
import { SecretStorageError, type PlatformAccount, type PlatformSignIn } from './account';
import type { PlatformClient } from './platformClient';
import type * as SignInModule from './signIn';
import type { DemoPlatform } from './signIn';

/** createSession's rejection once the user was told why (or gave up): the callers say nothing more. */
export class SignInEnded extends Error {}

export const AUTH_PROVIDER_ID = 'crewai';

function sessionOf(signIn: PlatformSignIn): vscode.AuthenticationSession {
  const host = originOf(signIn.baseUrl).replace(/^https?:\/\//, '');
  return {
    id: `crewai:${signIn.baseUrl}`,
    accessToken: signIn.token,
    account: { id: signIn.organizationId ?? signIn.baseUrl, label: signIn.organizationName ? `${signIn.organizationName} (${host})` : host },
    scopes: [],
  };
}

export class CrewAIAuthenticationProvider implements vscode.AuthenticationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>();
  readonly onDidChangeSessions = this.changed.event;
  /** The session VS Code was last told of (by getSessions or an announced change). */
  private last: vscode.AuthenticationSession | undefined;
  private readonly disposables: vscode.Disposable[];
  /** The platform the demo crews serve while they run here (crews/demoCommands.ts), offered at sign-in. */
  private demoPlatform: () => DemoPlatform | undefined = () => undefined;

  constructor(
    private readonly account: PlatformAccount,
    private readonly client: PlatformClient,
  ) {
    this.disposables = [this.changed, account.onDidChange(() => void this.announce())];
  }

  /** Sign-in offers the demo's platform whenever `demo` gives one. */
  offerDemoPlatform(demo: () => DemoPlatform | undefined): void {
    this.demoPlatform = demo;
  }

  async getSessions(): Promise<vscode.AuthenticationSession[]> {
    const session = await this.current();
    this.last = session;
    return session ? [session] : [];
  }

  async createSession(): Promise<vscode.AuthenticationSession> {
    // The sign-in flow is its own bundle (dist/signIn.js), loaded now: most windows never sign in.
    const { askSignIn } = require('./signIn') as typeof SignInModule;
    const signIn = await askSignIn(this.client, this.demoPlatform());
    if (!signIn) {
      throw new SignInEnded(vscode.l10n.t('Signing in to CrewAI was cancelled.'));
    }
    try {
      await this.account.save(signIn);
    } catch (error) {
      if (!(error instanceof SecretStorageError)) {
        throw error;
      }
      // The one error of a keyring that refuses: where the user acted, saying what did not happen.
      void showError(vscode.l10n.t('Could not keep your personal access token, so you are not signed in. {0}', error.message));
      throw new SignInEnded(error.message);
    }
    await this.announce();
    return sessionOf(signIn);
  }

  async removeSession(): Promise<void> {
    await this.account.signOut();
    await this.announce();
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }

  private async current(): Promise<vscode.AuthenticationSession | undefined> {
    const signIn = await this.account.current();
    return signIn ? sessionOf(signIn) : undefined;
  }

  /** Tells VS Code what changed since the last look (this window, another one, or the setting). Never rejects. */
  private async announce(): Promise<void> {
    const before = this.last;
    const now = await this.current();
    this.last = now;
    if (!before && now) {
      this.changed.fire({ added: [now], removed: [], changed: [] });
    } else if (before && !now) {
      this.changed.fire({ added: [], removed: [before], changed: [] });
    } else if (before && now && (before.id !== now.id || before.accessToken !== now.accessToken || before.account.id !== now.account.id)) {
      this.changed.fire(before.id === now.id ? { added: [], removed: [], changed: [now] } : { added: [now], removed: [before], changed: [] });
    }
  }
}
