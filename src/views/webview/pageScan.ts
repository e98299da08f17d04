// Test hooks only: the page's DOM security scan. When tests ask (`probe` in `init`), every piece of
// output rendered is walked for what must never be there (scripts, handlers, styles, non-http links)
// and the counts go into the page's report. Users' pages never walk their DOM for this.

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
  for (const element of [piece, ...Array.from(piece.querySelectorAll('*'))]) {
    const tag = element.tagName.toLowerCase();
    if (tag === 'script') {scan.scripts++;}
    if (element.matches(UNSAFE_SELECTOR)) {scan.unsafe++;}
    for (const attr of Array.from(element.attributes)) {
      if (attr.name.toLowerCase().startsWith('on')) {scan.handlers++;}
    }
    if (tag === 'a') {
      scan.links++;
      const href = element.getAttribute('href');
      if (href !== null && !isSafeLink(href)) {scan.unsafeLinks++;}
    }
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
