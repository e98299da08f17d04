// The page's side of markdownWorker.ts: Show All's markdown rendered off the page's thread, which it
// shares with the whole workbench. The host renders two segments of three (runPanel.ts, HOST_SHARE), the
// worker the rest: on 2 cores that beat the page rendering them, one worker doing all, two workers, the host
// doing every other one and the host doing all (bench). Started on first use; if it cannot start or fails, the page renders as before.
// A worker from a blob: URL inherits the page's CSP: no network, and it has no DOM.
import workerSource from 'worker-source:./markdownWorker';

export interface WorkerRequest {
  id: number;
  markdown: string;
}
/** No `html`: the worker could not render this one (the page does). */
export interface WorkerReply {
  id: number;
  html?: string;
}

/** How many pieces the worker rendered (reported to tests and the bench). */
export const workerStats = { rendered: 0 };

/** undefined: not started yet; null: unavailable (no Worker, refused by the CSP, or failed). */
let worker: Worker | null | undefined;
let nextId = 0;
const waiting = new Map<number, (html: string | undefined) => void>();

function start(): Worker | null {
  let url: string | undefined;
  try {
    url = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
    const started = new Worker(url);
    started.onmessage = (event: MessageEvent<WorkerReply>) => {
      if (event.data.id === WARM_UP) {
        return;
      }
      const done = waiting.get(event.data.id);
      waiting.delete(event.data.id);
      if (event.data.html !== undefined) {
        workerStats.rendered++;
      }
      done?.(event.data.html);
    };
    started.onerror = (event) => {
      event.preventDefault();
      stop();
    };
    return started;
  } catch {
    return null;
  } finally {
    if (url) {
      URL.revokeObjectURL(url); // The worker has its script; nothing else may start one from it.
    }
  }
}

/** Gives up on the worker: everything it still had is rendered by the page. */
function stop(): void {
  worker?.terminate();
  worker = null;
  for (const done of waiting.values()) {
    done(undefined);
  }
  waiting.clear();
}

/** The id of a warm-up render, whose reply nobody waits for. */
const WARM_UP = -1;

/**
 * Starts the worker ahead of its first piece (its script takes a moment to load). With `sample`, the worker
 * also renders it once, its reply dropped: markdown-it's first renders in a new thread took several times
 * longer than later ones (its code not yet optimised), and Show All's first pieces would wait for that.
 */
export function warmUpWorker(sample?: string): void {
  worker ??= start();
  if (worker && sample !== undefined) {
    worker.postMessage({ id: WARM_UP, markdown: sample } satisfies WorkerRequest);
  }
}

/** The markdown rendered off the page's thread: its HTML, or undefined (then the page renders it). */
export function renderOffThread(markdown: string): Promise<string | undefined> {
  worker ??= start();
  if (!worker) {
    return Promise.resolve(undefined);
  }
  const id = nextId++;
  const reply = new Promise<string | undefined>((resolve) => waiting.set(id, resolve));
  worker.postMessage({ id, markdown } satisfies WorkerRequest);
  return reply;
}
