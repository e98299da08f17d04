// A suite item's run followed to its end through the run store's change events (the normal poller polls it; nothing
// here polls), and what the checks read of it: its facts, from its record and details. Plain Node.
import * as l10n from '@vscode/l10n';
import type { StatusSnapshot } from '../api/types';
import { isFinished, type RunDetails, type RunRecord } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import type { RunFacts } from './core/types';

export type RunEnd =
  | { kind: 'ended'; run: RunRecord }
  /** The run will not end here by itself: it waits for a person, or is no longer watched. */
  | { kind: 'stopped'; run: RunRecord; reason: string }
  /** The run was removed from the history. */
  | { kind: 'gone' }
  | { kind: 'cancelled' };

/** Where a run stands for a suite: ended, stopped (and why), or still to wait for (undefined). */
export function runEndOf(run: RunRecord | undefined): RunEnd | undefined {
  if (!run) {
    return { kind: 'gone' };
  }
  if (isFinished(run)) {
    return { kind: 'ended', run };
  }
  if (run.needsFeedback) {
    return { kind: 'stopped', run, reason: l10n.t('The run waits for human feedback: a suite cannot give it. Answer it in the Crew Runs view, or test a crew that does not ask.') };
  }
  // A run paused for its token goes on once one is set (the poller resumes it): the suite waits for it too.
  if (!run.watching && run.stopReason !== 'unauthorized' && run.stopReason !== 'noToken') {
    return {
      kind: 'stopped',
      run,
      reason:
        run.stopReason === 'user'
          ? l10n.t('The run is no longer watched (Stop Watching): its result cannot be checked.')
          : l10n.t('The run is no longer watched (its watch deadline passed): its result cannot be checked.'),
    };
  }
  return undefined;
}

/** Resolves when the run ends (or stops, or goes), as the run store's changes say; or when `cancelled` fires. */
export function waitForRunEnd(runs: Pick<RunStore, 'get' | 'onDidChange'>, runId: string, cancelled: (listener: () => void) => { dispose(): void }): Promise<RunEnd> {
  const now = runEndOf(runs.get(runId));
  if (now) {
    return Promise.resolve(now);
  }
  return new Promise<RunEnd>((resolve) => {
    const done = (end: RunEnd) => {
      changes.dispose();
      cancel.dispose();
      resolve(end);
    };
    const changes = runs.onDidChange(({ runIds }) => {
      if (runIds.includes(runId)) {
        const end = runEndOf(runs.get(runId));
        if (end) {
          done(end);
        }
      }
    });
    const cancel = cancelled(() => done({ kind: 'cancelled' }));
  });
}

/**
 * The facts of an ended run: its end state from the record (the truth every window shares), its output, time and
 * tokens from its details (the last status, the final output, the model calls' tally when the status has no usage).
 */
export function factsOfRun(run: RunRecord, details: RunDetails, fromSnapshot: (snapshot: StatusSnapshot, durationSeconds?: number) => RunFacts): RunFacts {
  const durationSeconds = run.finishedAt !== undefined ? Math.max(0, run.finishedAt - run.startedAt) / 1000 : undefined;
  const snapshot: StatusSnapshot = {
    ...(details.lastSnapshot ?? { tasks: [], raw: undefined }),
    state: run.state,
    finalOutput: details.finalOutput ?? details.lastSnapshot?.finalOutput,
    error: details.error ?? details.lastSnapshot?.error,
  };
  if (!snapshot.usage) {
    const total = modelCallTokens(details);
    if (total !== undefined) {
      snapshot.usage = { total_tokens: total };
    }
  }
  const facts = fromSnapshot(snapshot, durationSeconds);
  if (facts.state === 'failed' && !facts.error && run.message) {
    facts.error = run.message;
  }
  return facts;
}

/** The tokens of a run's model calls as its events tallied them; undefined when none were seen. */
function modelCallTokens(details: RunDetails): number | undefined {
  const total = Object.values(details.events?.byModel ?? {}).reduce((sum, usage) => sum + (usage.totalTokens ?? (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0)), 0);
  return total > 0 ? total : undefined;
}

/** How many tokens a run used: its status's usage (total, else prompt + completion), else its model calls' tally. */
export function runTokens(details: RunDetails): number | undefined {
  const usage = details.lastSnapshot?.usage;
  const total = usage?.['total_tokens'];
  if (total !== undefined) {
    return total;
  }
  const prompt = usage?.['prompt_tokens'];
  const completion = usage?.['completion_tokens'];
  return prompt !== undefined || completion !== undefined ? (prompt ?? 0) + (completion ?? 0) : modelCallTokens(details);
}

/** Runs a token estimate is made from: the crew's newest finished runs. */
export const ESTIMATE_SAMPLE_RUNS = 10;

/**
 * Tokens per run, from the crew's newest finished runs that say how many they used (their average, rounded);
 * undefined when none says.
 */
export async function recentTokensPerRun(runs: Pick<RunStore, 'list' | 'readDetails'>, crewUrl: string): Promise<number | undefined> {
  const finished = runs.list(crewUrl).filter((run) => run.state === 'succeeded' || run.state === 'failed').slice(0, ESTIMATE_SAMPLE_RUNS);
  const counts: number[] = [];
  for (const run of finished) {
    const tokens = runTokens(await runs.readDetails(run.id).catch(() => ({ tasks: [], history: [], feedbackRounds: [] })));
    if (tokens !== undefined) {
      counts.push(tokens);
    }
  }
  return counts.length > 0 ? Math.round(counts.reduce((a, b) => a + b, 0) / counts.length) : undefined;
}
