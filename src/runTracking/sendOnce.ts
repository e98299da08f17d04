// The send-once rule, machine-wide: a costly request (a kickoff, a batch row's kickoff, a resume, a chat message,
// a redeploy) for one item goes out from one window at a time, and once it may have reached the service it is
// never sent again by itself. Each send holds a mark file named by the item's key in a folder every window shares;
// the mark says who is sending and, once settled, whether it went. A mark whose window is gone mid-send
// stays "uncertain": only the item's own truth (the run's status) can say whether it arrived.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewApiError, mayHaveActed } from '../api/errors';
import { createFileExclusive, errorCode, writeFileAtomic } from '../storage/atomicFile';

/** What a failed send means for sending it again. */
export type SendFailure =
  /** The service said no (4xx, no token): nothing happened; it may go again once the cause is fixed. */
  | 'refused'
  /** It never left, or the service asked to wait (429, 502–504 before acting): it may go again later. */
  | 'retryLater'
  /** It may have reached the service (a fault, a time-out, a 5xx, an unreadable reply): never again by itself. */
  | 'mayHaveActed';

export function classifySendFailure(error: unknown): SendFailure {
  if (mayHaveActed(error)) {
    return 'mayHaveActed';
  }
  if (error instanceof CrewApiError && (error.notSent || error.kind === 'rateLimited')) {
    return 'retryLater';
  }
  return error instanceof CrewApiError ? 'refused' : 'mayHaveActed';
}

/** What a failed kickoff of a queued item (a batch row, a suite case) means for the queue it waits in. */
export type QueuedKickoffFailure =
  /** It may have reached the crew: never sent again by itself. */
  | { kind: 'uncertain' }
  /** The crew asked to wait (429): the same item goes again after `delayMs`. */
  | { kind: 'retryLater'; delayMs: number }
  /** The crew cannot take any item until the user acts (`final`: no token, or it was refused) or it is reachable again. */
  | { kind: 'crewUnavailable'; final: boolean }
  /** The crew refused this item (its inputs, its route): nothing started; the others may go. */
  | { kind: 'refused' };

/** Retry-After of a 429 without one. */
const DEFAULT_RETRY_MS = 2_000;

/** The one reading of a queued kickoff's failure, on top of classifySendFailure. */
export function queuedKickoffFailure(error: unknown): QueuedKickoffFailure {
  if (!(error instanceof CrewApiError) || classifySendFailure(error) === 'mayHaveActed') {
    return { kind: 'uncertain' };
  }
  switch (error.kind) {
    case 'rateLimited':
      return { kind: 'retryLater', delayMs: error.retryAfterMs ?? DEFAULT_RETRY_MS };
    case 'noToken':
    case 'unauthorized':
      return { kind: 'crewUnavailable', final: true };
    case 'network':
    case 'timeout':
      // Not sent at all (classifySendFailure said so: refused, no such host, a certificate): nothing started.
      return { kind: 'crewUnavailable', final: false };
    case 'missingInputs':
    case 'badRequest':
    case 'notFound':
    case 'refused':
      return { kind: 'refused' };
    default:
      return { kind: 'uncertain' };
  }
}

type MarkState = 'sending' | 'sent' | 'uncertain';

/** What a send that went made, kept with its mark: a window that finds the mark knows the run it started. */
export interface SentRef {
  runId?: string;
  kickoffId?: string;
}

export interface SendMark {
  key: string;
  state: MarkState;
  /** The window that sent (or sends) it. */
  windowId: string;
  at: number;
  pid?: number;
  host?: string;
  /** Set with `sent` when the sender named what it made. */
  ref?: SentRef;
}

/** Why a send may not go now. */
export type Blocked =
  /** Another send of the item is under way (this window's or another's). */
  | { kind: 'inFlight'; mark: SendMark }
  /** It went already. */
  | { kind: 'sent'; mark: SendMark }
  /** A send may have reached the service; whether it did is not known here. */
  | { kind: 'uncertain'; mark: SendMark };

export interface SendClaim {
  /**
   * Settles the mark by what happened to the request: `sent` and `uncertain` stay; a failed send that never acted
   * frees the item. `ref`, with `sent`: what the send made (the run), for a window that finds the mark later.
   */
  settle(outcome: 'sent' | 'uncertain' | 'notSent', ref?: SentRef): Promise<void>;
}

