// Which crews came from a platform deployment: the crew itself is a normal crew (crewRuns.crews and its token in
// SecretStorage, as Add Crew saves it); this remembers its deployment (uuid, platform URL), shared by every window.
import * as vscode from 'vscode';
import type { SharedValues } from '../util/sharedValues';
import { isPlainObject } from '../util/objects';

const KEY = 'crewRuns.platform.imported';
const MAX_IMPORTED = 5000;

export interface ImportedCrew {
  /** The crew's normalised URL (its identity). */
  crewUrl: string;
  uuid: string;
  platformUrl: string;
  /** The deployment's name on the platform. */
  name: string;
}

export class ImportedCrews implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: SharedValues) {}

  list(): ImportedCrew[] {
    return entries(this.state.get<unknown>(KEY));
  }

  get(crewUrl: string): ImportedCrew | undefined {
    return this.list().find((c) => c.crewUrl === crewUrl);
  }

  byDeployment(platformUrl: string, uuid: string): ImportedCrew | undefined {
    return this.list().find((c) => c.platformUrl === platformUrl && c.uuid === uuid);
  }

  async set(crew: ImportedCrew): Promise<void> {
    await this.state.change<unknown>(KEY, (stored) => [
      ...entries(stored).filter((c) => c.crewUrl !== crew.crewUrl && !(c.platformUrl === crew.platformUrl && c.uuid === crew.uuid)),
      crew,
    ].slice(-MAX_IMPORTED));
    this.changed.fire();
  }

  /**
   * Forgets the deployment of each crew this window sees go (removed, by hand or by a command; moved by a redeploy),
   * and only those: a crew this window has not seen yet is never taken for a removed one. Another window's import
   * reaches this window's crews list only when its settings catch up, and windows list different crews anyway (a
   * workspace's, the demo's): keeping only what this window lists deleted what another window had just imported.
   */
  followCrews(crews: { list(): readonly { url: string }[]; readonly onDidChange: vscode.Event<void> }, log?: { warn(message: string): void }): vscode.Disposable {
    let listed = new Set(crews.list().map((c) => c.url));
    return crews.onDidChange(() => {
      const now = new Set(crews.list().map((c) => c.url));
      const gone = [...listed].filter((url) => !now.has(url));
      listed = now;
      if (gone.length && this.list().some((c) => gone.includes(c.crewUrl))) {
        void this.forgetAll(gone).catch((error: unknown) => log?.warn(`Could not forget the deployments of removed crews: ${String(error)}`));
      }
    });
  }

  async forget(crewUrl: string): Promise<void> {
    await this.forgetAll([crewUrl]);
  }

  private async forgetAll(crewUrls: readonly string[]): Promise<void> {
    const gone = new Set(crewUrls);
    await this.state.change<unknown>(KEY, (stored) => entries(stored).filter((c) => !gone.has(c.crewUrl)));
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function entries(raw: unknown): ImportedCrew[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  return raw
    .filter(isPlainObject)
    .filter((e) => typeof e.crewUrl === 'string' && typeof e.uuid === 'string' && typeof e.platformUrl === 'string')
    .map((e) => ({ crewUrl: e.crewUrl as string, uuid: e.uuid as string, platformUrl: e.platformUrl as string, name: typeof e.name === 'string' ? e.name : (e.uuid as string) }));
}
