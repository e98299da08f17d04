// The simulator's shared state: the crews it serves, their runs, every resume it was sent. The endpoint
// modules (runEndpoints, resumeEndpoint) and the request pipeline read and change it.

import { randomBytes } from 'node:crypto';
import type { Reply } from './types';
import type { RateLimiter } from './faults';
import type { SimRun } from './runEngine';
import type { CrewConfig, Dialect, ResumeRecord, SimulatorOptions } from './types';

export const DEFAULT_PENDING_MS = 1500;
export const DEFAULT_NOT_FOUND_FOR_MS = 3000;
export const DEFAULT_STATUS_MAX_EVENTS = 1000;

export interface CrewState {
  config: CrewConfig & { orgToken: string; userToken: string };
  limiter: RateLimiter;
  lastRequestAt?: number;
  /** `resumeLagMs`: the pause each run still reports after a resume, until when. */
  laggingPauses?: Map<SimRun, { until: number; reply: Reply }>;
}

export interface SimWorld {
  readonly crews: Map<string, CrewState>;
  /** Every kickoff id (original and continuations) → its run. */
  readonly runs: Map<string, SimRun>;
  readonly resumes: ResumeRecord[];
  readonly options: SimulatorOptions;
  readonly timeScale: number;
  readonly defaultDialect: Dialect;
}

export const newToken = (): string => randomBytes(16).toString('hex');

export function dialectOf(world: SimWorld, crew: CrewState | undefined): Dialect {
  return crew?.config.dialect ?? world.defaultDialect;
}
