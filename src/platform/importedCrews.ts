// Which crews came from a platform deployment: the crew itself is a normal crew (crewRuns.crews and its token in
// SecretStorage, as Add Crew saves it); this remembers its deployment (uuid, platform URL) in global state.
import * as vscode from 'vscode';
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

interface StateLike {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export class ImportedCrews implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: StateLike) {}

  list(): ImportedCrew[] {
    const raw = this.state.get<unknown>(KEY);
    if (!Array.isArray(raw)) {
      return [];
    }
    return raw
      .filter(isPlainObject)
      .filter((e) => typeof e.crewUrl === 'string' && typeof e.uuid === 'string' && typeof e.platformUrl === 'string')
      .map((e) => ({ crewUrl: e.crewUrl as string, uuid: e.uuid as string, platformUrl: e.platformUrl as string, name: typeof e.name === 'string' ? e.name : (e.uuid as string) }));
  }

  get(crewUrl: string): ImportedCrew | undefined {
    return this.list().find((c) => c.crewUrl === crewUrl);
  }

  byDeployment(platformUrl: string, uuid: string): ImportedCrew | undefined {
    return this.list().find((c) => c.platformUrl === platformUrl && c.uuid === uuid);
  }

  async set(crew: ImportedCrew): Promise<void> {
    const others = this.list().filter((c) => c.crewUrl !== crew.crewUrl && !(c.platformUrl === crew.platformUrl && c.uuid === crew.uuid));
    await this.state.update(KEY, [...others, crew].slice(-MAX_IMPORTED));
    this.changed.fire();
  }

  /** Forgets the deployments of crews no longer configured (removed by hand, or moved by a redeploy). */
  async retain(crewUrls: ReadonlySet<string>): Promise<void> {
    const list = this.list();
    const kept = list.filter((c) => crewUrls.has(c.crewUrl));
    if (kept.length !== list.length) {
      await this.state.update(KEY, kept);
      this.changed.fire();
    }
  }

  async forget(crewUrl: string): Promise<void> {
    await this.state.update(KEY, this.list().filter((c) => c.crewUrl !== crewUrl));
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
