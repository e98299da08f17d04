// The run view page's outputs: a preview rendered at once, and "Show All" rendering the rest one
// segment per task (the host sends a few segments ahead), so the page stays responsive. Crew output
// reaches innerHTML only as markdown-it's escaped rendering (see markdown.ts).

import { createMarkdown } from './markdown';
import type { HostMessage } from './messages';
import { button, h, page, post, saveUiState, t } from './page';
import { forgetScan, scanPiece } from './pageScan';
import { renderOffThread, warmUpWorker } from './renderWorker';
import { SEGMENTS_PER_REQUEST } from './segments';
import type { OutputTarget, OutputView } from './viewModel';

const md = createMarkdown();
const utf8 = new TextDecoder();

/** Characters of text rendered into each output container. */
const shown = new WeakMap<Element, number>();

interface Loading {
  key: string;
  /** The next segment to render. */
  next: number;
  /** Segments asked for so far (exclusive end). */
  requested: number;
  count: number;
  length: number;
  kind: OutputView['kind'];
  body: HTMLElement;
  more: HTMLElement;
  /** Segments arrived, not yet rendered: JSON text, or markdown the host rendered. */
  queue: Map<number, Piece>;
  pumping: boolean;
  /** Since when the page has nothing to render while segments are still to come. */
  starvedSince?: number;
  /** Segments rendered but not yet in the page: added to it every FLUSH_EVERY_MS, not one by one. */
  pending: DocumentFragment;
  pendingChars: number;
  flushedAt: number;
}

/** Per target: an output being rendered whole. */
const loading = new Map<string, Loading>();
let onRendered: () => void = () => undefined;

/** Called after each segment Show All renders (the page reports then, when tests ask). */
export function setOnRendered(listener: () => void): void {
  onRendered = listener;
}

export function shownChars(container: Element): number {
  return shown.get(container) ?? 0;
}

export function isLoading(target: OutputTarget): boolean {
  return loading.has(targetName(target));
}

export function resetLoading(): void {
  loading.clear();
}

export function forgetOutput(container: Element | null): void {
  if (container) {
    shown.delete(container);
    forgetScan(container);
    for (const [target, state] of loading) {
      if (state.body === container) {loading.delete(target);}
    }
  }
}

/** Time spent in markdown-it, in innerHTML, and waiting for the host's next segment so far, and the longest piece (reported to tests and the bench). */
export const renderTimes = { markdownMs: 0, insertMs: 0, waitMs: 0, scanMs: 0, longestPieceMs: 0 };

/** A piece of output to show: plain text, markdown to render, or markdown the host rendered with the same rules. */
type Piece = { text: string } | { markdown: string } | { html: string };

/** Renders a piece into `into` (the container, or a fragment that joins it later): its characters of text. */
function appendPiece(container: HTMLElement, content: Piece, into: ParentNode = container): number {
  let piece: HTMLElement;
  if ('text' in content) {
    piece = h('pre', { class: 'json segment' });
    piece.textContent = content.text;
  } else {
    piece = h('div', { class: 'segment' });
    const started = performance.now();
    const html = 'html' in content ? content.html : md.render(content.markdown);
    const rendered = performance.now();
    renderTimes.markdownMs += rendered - started;
    // markdown-it output (here or in the host, markdown.ts): html disabled, links validated.
    piece.innerHTML = html;
    const inserted = performance.now();
    renderTimes.insertMs += inserted - rendered;
    renderTimes.longestPieceMs = Math.max(renderTimes.longestPieceMs, inserted - started);
  }
  into.append(piece);
  const chars = piece.textContent?.length ?? 0;
  if (into === container) {
    shown.set(container, shownChars(container) + chars);
  }
  if (page.scan) {
    const scanStarted = performance.now();
    scanPiece(container, piece);
    renderTimes.scanMs += performance.now() - scanStarted;
  }
  return chars;
}

export function renderMarkdownInto(container: HTMLElement, text: string): void {
  container.replaceChildren();
  forgetOutput(container);
  appendPiece(container, { markdown: text });
}

function targetName(target: OutputTarget): string {
  return target === 'final' ? 'final' : `task-${target}`;
}

