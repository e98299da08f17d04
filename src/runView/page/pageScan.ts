// Test hooks only: the page's DOM security scan and its longest task. When tests ask (`probe` in
// `init`), every piece of output rendered is checked for what must never be there (scripts, handlers,
// styles, non-http links) and the counts go into the page's report, with the longest task the page
// ran (the bench's responsiveness figure). Users' pages do neither.

import { isSafeLink } from './messages';

export interface ScanTotals {
  scripts: number;
  handlers: number;
  unsafe: number;
  links: number;
  unsafeLinks: number;
}

const UNSAFE_SELECTOR = '[style], style, iframe, object, embed, svg, img, link, meta, form, input, base, frame, frameset, math';

/** Per output container: what has been rendered into it. */
const scans = new WeakMap<Element, ScanTotals>();

export function scanPiece(container: Element, piece: Element): void {
  const scan = scans.get(container) ?? { scripts: 0, handlers: 0, unsafe: 0, links: 0, unsafeLinks: 0 };
  // Native queries (no per-element script work): the scan must not be what makes a long output slow.
  const self = (selector: string) => (piece.matches(selector) ? 1 : 0);
  scan.scripts += piece.querySelectorAll('script').length + self('script');
  scan.unsafe += piece.querySelectorAll(UNSAFE_SELECTOR).length + self(UNSAFE_SELECTOR);
  scan.handlers += document.evaluate('count(descendant-or-self::*/@*[starts-with(translate(name(), "ON", "on"), "on")])', piece, null, XPathResult.NUMBER_TYPE, null).numberValue;
  for (const link of [...(piece.matches('a') ? [piece] : []), ...Array.from(piece.querySelectorAll('a'))]) {
    scan.links++;
    const href = link.getAttribute('href');
    if (href !== null && !isSafeLink(href)) {scan.unsafeLinks++;}
  }
  scans.set(container, scan);
}

export function forgetScan(container: Element): void {
  scans.delete(container);
}

/** The scans of every output container in the page now. */
export function scanTotals(): ScanTotals {
  const total: ScanTotals = { scripts: 0, handlers: 0, unsafe: 0, links: 0, unsafeLinks: 0 };
  for (const container of Array.from(document.querySelectorAll('.output'))) {
    const scan = scans.get(container);
    if (scan) {
      for (const key of Object.keys(total) as (keyof ScanTotals)[]) {
        total[key] += scan[key];
      }
    }
  }
  return total;
}

let longestTask = 0;
let watchingTasks = false;

/** Starts noting the page's long tasks (over 50 ms, as the browser reports them). */
export function watchLongTasks(): void {
  if (watchingTasks || !PerformanceObserver.supportedEntryTypes?.includes('longtask')) {
    return;
  }
  watchingTasks = true;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longestTask = Math.max(longestTask, entry.duration);
    }
  }).observe({ type: 'longtask' });
}

/** The longest task since the last call (0: none over 50 ms), then starts again. */
export function takeLongestTask(): number {
  const value = longestTask;
  longestTask = 0;
  return Math.round(value);
}
