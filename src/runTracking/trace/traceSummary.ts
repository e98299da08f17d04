// What a trace adds up to: counts, tokens, where it failed, where the time and the tokens went. One pass over the
// spans (plus a few top-N lists), so a page may recompute it after every poll.
import type { EventUsage } from '../../api/types';
import type { Span } from './span';

export interface TokenTotals {
  prompt: number;
  completion: number;
  /** Prompt tokens served from the provider's cache (a part of `prompt`). */
  cached: number;
  total: number;
  /** Model calls that ended well without saying their usage: the totals are then short of the truth. */
  callsWithoutUsage: number;
}

export interface TraceSummary {
  /** The first start and the last end seen (epoch ms); `durationMs` between them. */
  start?: number;
  end?: number;
  durationMs?: number;
  spans: number;
  tasks: number;
  agents: number;
  modelCalls: number;
  toolCalls: number;
  /** Failed spans, of every kind (a failure usually fails its parents too). */
  errors: number;
  running: number;
  lost: number;
  /** Summed over the model calls. */
  tokens: TokenTotals;
  /** Where to jump for "why did it fail": the failed span without failed children that failed first. */
  failing?: Span;
  /** The longest spans without children, longest first. */
  slowest: Span[];
  /** The model calls that used the most tokens, most first. */
  tokenHogs: Span[];
}

/** Lists of the summary hold at most this many. */
export const SUMMARY_TOP = 5;

/** A span's length in ms, when it has both ends in order. */
export function spanDuration(span: Span): number | undefined {
  return span.start !== undefined && span.end !== undefined && span.end >= span.start ? span.end - span.start : undefined;
}

/** All the tokens a usage counts: its total, else prompt plus completion. */
export function usageTokens(usage: EventUsage | undefined): number {
  if (!usage) {
    return 0;
  }
  return count(usage.totalTokens) || count(usage.promptTokens) + count(usage.completionTokens);
}

/** Summarises a trace (or its spans in display order, parents before their children). */
export function summarise(trace: { readonly spans: readonly Span[] } | readonly Span[], top = SUMMARY_TOP): TraceSummary {
  const spans: readonly Span[] = isSpanList(trace) ? trace : trace.spans;
  const size = Math.max(0, Math.min(100, Math.floor(top) || 0));
  const summary: TraceSummary = {
    spans: spans.length,
    tasks: 0,
    agents: 0,
    modelCalls: 0,
    toolCalls: 0,
    errors: 0,
    running: 0,
    lost: 0,
    tokens: { prompt: 0, completion: 0, cached: 0, total: 0, callsWithoutUsage: 0 },
    slowest: [],
    tokenHogs: [],
  };
  const parents = new Set<string>();
  for (const span of spans) {
    if (span.parentId !== undefined) {
      parents.add(span.parentId);
    }
  }
  for (const span of spans) {
    tally(summary, span);
    const first = span.start ?? span.end;
    const last = span.end ?? span.start;
    summary.start = first !== undefined && (summary.start === undefined || first < summary.start) ? first : summary.start;
    summary.end = last !== undefined && (summary.end === undefined || last > summary.end) ? last : summary.end;
    if (!parents.has(span.id)) {
      keepTop(summary.slowest, span, spanDuration, size);
    }
    if (span.kind === 'llm') {
      keepTop(summary.tokenHogs, span, callTokens, size);
    }
  }
  if (summary.start !== undefined && summary.end !== undefined) {
    summary.durationMs = summary.end - summary.start;
  }
  summary.failing = firstFailure(spans);
  return summary;
}

const callTokens = (span: Span) => usageTokens(span.usage) || undefined;

function isSpanList(value: { readonly spans: readonly Span[] } | readonly Span[]): value is readonly Span[] {
  return Array.isArray(value);
}

function tally(summary: TraceSummary, span: Span): void {
  summary.tasks += span.kind === 'task' ? 1 : 0;
  summary.agents += span.kind === 'agent' ? 1 : 0;
  summary.toolCalls += span.kind === 'tool' ? 1 : 0;
  summary.errors += span.state === 'failed' ? 1 : 0;
  summary.running += span.state === 'running' ? 1 : 0;
  summary.lost += span.state === 'lost' ? 1 : 0;
  if (span.kind !== 'llm') {
    return;
  }
  summary.modelCalls++;
  const tokens = summary.tokens;
  if (!span.usage) {
    tokens.callsWithoutUsage += span.state === 'ok' ? 1 : 0;
    return;
  }
  tokens.prompt += count(span.usage.promptTokens);
  tokens.completion += count(span.usage.completionTokens);
  tokens.cached += count(span.usage.cachedPromptTokens);
  tokens.total += usageTokens(span.usage);
}

/** The failed spans without a failed descendant (the causes, not their consequences); of them, the one that ended first. */
function firstFailure(spans: readonly Span[]): Span | undefined {
  const failedBelow = new Set<string>();
  let found: Span | undefined;
  // Children come after their parent in display order: walking back sees every child before its parent.
  for (let i = spans.length - 1; i >= 0; i--) {
    const span = spans[i];
    if (span.state !== 'failed' && !failedBelow.has(span.id)) {
      continue;
    }
    if (span.parentId !== undefined) {
      failedBelow.add(span.parentId);
    }
    if (span.state === 'failed' && !failedBelow.has(span.id) && (found === undefined || !endsAfter(span, found))) {
      found = span;
    }
  }
  return found;
}

/** `a` ended after `b` (no time sorts last); at the same time the earlier in display order wins, as walked backwards. */
function endsAfter(a: Span, b: Span): boolean {
  return (a.end ?? a.start ?? Infinity) > (b.end ?? b.start ?? Infinity);
}

/** Keeps `list` the `size` spans that measure most, most first (the size is small: insertion is enough). */
function keepTop(list: Span[], span: Span, measure: (span: Span) => number | undefined, size: number): void {
  const value = measure(span);
  if (value === undefined) {
    return;
  }
  let at = list.length;
  while (at > 0 && (measure(list[at - 1]) ?? 0) < value) {
    at--;
  }
  if (at < size) {
    list.splice(at, 0, span);
    list.length = Math.min(list.length, size);
  }
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