/** Is the process that wrote a mark still running? Only knowable on this machine. */
function processAlive(mark: SendMark): boolean {
  if (mark.pid === undefined || mark.host !== os.hostname()) {
    return true;
  }
  try {
    process.kill(mark.pid, 0);
    return true;
  } catch (e) {
    return errorCode(e) === 'EPERM';
  }
}

/** Marks read at once while tidying. */
const PRUNE_READS_AT_ONCE = 32;

export class SendOnce {
  constructor(
    private readonly dir: string,
    private readonly windowId: string,
    private readonly now: () => number = Date.now,
    private readonly alive: (mark: SendMark) => boolean = processAlive,
  ) {}

  /**
   * Takes the item's mark, or says why it cannot go. A mark left `sending` by a window that is gone is
   * `uncertain` from then on: the send may have arrived.
   */
  async claim(key: string): Promise<SendClaim | Blocked> {
    await fs.mkdir(this.dir, { recursive: true });
    const file = this.fileOf(key);
    const mine: SendMark = { key, state: 'sending', windowId: this.windowId, at: this.now(), pid: process.pid, host: os.hostname() };
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await createFileExclusive(file, JSON.stringify(mine))) {
        return this.claimOf(file, mine);
      }
      const held = await this.read(file);
      if (!held) {
        // Unreadable (a crash mid-write leaves none with createFileExclusive) or gone meanwhile: free it and try again.
        await fs.rm(file, { force: true });
        continue;
      }
      if (held.state === 'sending' && !this.alive(held)) {
        const uncertain: SendMark = { ...held, state: 'uncertain' };
        await writeFileAtomic(file, JSON.stringify(uncertain));
        return { kind: 'uncertain', mark: uncertain };
      }
      return { kind: held.state === 'sending' ? 'inFlight' : held.state, mark: held };
    }
    return { kind: 'inFlight', mark: mine };
  }

  /** What the item's mark says now, if it has one. */
  async peek(key: string): Promise<SendMark | undefined> {
    return this.read(this.fileOf(key));
  }

  /** Frees an item whose truth is known again (e.g. the run's status shows the answer did not arrive). */
  async forget(key: string): Promise<void> {
    await fs.rm(this.fileOf(key), { force: true });
  }

  /** Removes settled marks older than `maxAgeMs`: by then their items' own truth (a run's rounds) says it all. */
  async prune(maxAgeMs: number): Promise<void> {
    const names = (await fs.readdir(this.dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));
    // A batch leaves a mark per row: read a few at a time, not one round trip after another.
    for (let i = 0; i < names.length; i += PRUNE_READS_AT_ONCE) {
      await Promise.all(
        names.slice(i, i + PRUNE_READS_AT_ONCE).map(async (name) => {
          const file = path.join(this.dir, name);
          const mark = await this.read(file);
          if (mark && mark.state !== 'sending' && this.now() - mark.at > maxAgeMs) {
            await fs.rm(file, { force: true });
          }
        }),
      );
    }
  }

  private claimOf(file: string, mine: SendMark): SendClaim {
    let settled = false;
    return {
      settle: async (outcome, ref) => {
        if (settled) {
          return;
        }
        settled = true;
        if (outcome === 'notSent') {
          await fs.rm(file, { force: true });
        } else {
          const sentRef = outcome === 'sent' && ref ? { ref: { runId: ref.runId, kickoffId: ref.kickoffId } } : {};
          await writeFileAtomic(file, JSON.stringify({ ...mine, state: outcome, at: this.now(), ...sentRef } satisfies SendMark));
        }
      },
    };
  }

  private async read(file: string): Promise<SendMark | undefined> {
    try {
      const value = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<SendMark>;
      if (typeof value.key !== 'string' || !(value.state === 'sending' || value.state === 'sent' || value.state === 'uncertain') || typeof value.windowId !== 'string') {
        return undefined;
      }
      const ref = value.ref as Partial<Record<keyof SentRef, unknown>> | undefined;
      const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
      return { ...(value as SendMark), ref: ref && typeof ref === 'object' ? { runId: text(ref.runId), kickoffId: text(ref.kickoffId) } : undefined };
    } catch {
      return undefined;
    }
  }

  private fileOf(key: string): string {
    return path.join(this.dir, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
  }
}

export function isBlocked(result: SendClaim | Blocked): result is Blocked {
  return 'kind' in result;
}
