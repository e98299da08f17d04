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

  /** Forgets the deployments of crews no longer configured (removed by hand, or moved by a redeploy). */
  async retain(crewUrls: ReadonlySet<string>): Promise<void> {
    if (this.list().some((c) => !crewUrls.has(c.crewUrl))) {
      await this.state.change<unknown>(KEY, (stored) => entries(stored).filter((c) => crewUrls.has(c.crewUrl)));
      this.changed.fire();
    }
  }

  async forget(crewUrl: string): Promise<void> {
    await this.state.change<unknown>(KEY, (stored) => entries(stored).filter((c) => c.crewUrl !== crewUrl));
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
