import * as vscode from 'vscode';
import type { TokenKind } from '../api/tokenRules';

// Keyed by the crew's normalised URL, never its name: a workspace can rename a crew, not move a token.
const KEY_PREFIX = 'crewRuns.token:';

interface StoredToken {
  token: string;
  kind: TokenKind;
}

/** Crew tokens in SecretStorage; nothing else in the extension holds one longer than a request. */
export class TokenStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with the crew URL whose token changed, also when another window changed it. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((e) => {
      if (e.key.startsWith(KEY_PREFIX)) {
        this.changed.fire(e.key.slice(KEY_PREFIX.length));
      }
    });
  }

  async get(crewUrl: string): Promise<string | undefined> {
    return (await this.read(crewUrl))?.token;
  }

  async kind(crewUrl: string): Promise<TokenKind | undefined> {
    return (await this.read(crewUrl))?.kind;
  }

  async has(crewUrl: string): Promise<boolean> {
    return (await this.read(crewUrl)) !== undefined;
  }

  async set(crewUrl: string, token: string, kind: TokenKind): Promise<void> {
    const value: StoredToken = { token, kind };
    await this.secrets.store(KEY_PREFIX + crewUrl, JSON.stringify(value));
  }

  async delete(crewUrl: string): Promise<void> {
    await this.secrets.delete(KEY_PREFIX + crewUrl);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private async read(crewUrl: string): Promise<StoredToken | undefined> {
    const raw = await this.secrets.get(KEY_PREFIX + crewUrl);
    if (!raw) {
      return undefined;
    }
    try {
      const parsed = JSON.parse(raw) as Partial<StoredToken>;
      if (typeof parsed.token === 'string' && parsed.token) {
        return { token: parsed.token, kind: parsed.kind === 'user' ? 'user' : 'organization' };
      }
    } catch {
      // Not ours or damaged: treated as no token, so the user is asked again.
    }
    return undefined;
  }
}
