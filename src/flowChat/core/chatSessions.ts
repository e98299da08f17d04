// Each crew's recent Chat with Flow sessions (session id, first message, last activity), shared by every
// window as run records are: one small file per crew, `chat-sessions/<hash of the crew URL>.json`, one of the
// machine's shared files (storage/sharedFiles.ts: changed from what is saved, under its lock, atomically), so two
// windows never lose each other's session nor list one twice. Other windows learn through a watcher on the
// folder, with a periodic reload() as the backstop. Never in globalState (a stale window's copy would win).
// A session is recorded when its first message is sent; at most MAX_SESSIONS_PER_CREW per crew, newest first.
// Ids and messages come from a flow and a user: bounded here, made inert where they are drawn.
// Plain Node (no `vscode`): unit-tested with two stores on one folder as two windows.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { errorCode, removeStaleTempFiles, TEMP_SUFFIX } from '../../storage/atomicFile';
import { SharedFiles } from '../../storage/sharedFiles';
import type { Logger } from '../../util/logger';
import { systemClock, type Clock } from '../../util/clock';
import { Emitter, type Event } from '../../util/event';
import { watchFolder } from '../../util/watchFolder';

export const MAX_SESSIONS_PER_CREW = 20;
/** Characters of the first message kept (the tree shows a line of it; the flow's history has the rest). */
export const FIRST_MESSAGE_MAX = 500;
/** A session id as a flow names them (chatApi.ts startSession): it goes into the URL's path. */
export const SESSION_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export interface ChatSession {
  id: string;
  firstMessage: string;
  /** Epoch ms of the last message sent or answer ended. */
  lastActivity: number;
}

interface SessionsFile {
  version: 1;
  crewUrl: string;
  sessions: ChatSession[];
}

export interface ChatSessionStoreOptions {
  clock?: Clock;
  max?: number;
}

