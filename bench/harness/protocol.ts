// Shared by the bench runner (./run.ts) and the in-host suite (./suite.ts); no vscode import.
export const RESULT_PREFIX = 'BENCH_RESULT ';
export const REAL_ID = 'crew-runs.crew-runs';
export const EMPTY_ID = 'crew-runs-bench.empty-extension';
export const HISTORY_CREW_URL = 'http://127.0.0.1:9/history-crew';
