// Which crews do not offer Stop Run: a deployment without `POST /stop/{id}` answers a generic 404 or
// 405 (crew-api.md "Stopping a run"). Remembered per crew URL so the action is hidden from then on.
import type { SharedValues } from '../util/sharedValues';
import { Emitter, type Event } from '../util/event';

const KEY = 'crewRuns.crewsWithoutStop';
/** Kept small: a user with more crews than this has other problems. */
const MAX_REMEMBERED = 500;

export class StopSupport {
  private readonly changeEmitter = new Emitter<void>();
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(private readonly store: SharedValues) {}

  offersStop(crewUrl: string): boolean {
    return !this.withoutStop().includes(crewUrl);
  }

  /** Returns true the first time a crew is found not to offer stopping (so the user is told once). */
  async markUnsupported(crewUrl: string): Promise<boolean> {
    let first = false;
    await this.store.change<unknown>(KEY, (stored) => {
      const current = urls(stored);
      first = !current.includes(crewUrl);
      return first ? [...current, crewUrl].slice(-MAX_REMEMBERED) : current;
    });
    if (first) {
      this.changeEmitter.fire();
    }
    return first;
  }

  /** A redeployed crew may have gained the route: Check Connection or the user can clear this. */
  async forget(crewUrl: string): Promise<void> {
    if (this.withoutStop().includes(crewUrl)) {
      await this.store.change<unknown>(KEY, (stored) => urls(stored).filter((url) => url !== crewUrl));
      this.changeEmitter.fire();
    }
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  private withoutStop(): string[] {
    return urls(this.store.get<unknown>(KEY));
  }
}

function urls(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
