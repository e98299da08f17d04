// Large status bodies are read on a thread of their own. Reading a hostile 54 MB status (10⁶ usage keys, 10 MB
// strings, 10,000 levels, 200,000 tasks) costs some 300 ms even within READ_LIMITS: on the extension host's thread
// that is a frozen editor on every poll. The transport hands such a body's bytes (transferred, not copied) to this
// worker, which decodes, redacts, reads and normalises them (statusBody.ts) and sends back the snapshot, which the
// status limits keep small. Bodies under OFF_THREAD_BYTES are read in place: a round trip would cost more.
//
// The worker runs the transport's own bundle (dist/transport.js, already loaded for every request): no bundle of
// its own. It is started on the first large body, stops after a minute without one, never keeps the process
// alive when idle (unref), and the transport's close() ends it. It never logs, and what it reports on failure is a fixed
// word, never text of the body (which could hold the token).
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { readStatusBody, type StatusBodyRead } from './statusBody';
import { transportFailure } from './transportTypes';

/**
 * From this many bytes a status body is read off the main thread. Measured (bench/statusThreshold.ts): below
 * ~64 KiB reading in place costs the main thread less than handing the body over and taking the snapshot back.
 */
export const OFF_THREAD_BYTES = 256 * 1024;

/** A reader idle this long is stopped: its heap (a hostile body's text) is given back. */
const IDLE_MS = 60_000;

/** The worker's heap: a body is at most maxResponseBytes (64 MB); a body that needs more ends the worker, not the host. */
const WORKER_HEAP_MB = 1024;

const ROLE = 'crew-runs-status-reader';

interface ReadRequest {
  id: number;
  bytes: Uint8Array;
  httpStatus: number;
  token: string;
}

type ReadReply = { id: number } & (StatusBodyRead | { ok: false; reason: 'failed' });

export interface StatusReaderOptions {
  /** The script the worker runs: by default this module's file, which is dist/transport.js in the bundle (tests give another). */
  script?: string;
  idleMs?: number;
}

/** Host side: one worker, started when needed; reads are answered in order. */
export class StatusReader {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(read: StatusBodyRead): void; reject(e: Error): void; megabytes: number }>();
  private idleTimer?: ReturnType<typeof setTimeout>;
  private closed = false;

  constructor(private readonly options: StatusReaderOptions = {}) {}

  /** Reads the body off the main thread. The bytes may be transferred: `bytes` can be empty afterwards. */
  read(bytes: Uint8Array, httpStatus: number, token: string): Promise<StatusBodyRead> {
    if (this.closed) {
      return Promise.reject(transportFailure('aborted', 'The request was cancelled.'));
    }
    const worker = this.start();
    const id = this.nextId++;
    const megabytes = Math.max(1, Math.round(bytes.byteLength / 1048576));
    const result = new Promise<StatusBodyRead>((resolve, reject) => this.pending.set(id, { resolve, reject, megabytes }));
    // Transferred, not copied, when the view is its whole buffer (a large Buffer.concat's is); else copied first
    // (a small Buffer is a view into a shared pool, which must not be transferred).
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
    const own = whole ? bytes : new Uint8Array(bytes);
    const request: ReadRequest = { id, bytes: own, httpStatus, token };
    worker.postMessage(request, [own.buffer as ArrayBuffer]);
    // Held while a read is under way (its answer is awaited), let go when idle.
    worker.ref();
    this.stopIdleTimer();
    return result;
  }

  /** Ends the worker; reads still waiting fail as cancelled. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopIdleTimer();
    const worker = this.worker;
    this.worker = undefined;
    this.failPending(() => transportFailure('aborted', 'The request was cancelled.'));
    await worker?.terminate();
  }

  private start(): Worker {
    if (this.worker) {
      return this.worker;
    }
    const worker = new Worker(this.options.script ?? __filename, {
      workerData: { role: ROLE },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      // Nothing of the worker's goes to the host's output: it never writes, and a crash is reported below.
      stdout: true,
      stderr: true,
    });
    worker.on('message', (reply: ReadReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (!waiting) {
        return;
      }
      if (reply.ok) {
        waiting.resolve({ ok: true, snapshot: reply.snapshot });
      } else if (reply.reason === 'notJson') {
        waiting.resolve({ ok: false, reason: 'notJson' });
      } else {
        waiting.reject(readerFailure(waiting.megabytes, 'the reader failed on it'));
      }
      if (this.pending.size === 0) {
        this.worker?.unref();
        this.startIdleTimer();
      }
    });
    // Its error's text is not passed on: it could quote the body.
    worker.on('error', () => this.lost(worker, 'the reader stopped'));
    worker.on('exit', () => this.lost(worker, 'the reader stopped'));
    // Only a read under way holds the process (read() refs it); after the listeners, since adding a 'message'
    // listener refs the worker's port again.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** The worker is gone (crashed, out of memory, terminated): what it was reading fails; the next read starts a new one. */
  private lost(worker: Worker, why: string): void {
    if (this.worker !== worker) {
      return;
    }
    this.worker = undefined;
    this.stopIdleTimer();
    this.failPending((megabytes) => readerFailure(megabytes, why));
  }

  private failPending(error: (megabytes: number) => Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) {
      w.reject(error(w.megabytes));
    }
  }

  private startIdleTimer(): void {
    this.stopIdleTimer();
    this.idleTimer = setTimeout(() => {
      const worker = this.worker;
      if (worker && this.pending.size === 0) {
        this.worker = undefined;
        void worker.terminate();
      }
    }, this.options.idleMs ?? IDLE_MS);
    this.idleTimer.unref?.();
  }

  private stopIdleTimer(): void {
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
  }
}

function readerFailure(megabytes: number, why: string): Error {
  return transportFailure('unreadable', `The crew's status (${megabytes} MB) could not be read: ${why}. It is read again at the next check.`);
}

/** Worker side: answers each request; never logs, and a failure is a word, never the error's text. */
function serveReads(): void {
  parentPort!.on('message', (request: ReadRequest) => {
    let reply: ReadReply;
    try {
      reply = { id: request.id, ...readStatusBody(request.bytes, request.httpStatus, request.token) };
    } catch {
      reply = { id: request.id, ok: false, reason: 'failed' };
    }
    parentPort!.postMessage(reply);
  });
}

// Loaded in the reader's worker (the transport's bundle, or this module in plain Node), it serves reads.
if (!isMainThread && (workerData as { role?: unknown } | null)?.role === ROLE) {
  serveReads();
}
