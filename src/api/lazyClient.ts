// The crew API client as activation sees it: the real one (client.ts with the parsing of every body, its
// own bundle dist/client.js, clientBundle.ts; undici follows in dist/transport.js on the first request) loads on the first
// call, so a window that sends and polls nothing never loads it.
import type * as ClientBundle from './clientBundle';
import type { CrewClient, CrewClientOptions } from './client';
import type { StatusSource } from './types';

/** What the extension uses of the client (Services.client). */
export type CrewApi = Pick<CrewClient, 'getInputs' | 'kickoff' | 'getStatus' | 'resume' | 'stop' | 'chatCall' | 'chatStream' | 'resetTransport' | 'dispose'>;

export class LazyCrewClient implements CrewApi, StatusSource {
  private client?: CrewClient;

  constructor(private readonly options: CrewClientOptions) {}

  private loaded(): CrewClient {
    if (!this.client) {
      // A plain require, so the bundle loads dist/client.js synchronously (like dist/transport.js).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { CrewClient: Client } = require('./clientBundle') as typeof ClientBundle;
      this.client = new Client(this.options);
    }
    return this.client;
  }

  async getInputs(...args: Parameters<CrewClient['getInputs']>): ReturnType<CrewClient['getInputs']> {
    return this.loaded().getInputs(...args);
  }

  async kickoff(...args: Parameters<CrewClient['kickoff']>): ReturnType<CrewClient['kickoff']> {
    return this.loaded().kickoff(...args);
  }

  async getStatus(...args: Parameters<CrewClient['getStatus']>): ReturnType<CrewClient['getStatus']> {
    return this.loaded().getStatus(...args);
  }

  async resume(...args: Parameters<CrewClient['resume']>): ReturnType<CrewClient['resume']> {
    return this.loaded().resume(...args);
  }

  async stop(...args: Parameters<CrewClient['stop']>): ReturnType<CrewClient['stop']> {
    return this.loaded().stop(...args);
  }

  async chatCall(...args: Parameters<CrewClient['chatCall']>): ReturnType<CrewClient['chatCall']> {
    return this.loaded().chatCall(...args);
  }

  async chatStream(...args: Parameters<CrewClient['chatStream']>): ReturnType<CrewClient['chatStream']> {
    return this.loaded().chatStream(...args);
  }

  /** Nothing to drop before the first call: the client reads the settings when it makes its transport. */
  async resetTransport(): Promise<void> {
    await this.client?.resetTransport();
  }

  async dispose(): Promise<void> {
    await this.client?.dispose();
  }
}
