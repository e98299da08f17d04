// What the batch runner tests share: windows' leases, a crew answered by hand, the send-once marks of a window.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { RunEnd, SendOutcome } from '../../../src/batches/core/batchRunner';
import type { Batch, BatchRow } from '../../../src/batches/core/model';
import { type SendMark, SendOnce } from '../../../src/runTracking/sendOnce';

export const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** One lease table shared by "windows", like the lease files on disk. */
export class FakeLeases {
  readonly owner = new Map<string, string>();
  for(window: string) {
    return {
      tryAcquire: async (id: string) => {
        const current = this.owner.get(id);
        if (current && current !== window) {
          return false;
        }
        this.owner.set(id, window);
        return true;
      },
      owns: (id: string) => this.owner.get(id) === window,
      release: async (id: string) => {
        if (this.owner.get(id) === window) {
          this.owner.delete(id);
        }
      },
    };
  }
}

export interface Pending {
  row: BatchRow;
  resolve(outcome: SendOutcome): void;
}

/** A crew the test answers by hand: every kickoff waits until the test resolves it. */
export class FakeCrew {
  readonly sent: number[] = [];
  readonly pending: Pending[] = [];
  maxInFlight = 0;
  readonly ended = new Map<string, RunEnd>();
  send = (_batch: Batch, row: BatchRow): Promise<SendOutcome> => {
    this.sent.push(row.index);
    return new Promise((resolve) => {
      this.pending.push({
        row,
        resolve: (o) => {
          this.pending.splice(this.pending.findIndex((p) => p.row.index === row.index), 1);
          resolve(o);
        },
      });
      this.maxInFlight = Math.max(this.maxInFlight, this.pending.length);
    });
  };
  /** Runs end at once unless a test says otherwise (`running`). */
  readonly running = new Set<string>();
  runEnd = async (runId: string): Promise<RunEnd | undefined> =>
    this.running.has(runId) ? undefined : (this.ended.get(runId) ?? { kind: 'ended', result: { state: 'succeeded', finishedAt: 1 }, output: `out ${runId}` });
}

/**
 * A window's send-once marks, in the folder every window shares (`<dir>/sending`, as in global storage). The windows
 * of a test are one process: `gone` names those whose host has exited, as a window that closed or reloaded.
 */
export function marksOf(dir: string, window: string, gone: ReadonlySet<string> = new Set()): SendOnce {
  return new SendOnce(path.join(dir, 'sending'), window, Date.now, (mark: SendMark) => !gone.has(mark.windowId));
}

export async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.ok(check(), what);
}

export function rows(n: number, missingAt: number[] = []): BatchRow[] {
  return Array.from({ length: n }, (_, index) => ({ index, inputs: { topic: `t${index}` }, status: missingAt.includes(index) ? ('skipped' as const) : ('queued' as const) }));
}
