// Suite files read on a thread of their own, so the extension host never waits on one: the `yaml` parser takes
// about a second per megabyte of cases (bench item 11), and a suite file may be 16 MB. One worker, started on the
// first parse and stopped after a while without one; it runs this very module's file (in the extension the lazy
// bundle dist/suites.js, built without `vscode`: a thread has none, so its words are translated with the bundle the
// host hands it), whose top level serves when it is that thread. A parse that takes longer than its time limit ends the worker and
// comes back as a problem, never a hang; so does a worker that crashed.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import * as l10n from '@vscode/l10n';
import { SUITE_LIMITS } from './limits';
import { parseSuite } from './suiteFile';
import type { ParsedSuite } from './types';

const THREAD_MARK = 'crewRunsSuiteParser';

interface Request {
  id: number;
  text: string;
  fallbackName: string;
}

interface Reply {
  id: number;
  parsed: ParsedSuite;
}

export interface SuiteParserOptions {
  /** The module the worker runs: by default this module's own file (dist/suites.js in the extension). */
  script?: string;
  /** The extension's translations (`vscode.l10n.bundle`), for the problems' words on the worker. */
  l10nContents?: Record<string, string>;
  /** A parse taking longer is given up (the worker ended) and said as a problem. */
  timeoutMs?: number;
  /** The worker stops after this long without a parse. */
  idleMs?: number;
}

const DEFAULTS = { timeoutMs: 60_000, idleMs: 60_000 };

interface Queued {
  text: string;
  fallbackName: string;
  resolve(parsed: ParsedSuite): void;
}

/**
 * Parses suite files on its worker thread, one at a time (so a file's time limit is its own, not the queue's);
 * `dispose()` ends it.
 */
export class SuiteParser {
  private worker?: Worker;
  private nextId = 1;
  private readonly queue: Queued[] = [];
  private inFlight?: { id: number; entry: Queued; timer: NodeJS.Timeout };
  private idleTimer?: NodeJS.Timeout;
  /** How many workers were started (tests count restarts with it). */
  started = 0;

  constructor(private readonly options: SuiteParserOptions = {}) {}

  /** The suite and its problems, as parseSuite gives them; never rejects. */
  parse(text: string, fallbackName: string): Promise<ParsedSuite> {
    if (text.length > SUITE_LIMITS.fileBytes) {
      // Refused by the reader at once, without sending the text across.
      return Promise.resolve(parseSuite(text, fallbackName));
    }
    return new Promise<ParsedSuite>((resolve) => {
      this.queue.push({ text, fallbackName, resolve });
      this.pump();
    });
  }

  async dispose(): Promise<void> {
    const message = l10n.t('The suite reader was closed.');
    for (const entry of this.queue.splice(0)) {
      entry.resolve(failed(entry.fallbackName, message));
    }
    this.give(message);
    clearTimeout(this.idleTimer);
    await this.stopWorker();
  }

  private pump(): void {
    if (this.inFlight) {
      return;
    }
    const entry = this.queue.shift();
    if (!entry) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => void this.stopWorker(), this.options.idleMs ?? DEFAULTS.idleMs);
      this.idleTimer.unref();
      return;
    }
    clearTimeout(this.idleTimer);
    const worker = this.ensureWorker();
    const id = this.nextId++;
    const timeoutMs = this.options.timeoutMs ?? DEFAULTS.timeoutMs;
    const timer = setTimeout(() => {
      this.give(l10n.t('Reading the suite file took longer than {0} s: it was given up.', Math.round(timeoutMs / 1000)));
      void this.stopWorker();
      this.pump();
    }, timeoutMs);
    this.inFlight = { id, entry, timer };
    worker.postMessage({ id, text: entry.text, fallbackName: entry.fallbackName } satisfies Request);
  }

  private ensureWorker(): Worker {
    if (this.worker) {
      return this.worker;
    }
    const worker = new Worker(this.options.script ?? __filename, {
      workerData: { [THREAD_MARK]: true, l10n: this.options.l10nContents },
      resourceLimits: { maxOldGenerationSizeMb: 1024 },
    });
    this.started++;
    worker.unref();
    worker.on('message', (reply: Reply) => {
      if (this.inFlight?.id === reply.id) {
        clearTimeout(this.inFlight.timer);
        const { entry } = this.inFlight;
        this.inFlight = undefined;
        entry.resolve(reply.parsed);
        this.pump();
      }
    });
    const lost = (why: string): void => {
      if (this.worker === worker) {
        this.worker = undefined;
        this.give(l10n.t('The suite reader stopped ({0}).', why));
        this.pump();
      }
    };
    worker.on('error', (error) => lost(error.message));
    worker.on('exit', (code) => lost(l10n.t('exit code {0}', code)));
    this.worker = worker;
    return worker;
  }

  /** Answers the parse in flight with `message` as its suite's one problem. */
  private give(message: string): void {
    const inFlight = this.inFlight;
    this.inFlight = undefined;
    if (inFlight) {
      clearTimeout(inFlight.timer);
      inFlight.entry.resolve(failed(inFlight.entry.fallbackName, message));
    }
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}

function failed(fallbackName: string, message: string): ParsedSuite {
  const start = { line: 0, character: 0 };
  return {
    suite: { name: fallbackName, concurrency: SUITE_LIMITS.defaultConcurrency, cases: [], range: { start, end: start } },
    problems: [{ range: { start, end: { line: 0, character: 1 } }, severity: 'error', message }],
  };
}

/** Whether this thread is a suite parser's worker. */
export function isSuiteParserThread(): boolean {
  return !isMainThread && typeof workerData === 'object' && workerData !== null && (workerData as Record<string, unknown>)[THREAD_MARK] === true;
}

/** The worker's side: parse each request and post the result back. */
function serveSuiteParsing(): void {
  const contents = (workerData as { l10n?: Record<string, string> }).l10n;
  if (contents) {
    l10n.config({ contents });
  }
  parentPort?.on('message', (request: Request) => {
    parentPort?.postMessage({ id: request.id, parsed: parseSuite(request.text, request.fallbackName) } satisfies Reply);
  });
}

if (isSuiteParserThread()) {
  serveSuiteParsing();
}
