// Status checks are made on a thread of their own. A hostile 54 MB status (10⁶ usage keys, 10 MB strings, 10,000
// levels, 200,000 tasks) costs some 500 ms of the thread that reads it even within READ_LIMITS: about 200 ms to
// receive the bytes (undici's HTTP parsing, on whichever thread made the request), the rest to decode, redact, read
// and normalise them. On the extension host's thread that is a frozen editor on every poll. So the transport sends
// every GET /status through this worker: it makes the request with a transport of its own (the same settings:
// proxy, CA certificates, timeouts, size cap), reads a 2xx body into a snapshot (statusBody.ts, the very steps the
// client takes in place) and sends back only the snapshot, which the status limits keep small.
//
// Every status, not only large ones: the size is known only once the bytes have arrived, on the thread that
// received them, and a round trip costs the host's thread less than an ordinary status request made in place
// (bench/hostileStatus.ts measures both).
//
// The worker runs the transport's own bundle (dist/transport.js, already loaded for every request): no bundle of
// its own. It is started by the first status check, stops after a minute without one, holds the process only
// while a check is under way (unref), and the transport's close() ends it. It never logs; a failure it reports is
// the transport's own sentence (which names the crew's origin, never the request) or a fixed one, never an
// error's text (which could quote the token).
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { transportFailure, type HttpRequest, type HttpResponse, type NetworkSettings, type Transport, type TransportFailure } from './transportTypes';
import { originOf } from './url';

/** A reader idle this long is stopped: its heap and connections are given back. */
const IDLE_MS = 60_000;

/** The worker's heap: a body is at most maxResponseBytes (64 MB); one that needs more ends the worker, not the host. */
const WORKER_HEAP_MB = 1024;

/**
 * Its young generation, twice V8's default here: what a large reply parses into (a 50,000-line log's 50,000 entries)
 * then lives through the reading, and in the default one each scavenge copied it again (a fifth of that reading's
 * time, bench/platform.ts). It grows to this only as replies that large are read, and goes with the idle worker.
 */
const WORKER_YOUNG_MB = 64;

const ROLE = 'crew-runs-status-reader';

interface WorkerData {
  role: typeof ROLE;
  settings: NetworkSettings;
  /** The proxy variables of the host's environment (the transport reads no others). */
  env: Record<string, string | undefined>;
}

type Message = { id: number; req: Omit<HttpRequest, 'signal'> } | { abort: number };

type Reply = { id: number } & ({ response: HttpResponse } | { failure: { kind: TransportFailure['transportFailure']; message: string; beforeSending?: boolean } });

export interface StatusReaderOptions {
  /** The script the worker runs: the transport's module (dist/transport.js in the bundle). */
  script: string;
  settings: NetworkSettings;
  env: NodeJS.ProcessEnv;
  idleMs?: number;
}

const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

/** Host side: one worker, started when needed; each status check is one message there and one back. */
export class StatusReader {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(response: HttpResponse): void; reject(e: Error): void; origin: string }>();
  private idleTimer?: ReturnType<typeof setTimeout>;
  private closed = false;

  constructor(private readonly options: StatusReaderOptions) {}

  request(req: HttpRequest): Promise<HttpResponse> {
    if (this.closed || req.signal?.aborted) {
      return Promise.reject(cancelled());
    }
    const worker = this.start();
    const id = this.nextId++;
    const result = new Promise<HttpResponse>((resolve, reject) => this.pending.set(id, { resolve, reject, origin: originOf(req.url) }));
    const { signal, ...rest } = req;
    worker.postMessage({ id, req: rest } satisfies Message);
    if (signal) {
      const abort = () => this.worker?.postMessage({ abort: id } satisfies Message);
      signal.addEventListener('abort', abort, { once: true });
      result.finally(() => signal.removeEventListener('abort', abort)).catch(() => undefined);
    }
    // Held while a check is under way (its answer is awaited), let go when idle.
    worker.ref();
    this.stopIdleTimer();
    return result;
  }

  /** Ends the worker; checks still waiting fail as cancelled. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopIdleTimer();
    const worker = this.worker;
    this.worker = undefined;
    this.failPending(() => cancelled());
    await worker?.terminate();
  }

  private start(): Worker {
    if (this.worker) {
      return this.worker;
    }
    const env: Record<string, string | undefined> = {};
    for (const name of PROXY_VARIABLES) {
      env[name] = this.options.env[name];
    }
    const worker = new Worker(this.options.script, {
      workerData: { role: ROLE, settings: this.options.settings, env } satisfies WorkerData,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
      // Nothing of the worker's goes to the host's output: it never writes, and a crash is reported below.
      stdout: true,
      stderr: true,
    });
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (waiting) {
        if ('response' in reply) {
          waiting.resolve(reply.response);
        } else {
          waiting.reject(transportFailure(reply.failure.kind, reply.failure.message, reply.failure.beforeSending));
        }
      }
      if (this.pending.size === 0) {
        this.worker?.unref();
        this.startIdleTimer();
      }
    });
    // Its error's text is not passed on: it could quote the request.
    worker.on('error', () => this.lost(worker));
    worker.on('exit', () => this.lost(worker));
    // Only a check under way holds the process (request() refs it); after the listeners, since adding a
    // 'message' listener refs the worker's port again.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** The worker is gone (crashed, out of memory): what it was reading fails; the next check starts a new one. */
  private lost(worker: Worker): void {
    if (this.worker !== worker) {
      return;
    }
    this.worker = undefined;
    this.stopIdleTimer();
    this.failPending((origin) => readerStopped(origin));
  }

  private failPending(error: (origin: string) => Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) {
      w.reject(error(w.origin));
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

function cancelled(): Error {
  return transportFailure('aborted', 'The request was cancelled.');
}

function readerStopped(origin: string): Error {
  return transportFailure('unreadable', `The status from ${origin} could not be read: the status reader stopped. The next check starts it again.`);
}

/** True in the status reader's worker. */
export function isStatusReaderThread(): boolean {
  return !isMainThread && (workerData as Partial<WorkerData> | null)?.role === ROLE;
}

/**
 * Worker side, called by the transport's module when loaded there: each message is one status request made with
 * a transport built from the host's settings; 2xx bodies come back read (HttpResponse.statusRead, jsonRead), an
 * error's kept text redacted (bodyRedacted).
 */
export function serveStatusRequests(create: (settings: NetworkSettings, env: NodeJS.ProcessEnv) => Transport): void {
  const data = workerData as WorkerData;
  const transport = create(data.settings, data.env);
  const controllers = new Map<number, AbortController>();
  parentPort!.on('message', (message: Message) => {
    if ('abort' in message) {
      controllers.get(message.abort)?.abort();
      return;
    }
    const controller = new AbortController();
    controllers.set(message.id, controller);
    void transport
      .request({ ...message.req, signal: controller.signal })
      .then(
        (response): Reply => ({ id: message.id, response }),
        (e: unknown): Reply => {
          const failure = e as Partial<TransportFailure>;
          return typeof failure?.transportFailure === 'string' && typeof failure.message === 'string'
            ? { id: message.id, failure: { kind: failure.transportFailure, message: failure.message, beforeSending: failure.beforeSending } }
            : { id: message.id, failure: { kind: 'unreadable', message: `The status from ${originOf(message.req.url)} could not be read: the status reader failed on it.` } };
        },
      )
      .then((reply) => {
        controllers.delete(message.id);
        parentPort!.postMessage(reply);
      });
  });
}
