// Show All's markdown, rendered on a thread of its own: the run view's page shares its thread with the
// whole workbench, which also relays every segment. Bundled as a string into runView.js (esbuild.js,
// `worker-source:`) and started from a blob: URL (a webview cannot start a worker from its resources).
// The same rules as the page (markdown.ts): the page puts only this escaped output into innerHTML.
import { createMarkdown } from './markdown';
import type { WorkerReply, WorkerRequest } from './renderWorker';

const md = createMarkdown();

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, markdown } = event.data;
  let reply: WorkerReply;
  try {
    reply = { id, html: md.render(markdown) };
  } catch {
    reply = { id }; // The page renders this one itself.
  }
  self.postMessage(reply);
};