export class ChatSessionStore {
  private readonly byCrew = new Map<string, ChatSession[]>();
  /** The crew each file holds, for a file that is gone (removed by another window). */
  private readonly crewOfFile = new Map<string, string>();
  private readonly files: SharedFiles;
  private readonly changeEmitter = new Emitter<string>();
  private readonly max: number;
  private readonly clock: Clock;
  private watcher: { dispose(): void } | undefined;
  /** The crew whose sessions changed (its URL). */
  readonly onDidChange: Event<string> = this.changeEmitter.event;

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    options: ChatSessionStoreOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.max = options.max ?? MAX_SESSIONS_PER_CREW;
    this.files = new SharedFiles(dir, logger, (name) => `chat-${name}`, this.clock);
  }

  /** A crew's sessions, newest activity first. */
  list(crewUrl: string): readonly ChatSession[] {
    return this.byCrew.get(crewUrl) ?? [];
  }

  get(crewUrl: string, sessionId: string): ChatSession | undefined {
    return this.list(crewUrl).find((s) => s.id === sessionId);
  }

  /** Reads every crew's file (at start, and as the backstop for a missed watcher event). */
  async reload(): Promise<void> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') {
        this.logger.warn(`Chat sessions: cannot read ${this.dir} (${String(e)}).`);
      }
      names = [];
    }
    const files = new Set(names.filter(isSessionsFile));
    for (const name of [...this.crewOfFile.keys()].filter((n) => !files.has(n))) {
      await this.refresh(name);
    }
    for (const name of files) {
      await this.refresh(name);
    }
  }

  /** Starts watching the folder for other windows' changes (reload() first). */
  async start(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    await removeStaleTempFiles(this.dir);
    await this.reload();
    // The backstop: reload() every 30 s and on focus (extension.ts).
    this.watcher = watchFolder(this.dir, {
      keyOf: (fileName) => (isSessionsFile(fileName) ? fileName : undefined),
      changed: (name) => this.refresh(name),
      logger: this.logger,
      what: 'Chat sessions',
      backstop: 're-read every 30 s instead',
    });
  }

  /**
   * Notes a message sent in the session: listed (first message kept from its first record), its activity now.
   * Unusable ids are ignored.
   */
  async record(crewUrl: string, sessionId: string, message: string): Promise<void> {
    if (!SESSION_ID.test(sessionId)) {
      return;
    }
    const at = this.clock.now();
    await this.change(crewUrl, (sessions) => {
      const known = sessions.find((s) => s.id === sessionId);
      const others = sessions.filter((s) => s.id !== sessionId);
      const firstMessage = known?.firstMessage || bound(message);
      return [{ id: sessionId, firstMessage, lastActivity: Math.max(at, known?.lastActivity ?? 0) }, ...others];
    });
  }

  /** Notes activity in a listed session (an answer ended); a session not listed stays unlisted. */
  async touch(crewUrl: string, sessionId: string): Promise<void> {
    const at = this.clock.now();
    await this.change(crewUrl, (sessions) => sessions.map((s) => (s.id === sessionId ? { ...s, lastActivity: Math.max(at, s.lastActivity) } : s)));
  }

  /** Removes the session from the list (the flow keeps the conversation). */
  async forget(crewUrl: string, sessionId: string): Promise<void> {
    await this.change(crewUrl, (sessions) => sessions.filter((s) => s.id !== sessionId));
  }

  dispose(): void {
    this.watcher?.dispose();
    this.watcher = undefined;
    this.changeEmitter.dispose();
  }

  private async change(crewUrl: string, update: (sessions: ChatSession[]) => ChatSession[]): Promise<void> {
    const name = fileNameOf(crewUrl);
    let next: ChatSession[] = [];
    await this.files.change(name, (saved) => {
      next = normalize(update(this.parse(name, saved)?.sessions ?? []), this.max);
      return JSON.stringify({ version: 1, crewUrl, sessions: next } satisfies SessionsFile);
    });
    this.apply(name, crewUrl, next);
  }

  /** Re-reads one crew's file (a watcher event): fires onDidChange when what it lists changed. */
  private async refresh(name: string): Promise<void> {
    const file = await this.read(name);
    const crewUrl = file?.crewUrl ?? this.crewOfFile.get(name);
    if (crewUrl !== undefined) {
      this.apply(name, crewUrl, file?.sessions ?? []);
    }
  }

  private apply(name: string, crewUrl: string, sessions: ChatSession[]): void {
    this.crewOfFile.set(name, crewUrl);
    const before = this.byCrew.get(crewUrl) ?? [];
    if (JSON.stringify(before) === JSON.stringify(sessions)) {
      return;
    }
    if (sessions.length) {
      this.byCrew.set(crewUrl, sessions);
    } else {
      this.byCrew.delete(crewUrl);
    }
    this.changeEmitter.fire(crewUrl);
  }

  /** The file as written, its sessions checked and bounded; undefined when absent or unreadable. */
  private async read(name: string): Promise<SessionsFile | undefined> {
    return this.parse(name, await this.files.read(name));
  }

  private parse(name: string, text: string | undefined): SessionsFile | undefined {
    if (text === undefined) {
      return undefined;
    }
    try {
      const body = JSON.parse(text) as Partial<SessionsFile>;
      if (body.version !== 1 || typeof body.crewUrl !== 'string' || fileNameOf(body.crewUrl) !== name || !Array.isArray(body.sessions)) {
        return undefined;
      }
      const sessions = body.sessions.filter(
        (s): s is ChatSession => typeof s === 'object' && s !== null && typeof s.id === 'string' && SESSION_ID.test(s.id) && typeof s.firstMessage === 'string' && Number.isFinite(s.lastActivity),
      );
      return { version: 1, crewUrl: body.crewUrl, sessions: normalize(sessions.map((s) => ({ id: s.id, firstMessage: bound(s.firstMessage), lastActivity: s.lastActivity })), this.max) };
    } catch {
      return undefined;
    }
  }
}

/** Newest first, each id once (its newest entry), at most `max`. */
function normalize(sessions: ChatSession[], max: number): ChatSession[] {
  const seen = new Set<string>();
  return [...sessions]
    .sort((a, b) => b.lastActivity - a.lastActivity)
    .filter((s) => !seen.has(s.id) && (seen.add(s.id), true))
    .slice(0, max);
}

function bound(message: string): string {
  return String(message).slice(0, FIRST_MESSAGE_MAX);
}

/** A crew's file: a hash of its URL (URLs are not file names). */
export function fileNameOf(crewUrl: string): string {
  return `${createHash('sha256').update(crewUrl).digest('hex').slice(0, 32)}.json`;
}

function isSessionsFile(name: string): boolean {
  return /^[0-9a-f]{32}\.json$/.test(name) && !name.endsWith(TEMP_SUFFIX);
}