export function renderOutput(target: OutputTarget, output: OutputView, body: HTMLElement, more: HTMLElement): void {
  body.replaceChildren();
  forgetOutput(body);
  body.dataset.key = output.key;
  if (output.length === 0) {
    body.append(h('p', { class: 'muted' }, t('emptyOutput')));
  } else {
    appendPiece(body, output.kind === 'json' ? { text: output.preview } : output.previewHtml !== undefined ? { html: output.previewHtml } : { markdown: output.preview });
  }
  renderMore(target, output.previewSegments, output, body, more);
  if (output.previewSegments < output.segmentCount && page.ui.showAll?.includes(targetName(target))) {
    startShowAll(target, output, body, more);
  } else if (output.kind === 'markdown' && output.previewSegments < output.segmentCount && !workerWarmed) {
    // Once the first screen is up: Show All's worker ready and warm before it is asked (see warmUpWorker).
    workerWarmed = true;
    const sample = output.preview;
    // After the first screen is painted (its markup and the worker's start compete for 2 cores), when idle.
    setTimeout(() => window.requestIdleCallback(() => warmUpWorker(sample), { timeout: 1000 }), 200);
  }
}

/** This page has started and warmed its markdown worker (once: a later output finds it warm). */
let workerWarmed = false;

function renderMore(target: OutputTarget, rendered: number, output: Pick<OutputView, 'segmentCount' | 'length'>, body: HTMLElement, more: HTMLElement): void {
  if (rendered >= output.segmentCount) {
    more.replaceChildren();
    return;
  }
  if (loading.has(targetName(target))) {
    const percent = Math.floor((rendered / output.segmentCount) * 100);
    more.replaceChildren(h('span', { class: 'muted' }, t('rendering', percent)));
    return;
  }
  const openInEditor = target === 'final' ? () => post({ type: 'action', action: 'openOutputInEditor' }) : () => post({ type: 'openTaskOutput', index: target });
  more.replaceChildren(
    h('span', { class: 'muted' }, t('showingPart', Math.min(shownChars(body), output.length).toLocaleString(), output.length.toLocaleString()), ' '),
    button(t('showAll'), 'unfold', () => startShowAll(target, output as OutputView, body, more), { class: 'button secondary' }),
    button(t('openOutputInEditor'), 'go-to-file', openInEditor, { class: 'button secondary' }),
  );
}

export function startShowAll(target: OutputTarget, output: OutputView, body: HTMLElement, more: HTMLElement): void {
  const name = targetName(target);
  if (loading.has(name) || output.previewSegments >= output.segmentCount) {
    return;
  }
  saveUiState({ showAll: [...new Set([...(page.ui.showAll ?? []), name])] });
  const first = output.previewSegments;
  const state: Loading = {
    key: output.key,
    next: first,
    requested: first,
    count: output.segmentCount,
    length: output.length,
    kind: output.kind,
    body,
    more,
    queue: new Map(),
    pumping: false,
    pending: document.createDocumentFragment(),
    pendingChars: 0,
    flushedAt: performance.now(),
  };
  loading.set(name, state);
  if (output.kind === 'markdown') {
    warmUpWorker();
  }
  renderMore(target, first, output, body, more);
  // Two requests in flight: the host's answer takes longer than rendering a few segments.
  request(target, state);
  request(target, state);
}

function request(target: OutputTarget, state: Loading): void {
  if (state.requested < state.count) {
    post({ type: 'loadMore', target, key: state.key, segment: state.requested, deflate: canInflate });
    state.requested = Math.min(state.count, state.requested + SEGMENTS_PER_REQUEST);
  }
}

/** A segment arrived: queued, and rendered in a task of its own. Markdown the host sent as it is goes
 *  to the worker first (renderWorker.ts), so that the page only puts HTML in. */
export function handleChunk(message: Extract<HostMessage, { type: 'outputChunk' }>): void {
  const state = loading.get(targetName(message.target));
  if (!state || state.key !== message.key || message.segment < state.next || !state.body.isConnected) {
    return;
  }
  if (message.deflated) {
    if (!canInflate) {
      return; // Never asked for: not rendered, and Show All then stops where it is.
    }
    void inflate(message.content).then(
      (text) => accept(message, state, text),
      () => undefined, // Not DEFLATE: as above.
    );
    return;
  }
  accept(message, state, utf8.decode(message.content));
}

