// Runs a suite from a terminal: each item kicked off through the crew client (the extension's own, without vscode),
// polled to its end, its deterministic checks evaluated (judge checks are skipped: no language model here). A kickoff
// is sent once and never again (a failed one is that item's error); status reads are retried until the deadline.
import * as l10n from '@vscode/l10n';
import type { CrewApi } from '../../api/client';
import { isCrewApiError } from '../../api/errors';
import type { StatusSnapshot } from '../../api/types';
import { evaluateCase } from '../core/checks';
import { factsFromSnapshot } from '../core/facts';
import { PatternRunner } from '../core/pattern';
import { suiteItemError, suiteItemResult, suiteItems } from '../core/suiteRun';
import type { RunFacts, Suite, SuiteCase, SuiteItem, SuiteItemResult, SuiteRunRecord } from '../core/types';

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
  /** The first wait before a status read, then ×1.5 up to POLL_MAX_MS (crew-api.md: start around 1–2 s). */
  firstPollMs?: number;
}

const POLL_MAX_MS = 15_000;
/** A run the crew says it does not know for this long in a row is taken as not found (crew-api.md: not found is no proof at first). */
const NOT_FOUND_GRACE_MS = 60_000;

/** Runs every item of the suite; resolves to the run's record (never rejects on a crew's failure: that is an item's error). */
export async function runSuiteFromTerminal(options: TerminalRunOptions): Promise<SuiteRunRecord> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const startedAt = now();
  const deadline = startedAt + options.timeoutSeconds * 1000;
  const cases = new Map(options.suite.cases.map((c) => [c.name, c]));
  const items = suiteItems(options.suite);
  const results: SuiteItemResult[] = new Array(items.length);
  const patterns = new PatternRunner();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      const item = items[index];
      results[index] = await runItem(item, cases.get(item.caseName)!, { ...options, now, sleep, deadline, patterns });
      options.report(itemLine(results[index]));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, items.length)) }, worker));
  return { version: 1, id: `terminal-${startedAt}`, suiteName: options.suite.name, suiteFile: options.suiteFile, crewUrl: options.crewUrl, startedAt, finishedAt: now(), items: results };
}

interface ItemContext extends TerminalRunOptions {
  now(): number;
  sleep(ms: number): Promise<void>;
  deadline: number;
  patterns: PatternRunner;
}

async function runItem(item: SuiteItem, suiteCase: SuiteCase, context: ItemContext): Promise<SuiteItemResult> {
  const sentAt = context.now();
  let kickoffId: string;
  try {
    kickoffId = await context.client.kickoff(context.crewUrl, { inputs: suiteCase.inputs });
  } catch (error) {
    return suiteItemError(item, l10n.t('The kickoff failed: {0}', errorMessage(error)));
  }
  const ended = await pollToEnd(context, kickoffId, sentAt);
  if ('error' in ended) {
    return suiteItemError(item, ended.error, kickoffId);
  }
  const checks = await evaluateCase(suiteCase, ended.facts, { patterns: context.patterns });
  return suiteItemResult(item, checks, ended.facts, kickoffId);
}

/** Reads the run's status until it ends, the crew forgets it, it waits for a human, or the deadline passes. */
async function pollToEnd(context: ItemContext, kickoffId: string, sentAt: number): Promise<{ facts: RunFacts } | { error: string }> {
  let wait = context.firstPollMs ?? 1000;
  let notFoundSince: number | undefined;
  let lastError: string | undefined;
  let last: StatusSnapshot | undefined;
  for (;;) {
    const remaining = context.deadline - context.now();
    if (remaining <= 0) {
      const facts: RunFacts = last ? { ...factsFromSnapshot(last), state: 'timedOut' } : { state: 'timedOut' };
      if (lastError) {
        facts.error = lastError;
      }
      return { facts };
    }
    await context.sleep(Math.min(wait, remaining));
    wait = Math.min(POLL_MAX_MS, Math.round(wait * 1.5));
    let snapshot: StatusSnapshot;
    try {
      snapshot = await context.client.getStatus(context.crewUrl, kickoffId);
    } catch (error) {
      if (isCrewApiError(error) && error.kind === 'unauthorized') {
        return { error: l10n.t('The crew refused the token while the run was read: {0}', errorMessage(error)) };
      }
      lastError = errorMessage(error);
      if (isCrewApiError(error) && error.retryAfterMs) {
        wait = Math.max(wait, error.retryAfterMs);
      }
      continue;
    }
    last = snapshot;
    const seconds = (context.now() - sentAt) / 1000;
    switch (snapshot.state) {
      case 'succeeded':
      case 'failed':
      case 'cancelled':
        return { facts: factsFromSnapshot(snapshot, seconds) };
      case 'awaitingFeedback':
        return { error: l10n.t('The run waits for human feedback: a suite cannot give it. Answer it in VS Code, or test a crew that does not ask.') };
      case 'notFound':
        notFoundSince ??= context.now();
        if (context.now() - notFoundSince >= NOT_FOUND_GRACE_MS) {
          return { facts: factsFromSnapshot(snapshot, seconds) };
        }
        break;
      default:
        notFoundSince = undefined;
    }
  }
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim().slice(0, 500);
}

/** One finished item for the terminal: a mark, its id, and why when it did not pass. */
export function itemLine(result: SuiteItemResult): string {
  const mark = { passed: '✔', failed: '✘', error: '!', skipped: '-' }[result.outcome];
  const time = result.durationSeconds !== undefined ? ` (${result.durationSeconds.toFixed(1)} s)` : '';
  const lines = [`${mark} ${result.itemId}${time}`];
  if (result.error) {
    lines.push(`    ${result.error}`);
  }
  for (const check of result.checks) {
    if (check.status === 'failed' || check.status === 'error') {
      lines.push(`    ${check.type}: ${check.message.split('\n', 1)[0]}`);
      if (check.diff) {
        lines.push(...check.diff.split('\n').map((line) => `      ${line}`));
      }
    }
  }
  return lines.join('\n');
}
