// The request pipeline's shapes, apart from pipeline.ts so that the handlers it calls (chatFlow.ts) can name them
// without importing the pipeline back.
import type { Endpoint, FaultOptions, RequestLogEntry } from './types';
import type { CrewState, SimWorld } from './world';

/** What one request turned into, filled in as it goes and logged when the socket is done with it. */
export interface RequestContext {
  started: number;
  crew?: CrewState;
  endpoint: Endpoint;
  method: string;
  path: string;
  /** Path segments after the crew id. */
  rest: string[];
  tokenKind: RequestLogEntry['tokenKind'];
  fault?: RequestLogEntry['fault'];
  coldStart?: true;
}

/** What the pipeline needs from the running server besides the world. */
export interface Pipeline {
  world: SimWorld;
  /** The simulator-wide faults now (setFaults replaces them). */
  faults(): FaultOptions;
  random: () => number;
  /** A delay that close() cancels. */
  sleep(ms: number): Promise<void>;
  closed(): boolean;
}
