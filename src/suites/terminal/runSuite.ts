// Runs a suite from a terminal: each item kicked off through the crew client (the extension's own, without vscode),
// polled to its end, its deterministic checks evaluated (judge checks are skipped: no language model here).
import type { CrewApi } from '../../api/client';
import type { Suite, SuiteRunRecord } from '../core/types';

export interface TerminalRunOptions {
  suite: Suite;
  suiteFile: string;
  crewUrl: string;
  client: Pick<CrewApi, 'kickoff' | 'getStatus'>;
  concurrency: number;
  timeoutSeconds: number;
  /** A line of progress for the terminal (one per finished item). */
  report(line: string): void;
  now?(): number;
  sleep?(ms: number): Promise<void>;
}

/** Runs every item of the suite; resolves to the run's record (never rejects on a crew's failure: that is an item's error). */
export async function runSuiteFromTerminal(options: TerminalRunOptions): Promise<SuiteRunRecord> {
  void options;
  throw new Error('runSuiteFromTerminal: not written yet');
}
