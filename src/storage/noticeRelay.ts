// Which window tells the user that a run ended or waits for feedback: the one they are looking at.
//
// The window whose write ended the run decides that a notice is due (RunStore, compare-and-set: once across
// windows); it is often a background window, since a run is polled where it was started. When another window
// of this machine has the focus, the notice is offered to that window through a file, and whichever window
// renames the file first shows it: the focused one at once, or, if it has not taken it within moments (its
// host busy or cut off, or its watcher missed the file), the window that offered it. A rename succeeds for one
// window only, so the notice is shown once.

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../util/clock';
import { errorText } from '../util/errorText';
import { errorCode, writeFileAtomic } from './atomicFile';
import type { Logger } from '../util/logger';
import { watchFolder } from '../util/watchFolder';

/** What the focused window needs to say it: the run's record is read from its file there. */
export interface RelayedNotice {
  runId: string;
  kind: 'ended' | 'waiting';
}

/** Who shows the notices offered to this window (listen), and the watcher on the offers once it needs one. */
interface OfferListener {
  show: (notice: RelayedNotice) => void;
  watcher?: { dispose(): void };
  disposed: boolean;
}

const OFFER = '.offer';
const TAKEN = '.taken';
/** An offer nobody took back this long is left from windows that closed meanwhile. */
const STALE_OFFER_MS = 60_000;

export class NoticeRelay {
  private readonly focusDir: string;
  private focused = false;
  /** Serialises this window's focus file changes (a quick blur-focus must not end with no file). */
  private focusWrites: Promise<void> = Promise.resolve();
  /** Whether this window's focus file was written once: only then can an offer be made to it. */
  private focusWritten = false;
  private readonly listeners = new Set<OfferListener>();

  constructor(
    private readonly dir: string,
    private readonly windowId: string,
    private readonly logger: Logger,
    private readonly options: { clock?: Clock; takeBackAfterMs?: number } = {},
  ) {
    this.focusDir = path.join(dir, 'focus');
  }

  /** This window gained or lost the focus: a file named after it exists exactly while it has it. */
  setFocused(focused: boolean): Promise<void> {
    this.focused = focused;
    const file = path.join(this.focusDir, this.windowId);
    this.focusWrites = this.focusWrites.then(async () => {
      try {
        if (focused) {
          await fs.mkdir(this.focusDir, { recursive: true });
          await fs.writeFile(file, '');
          if (!this.focusWritten) {
            this.focusWritten = true;
            this.listeners.forEach((listener) => this.watchOffers(listener));
          }
        } else {
          await fs.rm(file, { force: true });
        }
      } catch (e) {
        this.logger.warn(`Notices: could not record this window's focus (${errorText(e)}).`);
      }
    });
    return this.focusWrites;
  }

  /**
   * Where a notice decided in this window is shown: `here`, or `relayed` when the focused window took it.
   * Resolves at once unless another window has the focus.
   */
  async deliver(notice: RelayedNotice): Promise<'here' | 'relayed'> {
    if (this.focused) {
      return 'here';
    }
    const to = await this.focusedWindow();
    if (!to) {
      return 'here';
    }
    const offer = path.join(this.dir, `${notice.runId}.${randomBytes(4).toString('hex')}${OFFER}`);
    try {
      await writeFileAtomic(offer, JSON.stringify({ to, at: (this.options.clock ?? systemClock).now(), notice }));
    } catch (e) {
      this.logger.warn(`Notices: could not hand a notice to the focused window (${errorText(e)}); shown here.`);
      return 'here';
    }
    const clock = this.options.clock ?? systemClock;
    await new Promise<void>((resolve) => clock.setTimeout(resolve, this.options.takeBackAfterMs ?? 3_000));
    return (await this.take(offer)) ? 'here' : 'relayed';
  }

  /**
   * Shows, through `show`, the notices offered to this window. The offers' folder is watched from the moment its
   * focus file is first written: no window offers a notice to one whose focus file it has not read.
   */
  listen(show: (notice: RelayedNotice) => void): { dispose(): void } {
    const listener: OfferListener = { show, disposed: false };
    this.listeners.add(listener);
    if (this.focusWritten) {
      this.watchOffers(listener);
    }
    return {
      dispose: () => {
        listener.disposed = true;
        listener.watcher?.dispose();
        this.listeners.delete(listener);
      },
    };
  }

  private watchOffers(listener: OfferListener): void {
    if (listener.disposed || listener.watcher) {
      return;
    }
    // One key for the folder: a burst of offers is taken by one pass (and one queued behind it).
    listener.watcher = watchFolder(this.dir, {
      keyOf: (name) => (name.endsWith(OFFER) ? 'offers' : undefined),
      changed: () => this.takeOffers(listener.show),
      logger: this.logger,
      what: 'Notices',
      backstop: 'each window says its own',
    });
    // Offers made before the watcher started (the focus file was already there to read).
    void this.takeOffers(listener.show);
  }

  /** The window with the focus, if it is another one: the newest focus file (a closed window's may linger). */
  private async focusedWindow(): Promise<string | undefined> {
    let newest: { id: string; at: number } | undefined;
    for (const id of await fs.readdir(this.focusDir).catch(() => [] as string[])) {
      const at = await fs.stat(path.join(this.focusDir, id)).then((s) => s.mtimeMs, () => undefined);
      if (at !== undefined && (!newest || at > newest.at)) {
        newest = { id, at };
      }
    }
    return newest && newest.id !== this.windowId ? newest.id : undefined;
  }

  private async takeOffers(show: (notice: RelayedNotice) => void): Promise<void> {
    for (const name of await fs.readdir(this.dir).catch(() => [] as string[])) {
      if (!name.endsWith(OFFER)) {
        continue;
      }
      const offer = path.join(this.dir, name);
      const parsed = await readOffer(offer);
      if (!parsed) {
        await fs.rm(offer, { force: true }).catch(() => undefined);
        continue;
      }
      if (parsed.to !== this.windowId || !this.focused) {
        if ((this.options.clock ?? systemClock).now() - parsed.at > STALE_OFFER_MS) {
          await fs.rm(offer, { force: true }).catch(() => undefined); // Both windows closed since.
        }
        continue; // Another window's, or this one lost the focus meanwhile: the offering window takes it back.
      }
      if (await this.take(offer)) {
        show(parsed.notice);
      }
    }
  }

  /** True for the one window whose rename of the offer succeeds. */
  private async take(offer: string): Promise<boolean> {
    const taken = `${offer}.${this.windowId}${TAKEN}`;
    try {
      await fs.rename(offer, taken);
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        this.logger.warn(`Notices: could not take a notice (${errorText(e)}).`);
      }
      return false;
    }
    await fs.rm(taken, { force: true }).catch(() => undefined);
    return true;
  }
}

/** An offer's content, or undefined for a file that is gone or not an offer. */
async function readOffer(file: string): Promise<{ to: string; at: number; notice: RelayedNotice } | undefined> {
  const content = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (content === undefined) {
    return undefined;
  }
  try {
    const value = JSON.parse(content) as { to?: unknown; at?: unknown; notice?: { runId?: unknown; kind?: unknown } };
    const { to, at, notice } = value;
    if (typeof to === 'string' && typeof at === 'number' && typeof notice?.runId === 'string' && (notice.kind === 'ended' || notice.kind === 'waiting')) {
      return { to, at, notice: { runId: notice.runId, kind: notice.kind } };
    }
  } catch {
    // Not an offer: removed.
  }
  return undefined;
}
