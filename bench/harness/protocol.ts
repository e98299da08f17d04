// Shared by the bench runner (./run.ts) and the in-host suite (./suite.ts); no vscode import.
export const RESULT_PREFIX = 'BENCH_RESULT ';
export const REAL_ID = 'crew-runs.crew-runs';
export const EMPTY_ID = 'crew-runs-bench.empty-extension';
/** The same manifest and registrations as Crew Runs, with empty bodies (bench/bundle.ts, layOutFloorExtension). */
export const FLOOR_ID = 'crew-runs-bench.floor-extension';
export const HISTORY_CREW_URL = 'http://127.0.0.1:9/history-crew';

/** A batch run inside the bench's extension host against a simulator the runner started (issue 18). */
export interface HostBatchPlan {
  crewUrl: string;
  token: string;
  rows: number;
  concurrency: number;
  /** Write heap snapshots of the host before and after the batch here (CREW_RUNS_BENCH_HEAP=1). */
  heapSnapshotDir?: string;
}

/** What the host reports of it; the runner adds what the simulator saw. */
export interface HostBatchResult {
  rows: number;
  concurrency: number;
  /** Rows kicking off or running at once, at most. */
  peakRowsInFlight: number;
  distinctKickoffIds: number;
  /** Rows not sent, or sent without an end recorded. */
  lostRows: number;
  heapGrowthBytes: number;
  seconds: number;
  /** Filled in by the runner from the simulator's records. */
  simulatorRuns?: number;
  kickoffRequests?: number;
  rateLimitedKickoffs?: number;
}
