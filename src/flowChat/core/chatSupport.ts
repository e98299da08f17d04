// Which crews chat (flow-chat.md: `GET /inspect` says `flow.chat.conversational`), so the crews tree offers
// Chat with Flow only where it works. Asked lazily, when a crew is first drawn (never for every crew at
// activation), one crew at a time with a gap between asks, and remembered for this window until the crew's
// token changes or the tree is refreshed. A crew that cannot be asked (no token, 401, network) is not offered
// chat; the palette command asks again itself.
import { Emitter, type Event } from '../../util/event';

export interface ChatSupportOptions {
  /** Whether the crew's deployment chats; throws when it cannot be told. */
  probe(crewUrl: string): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  /** Pause between two asks; default 250 ms. */
  gapMs?: number;
}

export class ChatSupport {
  private readonly known = new Map<string, boolean>();
  private readonly queue: string[] = [];
  /** The crew being asked now. */
  private asking: string | undefined;
  /** Bumped by forget() (all crews, or one): an ask begun before it is not believed. */
  private generation = 0;
  private readonly crewGenerations = new Map<string, number>();
  private working = false;
  private disposed = false;
  private readonly changeEmitter = new Emitter<string>();
  /** A crew's answer arrived or was forgotten (its URL). */
  readonly onDidChange: Event<string> = this.changeEmitter.event;

  constructor(private readonly options: ChatSupportOptions) {}

  /** True when the crew chats, false when it does not (or cannot be asked), undefined while not known: then it is asked. */
  chats(crewUrl: string): boolean | undefined {
    const known = this.known.get(crewUrl);
    if (known === undefined && this.asking !== crewUrl && !this.queue.includes(crewUrl)) {
      this.queue.push(crewUrl);
      void this.work();
    }
    return known;
  }

  /** What a fresh ask found elsewhere (the palette command): remembered, drawn. */
  set(crewUrl: string, chats: boolean): void {
    if (this.known.get(crewUrl) !== chats) {
      this.known.set(crewUrl, chats);
      this.changeEmitter.fire(crewUrl);
    }
  }

  /** Forgets one crew's answer (its token changed), or every answer (Refresh): asked again when next drawn. */
  forget(crewUrl?: string): void {
    if (crewUrl === undefined) {
      this.generation++;
    } else {
      this.crewGenerations.set(crewUrl, (this.crewGenerations.get(crewUrl) ?? 0) + 1);
    }
    const urls = crewUrl === undefined ? [...this.known.keys()] : [crewUrl];
    for (const url of urls) {
      if (this.known.delete(url)) {
        this.changeEmitter.fire(url);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.queue.length = 0;
    this.changeEmitter.dispose();
  }

  private generationOf(crewUrl: string): string {
    return `${this.generation}:${this.crewGenerations.get(crewUrl) ?? 0}`;
  }

  private async work(): Promise<void> {
    if (this.working) {
      return;
    }
    this.working = true;
    try {
      for (let url = this.queue.shift(); url !== undefined && !this.disposed; url = this.queue.shift()) {
        if (this.known.has(url)) {
          continue;
        }
        const generation = this.generationOf(url);
        this.asking = url;
        const chats = await this.options.probe(url).catch(() => false);
        this.asking = undefined;
        if (this.disposed) {
          return;
        }
        if (generation === this.generationOf(url)) {
          this.set(url, chats);
        } else if (!this.queue.includes(url)) {
          this.queue.push(url); // Forgotten while asked (a new token): ask again.
        }
        if (this.queue.length) {
          await this.options.sleep(this.options.gapMs ?? 250);
        }
      }
    } finally {
      this.working = false;
    }
  }
}
