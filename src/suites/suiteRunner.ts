// A suite run's items sent to the crew a few at a time, each sent once: what the Test Explorer's run profile drives
// (testExplorer.ts). Plain Node: the sending, the wait for a run's end and the pause are the caller's.
// A crew that cannot take runs (no token, refused, unreachable) pauses the run: the items not sent yet stay queued,
// in order, until the caller says the crew may be tried again (or the run is cancelled: then they are not run).
import type { SuiteItem, SuiteItemResult } from './core/types';

/** What one kickoff came to: the item's run, or why there is none. */
export type ItemSendOutcome =
  | { kind: 'sent'; runId: string }
  /** The crew said no to this item (its inputs, a 4xx): nothing started; the item is an error. */
  | { kind: 'refused'; message: string }
  /** It may have reached the crew (a fault, a time-out, a 5xx): never sent again; the item is an error. */
  | { kind: 'uncertain'; message: string }
  /** Asked to wait (429) or not sent at all: this item goes again after `delayMs`. */
  | { kind: 'retryLater'; delayMs: number; message: string }
  /** The crew cannot take runs now (no token, token refused, unreachable): nothing started; the run pauses. */
  | { kind: 'crewUnavailable'; message: string; final: boolean };

export interface SuiteRunDeps {
  send(item: SuiteItem): Promise<ItemSendOutcome>;
  /** The result of an item whose run started: its end awaited and its checks evaluated. Never rejects. */
  finish(item: SuiteItem, runId: string): Promise<SuiteItemResult>;
  /**
   * The crew could not take a run: resolves true when it is worth trying again (a token set, a while later), false
   * when the run stops here (cancelled). Asked once per pause, however many items wait.
   */
  waitForCrew(reason: { message: string; final: boolean }): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  /** The run was cancelled: nothing more is sent. */
  readonly cancelled: () => boolean;
  onSent?(item: SuiteItem, runId: string): void;
  onResult?(result: SuiteItemResult): void;
}

export interface SuiteRunOutcome {
  /** One per item, in the items' order: its result, or, for an item never sent, undefined. */
  results: (SuiteItemResult | undefined)[];
  /** Items never sent (the run was cancelled, or paused and then cancelled), in order. */
  notRun: SuiteItem[];
  /** Why the last pause happened, when the run ended in one. */
  pausedBecause?: string;
}

/** A 429 after this many retries of one item counts as the crew being unavailable (a pause, not a loop). */
export const MAX_RETRIES_PER_ITEM = 5;

/** Runs `items`, at most `concurrency` at a time; resolves when every item has a result or will not be run. */
export async function runSuiteItems(items: readonly SuiteItem[], concurrency: number, deps: SuiteRunDeps): Promise<SuiteRunOutcome> {
  const results: (SuiteItemResult | undefined)[] = new Array(items.length).fill(undefined);
  /** Indexes of items not sent yet, in order: a paused item goes back to the front. */
  const queue = items.map((_item, index) => index);
  let pause: Promise<boolean> | undefined;
  let stopped = false;
  let pausedBecause: string | undefined;

  const pauseFor = (reason: { message: string; final: boolean }): Promise<boolean> => {
    pausedBecause = reason.message;
    pause ??= deps.waitForCrew(reason).then((goOn) => {
      pause = undefined;
      if (goOn) {
        pausedBecause = undefined;
      } else {
        stopped = true;
      }
      return goOn;
    });
    return pause;
  };

  /** Sends an item, waiting out a 429 (the item's own retries, bounded): what came of it, or undefined when cancelled meanwhile. */
  const sendWithRetries = async (item: SuiteItem): Promise<ItemSendOutcome | undefined> => {
    let outcome = await deps.send(item);
    for (let tries = 1; outcome.kind === 'retryLater'; tries++) {
      if (tries > MAX_RETRIES_PER_ITEM) {
        return { kind: 'crewUnavailable', message: outcome.message, final: false };
      }
      await deps.sleep(outcome.delayMs);
      if (deps.cancelled()) {
        return undefined;
      }
      outcome = await deps.send(item);
    }
    return outcome;
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      if (pause && !(await pause)) {
        return;
      }
      if (stopped || deps.cancelled() || queue.length === 0) {
        return;
      }
      const index = queue.shift()!;
      const item = items[index];
      const outcome = await sendWithRetries(item);
      if (!outcome) {
        queue.unshift(index);
        return;
      }
      switch (outcome.kind) {
        case 'sent': {
          deps.onSent?.(item, outcome.runId);
          const result = await deps.finish(item, outcome.runId);
          results[index] = result;
          deps.onResult?.(result);
          break;
        }
        case 'refused':
        case 'uncertain': {
          const result: SuiteItemResult = { itemId: item.id, caseName: item.caseName, repeat: item.repeat, outcome: 'error', checks: [], error: outcome.message };
          results[index] = result;
          deps.onResult?.(result);
          break;
        }
        case 'crewUnavailable':
          queue.unshift(index);
          await pauseFor({ message: outcome.message, final: outcome.final });
          break;
      }
    }
  };

  const workers = Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const notRun = queue.sort((a, b) => a - b).map((index) => items[index]);
  return { results, notRun, pausedBecause: notRun.length > 0 ? pausedBecause : undefined };
}
