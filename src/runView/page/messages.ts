// The run view's messages between the host (runPanel.ts) and the page (runView.ts), and the host's
// validation of what the page sends. Pure.

import type { EventUsage } from '../../api/types';
import type { PriceTable } from '../../runTracking/trace/cost';
import { isPlainObject } from '../../util/objects';
import type { PageStrings } from './pageStrings';
import type { OutputTarget, RunView } from './viewModel';
import type { ViewPatch } from './viewPatch';

/** Host → page. */
export type HostMessage =
  /**
   * `probe`: tests are asking: report after every render (the test API is there); `scan`: with the DOM security
   * scan of every piece of output (the bench leaves it out: users' pages never scan).
   */
  | { type: 'init'; strings: PageStrings; view: RunView; now: number; probe: boolean; scan: boolean }
  | { type: 'update'; patch: ViewPatch; now: number }
  /**
   * A segment of a long output for Show All, UTF-8 encoded: VS Code hands bytes to the page without the JSON
   * and string copies a 64 KB string costs on each hop. `text`: markdown for the page to render, or JSON;
   * `html`: markdown the host rendered with the same rules (markdown.ts), on its own core, while the page
   * renders another. `deflated`: the bytes are raw DEFLATE (the page asked for it, `loadMore.deflate`): markup
   * shrinks several times, and every byte is copied a few times on its way through the workbench's thread,
   * which the page shares.
   */
  | { type: 'outputChunk'; target: OutputTarget; key: string; segment: number; last: boolean; content: Uint8Array; format: 'text' | 'html'; deflated?: boolean }
  | { type: 'raw'; text: string; truncated: boolean; length: number }
  /** Renders the whole final output, as the Show All button does. */
  | { type: 'showAll' }
  /**
   * The run's events the page has not had (all of them when `reset`), as the UTF-8 bytes of JSON Lines (eventLines.ts:
   * the event file's own bytes; bytes cross the workbench as they are, a string is escaped into JSON and parsed back
   * on the way), and what the trace needs beside them when that changed (traceFeed.ts).
   */
  | { type: 'trace'; reset: boolean; lines: Uint8Array; info?: TraceInfo }
  /** Selects the trace's first failed step, as the Jump to the Failure button does (tests). */
  | { type: 'jumpToFailure' }
  /** Scrolls the trace into sight and gives its grid the keyboard (Show Trace). */
  | { type: 'revealTrace' };

/** What the trace shows beside its events. */
export interface TraceInfo {
  /**
   * `on`: the status carries an event log; `off`: its event fields are null (an older runtime, or the log switched
   * off); `absent`: the status has no event fields at all; `waiting`: no status yet.
   */
  log: 'on' | 'off' | 'absent' | 'waiting';
  /** `events_count`: all the run emitted. */
  count?: number;
  /** Events kept with the run, and events over its cap (counted, not kept). */
  kept: number;
  dropped: number;
  /** Earlier events never seen: they left the status's window between two polls. */
  unseen: number;
  /** The run's token totals as the status says (`usage_metrics`). */
  usage?: EventUsage & { successfulRequests?: number };
  /** Who and what started the run, as the status says (`triggered_by.type`, `execution_origin`): the crew's words. */
  triggeredBy?: string;
  origin?: string;
  startedAt: number;
  /** Set once the run ended: spans still open then are lost. */
  endedAt?: number;
  prices: PriceTable;
  /** The model calls without a model are priced at (the crew's, from the settings). */
  defaultModel?: string;
}

export type PageAction =
  | 'copyOutput'
  | 'saveOutputAs'
  | 'openOutputInEditor'
  | 'compareOutput'
  | 'runAgain'
  | 'giveFeedback'
  | 'copyKickoffId'
  | 'exportTrace'
  | 'compareTraces';

export const PAGE_ACTIONS: readonly PageAction[] = [
  'copyOutput',
  'saveOutputAs',
  'openOutputInEditor',
  'compareOutput',
  'runAgain',
  'giveFeedback',
  'copyKickoffId',
  'exportTrace',
  'compareTraces',
];

/** What the page reports after every render, only when the host asks (`probe`: tests, the bench). */
export interface PageReport {
  /** Text of the state badge. */
  stateText: string;
  message: string;
  elapsedText: string;
  progressText: string;
  currentTask: string;
  taskSections: number;
  hasFinalOutput: boolean;
  /** Characters of text rendered in the final output container. */
  finalOutputTextLength: number;
  /** All segments of the final output are rendered. */
  finalOutputComplete: boolean;
  hasError: boolean;
  timelineEntries: number;
  feedbackRounds: number;
  /** `<script>` elements found inside output containers (must be 0). */
  scriptElements: number;
  /** Attributes named on* inside output containers (must be 0). */
  eventHandlerAttributes: number;
  /** Elements carrying a style attribute or <style>/<iframe>/<object>/<embed>/<svg>/<img> inside output containers (must be 0). */
  unsafeElements: number;
  /** Links inside output containers. */
  links: number;
  /** Of those, links whose href is not http(s) (must be 0). */
  unsafeLinks: number;
  /** Milliseconds the last render took. */
  renderMs: number;
  /** The longest task the page ran since its previous report, in ms (0: none over 50 ms). */
  longestTaskMs: number;
  /** Messages from the host handled so far. */
  messagesHandled: number;
  /** Milliseconds spent so far in markdown-it, and in putting its HTML into the page (where Show All's time goes). */
  markdownMs: number;
  insertMs: number;
  /** Milliseconds Show All has waited for its next segment (from the host, or the worker) with nothing to render. */
  waitMs: number;
  /** The longest the page took to render and put in one piece of output (a segment), in ms: a task cannot be shorter. */
  longestPieceMs: number;
  /** Show All's segments the page's markdown worker rendered (renderWorker.ts). */
  workerPieces: number;
  /** Milliseconds of the tests' DOM security scan (pages only scan when tests ask). */
  scanMs: number;
  /** How the page loaded: its resources' fetch times and when it said `ready` (ms since it began loading). */
  startup: string;
  /** The trace's summary line and notice, as shown. */
  traceSummary: string;
  traceNotice: string;
  /** The trace's rows as drawn (folded and filtered ones left out): `<indent><kind> <name> <state>[ <n> tokens]` per line. */
  traceRows: string;
  /** The selected row's details, as text. */
  traceSelected: string;
  traceSpans: number;
  traceFailed: number;
  traceRunning: number;
}

