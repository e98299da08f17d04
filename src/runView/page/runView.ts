// The run view page (bundled as an IIFE into media/dist/runView.js). Builds its DOM from the host's
// `init`, applies `update` patches section by section, and never puts untrusted text into innerHTML
// except markdown-it's escaped output. When tests ask (`probe`), it reports what it rendered after
// each change (`rendered`), with the DOM security scan.

import type { HostMessage, PageReport } from './messages';
import { isSafeLink } from './messages';
import { byId, page, post, saveUiState, show, t } from './page';
import { handleChunk, isLoading, renderTimes, resetLoading, setOnRendered, shownChars, startShowAll } from './pageOutput';
import { workerStats } from './renderWorker';
import { scanTotals, takeLongestTask, watchLongTasks } from './pageScan';
import { renderFinal, renderHistory, renderRounds, renderSummary, renderTasks, tick } from './pageSections';
import { buildSkeleton } from './pageSkeleton';
import { handleTrace, jumpToFailure, revealTrace, tickTrace, traceReport } from './pageTrace';
import { applyPatch, type ViewPatch } from './viewPatch';

const root = document.getElementById('root') as HTMLElement;
let messagesHandled = 0;
let renderMs = 0;
/** When this page said `ready` (ms since it began loading). */
let readyAt = 0;

/** How this page loaded (tests and the bench): each resource's fetch, and when the script said `ready`. */
function startupText(): string {
  const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
  const fetched = resources.map((r) => `${r.name.split('/').pop()?.split('?')[0]} ${Math.round(r.startTime)}-${Math.round(r.responseEnd)}`);
  return `${fetched.join(', ')}; ready ${Math.round(readyAt)} ms`;
}

// ---- raw JSON ----

let rawStale = true;

function requestRaw(): void {
  if (rawStale) {
    byId('rawNote').textContent = t('loading');
    post({ type: 'requestRaw' });
  }
}

function handleRaw(message: Extract<HostMessage, { type: 'raw' }>): void {
  rawStale = false;
  byId('rawText').textContent = message.text || '';
  byId('rawNote').textContent = !message.text ? t('noRaw') : message.truncated ? t('rawTruncated', message.text.length.toLocaleString(), message.length.toLocaleString()) : '';
  show(byId('rawNote'), Boolean(byId('rawNote').textContent));
}

// ---- report (tests only) ----

function report(): void {
  const view = page.view;
  if (!view || !page.probe) {return;}
  const total = scanTotals();
  const pageReport: PageReport = {
    stateText: byId('badge').textContent ?? '',
    message: byId('message').textContent ?? '',
    elapsedText: byId('elapsed').textContent ?? '',
    progressText: byId('progressText').textContent ?? '',
    currentTask: view.summary.currentTask ?? '',
    taskSections: byId('tasks').children.length,
    hasFinalOutput: view.final !== null,
    finalOutputTextLength: view.final ? shownChars(byId('final')) : 0,
    finalOutputComplete: view.final !== null && !isLoading('final') && byId('finalMore').childElementCount === 0,
    hasError: !byId('errorSection').hidden,
    timelineEntries: byId('timeline').children.length,
    feedbackRounds: byId('rounds').children.length,
    scriptElements: total.scripts,
    eventHandlerAttributes: total.handlers,
    unsafeElements: total.unsafe,
    links: total.links,
    unsafeLinks: total.unsafeLinks,
    renderMs: Math.round(renderMs),
    longestTaskMs: takeLongestTask(),
    messagesHandled,
    markdownMs: Math.round(renderTimes.markdownMs),
    insertMs: Math.round(renderTimes.insertMs),
    waitMs: Math.round(renderTimes.waitMs),
    longestPieceMs: Math.round(renderTimes.longestPieceMs),
    workerPieces: workerStats.rendered,
    scanMs: Math.round(renderTimes.scanMs),
    startup: startupText(),
    ...traceReport(),
  };
  post({ type: 'rendered', report: pageReport });
}

// ---- messages ----

function applyUpdate(patch: ViewPatch): void {
  if (!page.view) {return;}
  page.view = applyPatch(page.view, patch);
  if (patch.set || patch.unset || patch.final !== undefined) {
    renderSummary();
  }
  if (patch.history) {renderHistory(patch.history.from);}
  if (patch.tasks) {renderTasks(patch.tasks.from);}
  if (patch.final !== undefined) {renderFinal();}
  if (patch.feedbackRounds) {renderRounds(patch.feedbackRounds.from);}
  if (patch.set?.updatedAt !== undefined) {
    rawStale = true;
    if (byId<HTMLDetailsElement>('raw').open) {requestRaw();}
  }
}

let restoredScroll = false;

function handle(message: HostMessage): void {
  const started = performance.now();
  let rendered = true;
  switch (message.type) {
    case 'init':
      page.strings = message.strings;
      page.view = message.view;
      page.probe = message.probe === true;
      page.scan = page.probe && message.scan === true;
      if (page.probe) {watchLongTasks();}
      page.clockOffset = message.now - Date.now();
      resetLoading();
      rawStale = true;
      buildSkeleton(root, requestRaw);
      renderSummary();
      renderHistory(0);
      renderTasks(0);
      renderFinal();
      renderRounds(0);
      if (byId<HTMLDetailsElement>('raw').open) {requestRaw();}
      if (!restoredScroll && page.ui.scrollY) {
        restoredScroll = true;
        window.scrollTo(0, page.ui.scrollY);
      }
      break;
    case 'update':
      page.clockOffset = message.now - Date.now();
      applyUpdate(message.patch);
      break;
    case 'outputChunk':
      handleChunk(message); // Rendered in a task of its own, which reports then.
      rendered = false;
      break;
    case 'raw':
      handleRaw(message);
      rendered = false;
      break;
    case 'trace':
      handleTrace(message);
      break;
    case 'jumpToFailure':
      jumpToFailure();
      break;
    case 'revealTrace':
      revealTrace();
      break;
    case 'showAll': {
      const final = page.view?.final;
      if (final) {
        startShowAll('final', final, byId('final'), byId('finalMore'));
      }
      break;
    }
  }
  messagesHandled++;
  if (rendered) {
    renderMs = performance.now() - started;
    report();
  }
}

setOnRendered(report);

window.addEventListener('message', (event: MessageEvent) => {
  const data = event.data as HostMessage | undefined;
  if (data && typeof data === 'object' && typeof data.type === 'string') {
    handle(data);
  }
});

// Links in outputs: never navigate; ask the host, which checks the URL again.
function onLinkActivate(event: MouseEvent): void {
  const target = event.target instanceof Element ? event.target.closest('a') : null;
  if (!target) {return;}
  event.preventDefault();
  const href = target.getAttribute('href');
  if (href && isSafeLink(href) && target.closest('.output')) {
    post({ type: 'openLink', href });
  }
}
document.addEventListener('click', onLinkActivate);
document.addEventListener('auxclick', onLinkActivate);

let scrollTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('scroll', () => {
  clearTimeout(scrollTimer);
  scrollTimer = setTimeout(() => saveUiState({ scrollY: Math.round(window.scrollY) }), 300);
});

setInterval(() => {
  tick();
  tickTrace();
}, 1000);
readyAt = performance.now();
post({ type: 'ready' });
