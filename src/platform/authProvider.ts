// "CrewAI" in VS Code's Accounts menu: the session is the personal access token of the configured platform
// (PlatformAccount); signing out there deletes it, and leaves every crew token alone.
import * as vscode from 'vscode';
import { originOf } from '../api/url';
import type { PlatformAccount, PlatformSignIn } from './account';
import type { PlatformClient } from './platformClient';
import { askSignIn } from './signIn';

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

  constructor(
    private readonly account: PlatformAccount,
    private readonly client: PlatformClient,
  ) {
    this.disposables = [this.changed, account.onDidChange(() => void this.announce())];
  }

  async getSessions(): Promise<vscode.AuthenticationSession[]> {
    const session = await this.current();
    this.last = session;
    return session ? [session] : [];
  }

  async createSession(): Promise<vscode.AuthenticationSession> {
    const signIn = await askSignIn(this.client);
    if (!signIn) {
      throw new Error(vscode.l10n.t('Signing in to CrewAI was cancelled.'));
    }
    await this.account.save(signIn);
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

  /** Tells VS Code what changed since the last look (this window, another one, or the setting). */
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