/** Page → host. */
export type PageMessage =
  | { type: 'ready' }
  | { type: 'rendered'; report: PageReport }
  | { type: 'action'; action: PageAction }
  | { type: 'openLink'; href: string }
  /** `deflate`: the page can inflate (DecompressionStream): segments may come deflated. */
  | { type: 'loadMore'; target: OutputTarget; key: string; segment: number; deflate?: boolean }
  | { type: 'openTaskOutput'; index: number }
  | { type: 'requestRaw' }
  | { type: 'copyFinalJson' }
  /** A trace row's details, copied (bounded: MAX_COPY). */
  | { type: 'copyText'; text: string };

const REPORT_NUMBERS = [
  'taskSections',
  'finalOutputTextLength',
  'timelineEntries',
  'feedbackRounds',
  'scriptElements',
  'eventHandlerAttributes',
  'unsafeElements',
  'links',
  'unsafeLinks',
  'renderMs',
  'longestTaskMs',
  'messagesHandled',
  'markdownMs',
  'insertMs',
  'waitMs',
  'longestPieceMs',
  'workerPieces',
  'scanMs',
  'traceSpans',
  'traceFailed',
  'traceRunning',
] as const;
const REPORT_STRINGS = ['stateText', 'message', 'elapsedText', 'progressText', 'currentTask', 'startup', 'traceSummary', 'traceNotice', 'traceRows', 'traceSelected'] as const;
const REPORT_BOOLEANS = ['hasFinalOutput', 'finalOutputComplete', 'hasError'] as const;
/** A report's texts are kept up to this many characters (the page need not build more). */
export const MAX_REPORT_STRING = 16 * 1024;
const MAX_HREF = 8192;
const MAX_KEY = 256;
const MAX_COPY = 256 * 1024;

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isTarget(value: unknown): value is OutputTarget {
  return value === 'final' || (Number.isInteger(value) && (value as number) >= 0 && (value as number) < 100_000);
}

/**
 * Validates a message from the page: only known types with fields of the right types pass; the
 * result is a fresh object holding only those fields. Anything else returns undefined.
 */
export function parsePageMessage(value: unknown): PageMessage | undefined {
  if (!isPlainObject(value) || typeof value.type !== 'string') {
    return undefined;
  }
  switch (value.type) {
    case 'ready':
    case 'requestRaw':
    case 'copyFinalJson':
      return { type: value.type };
    case 'action':
      return typeof value.action === 'string' && (PAGE_ACTIONS as readonly string[]).includes(value.action)
        ? { type: 'action', action: value.action as PageAction }
        : undefined;
    case 'openTaskOutput':
      return Number.isInteger(value.index) && (value.index as number) >= 0 ? { type: 'openTaskOutput', index: value.index as number } : undefined;
    case 'copyText':
      return typeof value.text === 'string' && value.text.length <= MAX_COPY ? { type: 'copyText', text: value.text } : undefined;
    case 'openLink':
      return typeof value.href === 'string' && value.href.length <= MAX_HREF ? { type: 'openLink', href: value.href } : undefined;
    case 'loadMore':
      return isTarget(value.target) && typeof value.key === 'string' && value.key.length <= MAX_KEY && Number.isInteger(value.segment) && (value.segment as number) >= 0
        ? { type: 'loadMore', target: value.target, key: value.key, segment: value.segment as number, ...(value.deflate === true ? { deflate: true } : {}) }
        : undefined;
    case 'rendered': {
      const report = parseReport(value.report);
      return report ? { type: 'rendered', report } : undefined;
    }
    default:
      return undefined;
  }
}

function parseReport(value: unknown): PageReport | undefined {
  if (!isPlainObject(value)) {
    return undefined;
  }
  const report: Record<string, unknown> = {};
  for (const key of REPORT_NUMBERS) {
    if (!isCount(value[key])) {
      return undefined;
    }
    report[key] = value[key];
  }
  for (const key of REPORT_STRINGS) {
    if (typeof value[key] !== 'string') {
      return undefined;
    }
    report[key] = (value[key] as string).slice(0, MAX_REPORT_STRING);
  }
  for (const key of REPORT_BOOLEANS) {
    if (typeof value[key] !== 'boolean') {
      return undefined;
    }
    report[key] = value[key];
  }
  return report as unknown as PageReport;
}

/** Only absolute http(s) URLs are links, in the page and again in the host. */
export function isSafeLink(href: string): boolean {
  const trimmed = href.trim();
  if (!/^https?:\/\//i.test(trimmed)) {
    return false;
  }
  try {
    const url = new URL(trimmed);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

