// Which crews do not offer Stop Run: a deployment without `POST /stop/{id}` answers a generic 404 or
// 405 (crew-api.md "Stopping a run"). Remembered per crew URL so the action is hidden from then on.
import type { KeyValueStore } from '../runs/runStore';
import { Emitter, type Event } from '../util/event';

const KEY = 'crewRuns.crewsWithoutStop';
/** Global state stays small: a user with more crews than this has other problems. */
const MAX_REMEMBERED = 500;

export class StopSupport {
  private readonly changeEmitter = new Emitter<void>();
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(private readonly store: KeyValueStore) {}

  offersStop(crewUrl: string): boolean {
    return !this.withoutStop().includes(crewUrl);
  }

  /** Returns true the first time a crew is found not to offer stopping (so the user is told once). */
  async markUnsupported(crewUrl: string): Promise<boolean> {
    const current = this.withoutStop();
    if (current.includes(crewUrl)) {
      return false;
    }
    await this.store.update(KEY, [...current, crewUrl].slice(-MAX_REMEMBERED));
    this.changeEmitter.fire();
    return true;
  }

  /** A redeployed crew may have gained the route: Check Connection or the user can clear this. */
  async forget(crewUrl: string): Promise<void> {
    const current = this.withoutStop();
    if (current.includes(crewUrl)) {
      await this.store.update(KEY, current.filter((url) => url !== crewUrl));
      this.changeEmitter.fire();
    }
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  private withoutStop(): string[] {
    const value = this.store.get<unknown>(KEY);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }
}