/** The page inflates what the host deflated (a few ms for a segment, natively), so that fewer bytes cross the workbench. */
const canInflate = ((): boolean => {
  try {
    return typeof DecompressionStream === 'function' && new DecompressionStream('deflate-raw') instanceof DecompressionStream;
  } catch {
    return false; // 'deflate-raw' came later than the stream itself.
  }
})();

function inflate(bytes: Uint8Array): Promise<string> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Response(stream).text();
}

/** A segment's text arrived (inflated, decoded): queued as it is, or markdown for the worker first. */
function accept(message: Extract<HostMessage, { type: 'outputChunk' }>, state: Loading, text: string): void {
  if (message.format === 'html' || state.kind === 'json') {
    queue(message.target, state, message.segment, message.format === 'html' ? { html: text } : { text });
    return;
  }
  void renderOffThread(text).then((html) => queue(message.target, state, message.segment, html === undefined ? { markdown: text } : { html }));
}

function queue(target: OutputTarget, state: Loading, segment: number, piece: Piece): void {
  if (loading.get(targetName(target)) !== state) {
    return; // Closed, or the output changed, while the worker rendered it.
  }
  state.queue.set(segment, piece);
  if (segment === state.next && state.starvedSince !== undefined) {
    renderTimes.waitMs += performance.now() - state.starvedSince;
    state.starvedSince = undefined;
  }
  pump(target, state);
}

/** A task renders arrived segments while the next one (predicted by the last) still ends within this;
 *  then it yields (input, paint). Long enough that yields do not dominate, well under the 100 ms a user
 *  would feel. */
const SLICE_MS = 40;
/** While Show All renders, what it rendered joins the page this often (and at the end). */
const FLUSH_EVERY_MS = 250;
/** While Show All renders, the page reports (when tests ask) at most this often, and at the end. */
const RENDERED_EVERY_MS = 250;
let lastRendered = 0;
/** Requests the page keeps ahead of what it renders (the host renders some segments while it waits). */
const AHEAD = 2;
/** How long the last segment took to render (the prediction for the next). */
let segmentMs = 0;

// A zero-delay task: setTimeout(0) is clamped to 4 ms once nested, which adds up over a hundred segments.
const channel = new MessageChannel();
const tasks: (() => void)[] = [];
channel.port1.onmessage = () => tasks.shift()?.();
function nextTask(task: () => void): void {
  tasks.push(task);
  channel.port2.postMessage(undefined);
}

function pump(target: OutputTarget, state: Loading): void {
  if (state.pumping || !state.queue.has(state.next)) {
    return;
  }
  state.pumping = true;
  nextTask(() => {
    state.pumping = false;
    if (loading.get(targetName(target)) !== state || !state.body.isConnected) {
      return;
    }
    const started = performance.now();
    let piece: Piece | undefined;
    let rendered = 0;
    while (state.next < state.count && (piece = state.queue.get(state.next)) !== undefined && (rendered++ === 0 || performance.now() - started + segmentMs < SLICE_MS)) {
      const pieceStarted = performance.now();
      state.queue.delete(state.next);
      state.pendingChars += appendPiece(state.body, piece, state.pending);
      state.next++;
      segmentMs = performance.now() - pieceStarted;
    }
    const done = state.next >= state.count;
    // Each change to the page costs a frame (style, layout, paint, compositing, for the whole workbench):
    // the rendered segments join it a few times a second, not one by one.
    const flush = done || performance.now() - state.flushedAt >= FLUSH_EVERY_MS;
    if (flush) {
      state.body.append(state.pending);
      shown.set(state.body, shownChars(state.body) + state.pendingChars);
      state.pendingChars = 0;
      state.flushedAt = performance.now();
    }
    if (done) {
      loading.delete(targetName(target));
      state.more.replaceChildren();
    } else {
      if (!state.queue.has(state.next)) {
        state.starvedSince = performance.now();
      }
      if (flush) {
        renderMore(target, state.next, { segmentCount: state.count, length: state.length }, state.body, state.more);
      }
      // Keep requests ahead of the render: the page never waits on the host's round trip.
      if (state.requested - state.next <= AHEAD * SEGMENTS_PER_REQUEST) {
        request(target, state);
      }
      pump(target, state);
    }
    if (state.next >= state.count || performance.now() - lastRendered >= RENDERED_EVERY_MS) {
      lastRendered = performance.now();
      onRendered();
    }
  });
}
