// Every request the simulator answered, for tests and benchmarks. Tokens are never stored: only
// whether an Authorization header came and which kind of token it held.

import type { Endpoint, RequestLogEntry } from './types';

export type EndpointCounts = Record<Endpoint, number>;

export class RequestLog {
  private readonly log: RequestLogEntry[] = [];

  get entries(): readonly RequestLogEntry[] {
    return this.log;
  }

  add(entry: RequestLogEntry): void {
    this.log.push(entry);
  }

  /** Requests per endpoint, for one crew or for all. */
  counts(crewId?: string): EndpointCounts {
    const counts: EndpointCounts = { inputs: 0, kickoff: 0, status: 0, resume: 0, stop: 0, other: 0 };
    for (const entry of this.log) {
      if (crewId === undefined || entry.crewId === crewId) {
        counts[entry.endpoint] += 1;
      }
    }
    return counts;
  }

  clear(): void {
    this.log.length = 0;
  }
}
