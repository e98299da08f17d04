// The run view's trace: a waterfall of the run's tasks, agents, model and tool calls on one time axis, built in
// the page from the events the host sends (traceFeed.ts) with the plain trace model (runTracking/trace/). Only the
// rows in sight are drawn, so a 10,000-event run opens as fast as a short one. A tree grid: arrow keys move and
// fold, Enter shows a row's details. Text only: every name and error is the crew's, put in as text.

import type { Span } from '../../runTracking/trace/span';
import { parseLines } from '../../runTracking/trace/eventLines';
import { Trace } from '../../runTracking/trace/traceModel';
import { summarise, type TraceSummary } from '../../runTracking/trace/traceSummary';
import { estimateCost } from '../../runTracking/trace/cost';
import { type HostMessage, MAX_REPORT_STRING, type TraceInfo } from './messages';
import { button, byId, h, icon, page, post, show, t } from './page';
import { formatDuration, type PageStringKey } from './pageStrings';

const utf8 = new TextDecoder();

/** Pixels per row: fixed, so which rows are in sight is arithmetic. */
const ROW_HEIGHT = 24;
/** Rows drawn beyond the visible ones on each side, so a scroll by a few rows draws nothing new at once. */
const OVERSCAN = 8;
/** Levels of indent drawn at most. */
const MAX_INDENT = 12;
/** Rows marked as the slowest. */
const SLOWEST = 3;

type Filter = 'llm' | 'tool' | 'errors';

const state: {
  trace: Trace;
  info?: TraceInfo;
  /** The rows the grid shows, in order: folded rows' descendants and filtered-out rows left out. */
  rows: Span[];
  collapsed: Set<string>;
  filters: Set<Filter>;
  selected?: string;
  summary?: TraceSummary;
  slowest: Set<string>;
  /** Spans with children (the trace is depth first: a span's next is its first child when deeper). */
  parents: Set<string>;
  /** Tokens of each span's model calls, its own and its descendants' (a task's, an agent's). */
  tokens: Map<string, number>;
} = { trace: new Trace(), rows: [], collapsed: new Set(), filters: new Set(), slowest: new Set(), parents: new Set(), tokens: new Map() };

const KIND_ICONS: Record<Span['kind'], string> = {
  crew: 'organization',
  flow: 'git-merge',
  task: 'checklist',
  agent: 'person',
  llm: 'sparkle',
  tool: 'tools',
  method: 'symbol-method',
  event: 'circle-small',
};

/** The trace section, empty; filled by handleTrace. */
export function traceSection(): HTMLElement {
  const filters = h('div', { class: 'trace-filters', ariaLabel: t('traceFilter') });
  filters.setAttribute('role', 'group');
  for (const [filter, label, iconName] of [['llm', t('traceFilterModel'), 'sparkle'], ['tool', t('traceFilterTools'), 'tools'], ['errors', t('traceFilterErrors'), 'error']] as const) {
    const b = button(label, iconName, () => toggleFilter(filter, b), { id: `traceFilter-${filter}`, class: 'button secondary toggle' });
    b.setAttribute('aria-pressed', 'false');
    filters.append(b);
  }
  const grid = h('div', { id: 'traceGrid', class: 'trace-grid', ariaLabel: t('trace') });
  grid.setAttribute('role', 'treegrid');
  grid.tabIndex = 0;
  grid.append(h('div', { id: 'traceRows', class: 'trace-rows' }));
  grid.addEventListener('scroll', () => drawRows());
  grid.addEventListener('keydown', onKey);
  grid.addEventListener('click', onClick);
  return h(
    'section',
    { id: 'traceSection' },
    h(
      'div',
      { class: 'section-head' },
      h('h2', {}, t('trace')),
      h(
        'span',
        { class: 'trace-actions' },
        button(t('traceJumpToFailure'), 'debug-stackframe', jumpToFailure, { id: 'traceJump', class: 'button secondary' }),
        button(t('traceExport'), 'export', () => post({ type: 'action', action: 'exportTrace' }), { id: 'traceExport', class: 'button secondary' }),
        button(t('traceCompare'), 'diff', () => post({ type: 'action', action: 'compareTraces' }), { id: 'traceCompare', class: 'button secondary' }),
      ),
    ),
    h('p', { id: 'traceSummary', class: 'trace-summary' }),
    h('p', { id: 'traceNotice', class: 'muted' }),
    h('div', { id: 'traceBody' }, h('div', { class: 'trace-toolbar' }, filters, h('span', { id: 'traceAxis', class: 'muted trace-axis' })), grid, h('div', { id: 'traceDetails', class: 'trace-details' })),
  );
}

export function handleTrace(message: Extract<HostMessage, { type: 'trace' }>): void {
  if (message.reset) {
    state.trace = new Trace();
    state.rows = [];
  }
  if (message.info) {
    state.info = message.info;
  }
  state.trace.add(parseLines(utf8.decode(message.lines)));
  state.trace.settle(state.info?.endedAt !== undefined, state.info?.endedAt ?? now());
  refresh();
}

/** The running spans grow with the clock. */
export function tickTrace(): void {
  if (state.info?.endedAt === undefined && state.trace.spans.some((s) => s.state === 'running')) {
    drawRows();
    drawSummary();
  }
}

export function revealTrace(): void {
  byId('traceSection').scrollIntoView({ block: 'start' });
  if (!byId('traceBody').hidden) {
    if (!state.selected && state.rows.length > 0) {
      select(state.rows[0].id, false);
    }
    byId('traceGrid').focus({ preventScroll: true });
  }
}

export function jumpToFailure(): void {
  const failed = state.summary?.failing;
  if (!failed) {
    return;
  }
  // Unfold its ancestors and drop filters that would hide it.
  for (let span = state.trace.span(failed.id); span?.parentId; span = state.trace.span(span.parentId)) {
    state.collapsed.delete(span.parentId);
  }
  if (state.filters.size > 0 && !state.filters.has('errors')) {
    state.filters.clear();
    syncFilterButtons();
  }
  buildRows();
  select(failed.id, true);
  byId('traceSection').scrollIntoView({ block: 'start' });
  byId('traceGrid').focus({ preventScroll: true });
}

/** What tests read of the trace (PageReport). */
export function traceReport(): { traceSummary: string; traceNotice: string; traceRows: string; traceSelected: string; traceSpans: number; traceFailed: number; traceRunning: number } {
  const spans = state.trace.spans;
  return {
    traceSummary: byId('traceSummary')?.textContent ?? '',
    traceNotice: byId('traceNotice')?.textContent ?? '',
    traceRows: rowsText(),
    traceSelected: byId('traceDetails')?.textContent ?? '',
    traceSpans: spans.length,
    traceFailed: spans.filter((s) => s.state === 'failed').length,
    traceRunning: spans.filter((s) => s.state === 'running').length,
  };
}

/** The rows as PageReport.traceRows, as far as the host keeps them: 5,000 rows are 200 KB, of which it keeps 16. */
function rowsText(): string {
  const lines: string[] = [];
  let length = 0;
  for (const s of state.rows) {
    if (length > MAX_REPORT_STRING) {
      break;
    }
    const tokens = state.tokens.get(s.id);
    const line = `${'  '.repeat(s.depth)}${s.kind} ${s.name} ${s.state}${tokens !== undefined ? ` ${tokens.toLocaleString()} tokens` : ''}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

// ---- drawing ----

function refresh(): void {
  state.summary = summarise(state.trace);
  state.slowest = new Set(state.summary.slowest.slice(0, SLOWEST).map((s) => s.id));
  buildRows();
  drawNotice();
  drawSummary();
  drawRows();
  drawDetails();
}

function now(): number {
  return Date.now() + page.clockOffset;
}

function drawNotice(): void {
  const info = state.info;
  const notes: string[] = [];
  const noEvents = state.trace.spans.length === 0;
  if (info?.log === 'off' || (info?.log === 'absent' && noEvents)) {
    notes.push(t('traceNoEvents'));
  } else if (noEvents) {
    notes.push(info?.endedAt !== undefined ? t('traceNoneReported') : t('traceWaiting'));
  }
  if (info && info.unseen > 0) {
    notes.push(t('traceUnseen', info.unseen.toLocaleString()));
  }
  if (info && info.dropped > 0) {
    notes.push(t('traceDropped', info.dropped.toLocaleString(), info.kept.toLocaleString()));
  }
  show(byId('traceExport'), !noEvents);
  show(byId('traceCompare'), !noEvents);
  byId('traceNotice').textContent = notes.join(' ');
  show(byId('traceNotice'), notes.length > 0);
  show(byId('traceBody'), !noEvents);
}

function drawSummary(): void {
  const summary = state.summary;
  if (!summary || state.trace.spans.length === 0) {
    byId('traceSummary').textContent = '';
    show(byId('traceJump'), false);
    return;
  }
  const info = state.info;
  const parts = [
    summary.durationMs !== undefined ? spanTime(summary.durationMs) : undefined,
    counted(summary.tasks, 'traceTask', 'traceTasks'),
    counted(summary.agents, 'traceAgent', 'traceAgents'),
    counted(summary.modelCalls, 'traceModelCall', 'traceModelCalls'),
    counted(summary.toolCalls, 'traceToolCall', 'traceToolCalls'),
    summary.errors > 0 ? counted(summary.errors, 'traceError', 'traceErrors') : undefined,
  ];
  const tokens = summary.tokens.total ?? info?.usage?.totalTokens;
  if (tokens !== undefined) {
    parts.push(t('traceTokens', tokens.toLocaleString()));
  }
  const cost = info ? estimateCost(state.trace.spans, info.prices, info.defaultModel) : undefined;
  if (cost?.usd !== undefined) {
    // Some calls had no price: what is priced is a floor.
    parts.push(t(cost.unpricedTokens > 0 ? 'traceCostAtLeast' : 'traceCost', formatUsd(cost.usd)));
  }
  if (info?.origin || info?.triggeredBy) {
    parts.push(t('traceOrigin', [info.triggeredBy, info.origin].filter(Boolean).join(', ')));
  }
  byId('traceSummary').textContent = parts.filter(Boolean).join(' · ');
  show(byId('traceJump'), summary.failing !== undefined);
}

function counted(n: number, one: PageStringKey, many: PageStringKey): string {
  return n === 1 ? t(one) : t(many, n.toLocaleString());
}

/** A step's time: model and tool calls take milliseconds to seconds, so below a minute it keeps a tenth. */
function spanTime(ms: number): string {
  if (ms < 1000) {
    return t('traceMs', Math.round(ms));
  }
  if (ms < 60_000) {
    return t('traceSeconds', (Math.round(ms / 100) / 10).toLocaleString());
  }
  return formatDuration(ms);
}

function formatUsd(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : usd >= 0.01 ? `$${usd.toFixed(3)}` : `$${usd.toFixed(4)}`;
}

/** The rows in order, without folded descendants and, with a filter, only matching rows and their ancestors. */
function buildRows(): void {
  const spans = state.trace.spans;
  let keep: Set<string> | undefined;
  if (state.filters.size > 0) {
    keep = new Set();
    for (const span of spans) {
      if (matches(span)) {
        for (let s: Span | undefined = span; s && !keep.has(s.id); s = s.parentId ? state.trace.span(s.parentId) : undefined) {
          keep.add(s.id);
        }
      }
    }
  }
  state.parents = new Set();
  for (let i = 0; i + 1 < spans.length; i++) {
    if (spans[i + 1].depth > spans[i].depth) {
      state.parents.add(spans[i].id);
    }
  }
  // Children come after their parent: from the end, each span's sum is whole before it is added to its parent's.
  state.tokens = new Map();
  for (let i = spans.length - 1; i >= 0; i--) {
    const span = spans[i];
    const own = span.kind === 'llm' ? (span.usage?.totalTokens ?? (span.usage?.promptTokens ?? 0) + (span.usage?.completionTokens ?? 0)) : 0;
    const sum = own + (state.tokens.get(span.id) ?? 0);
    if (sum > 0) {
      state.tokens.set(span.id, sum);
      if (span.parentId !== undefined) {
        state.tokens.set(span.parentId, (state.tokens.get(span.parentId) ?? 0) + sum);
      }
    }
  }
  const rows: Span[] = [];
  let foldedDepth = Infinity;
  for (const span of spans) {
    if (span.depth > foldedDepth) {
      continue;
    }
    foldedDepth = Infinity;
    if (keep && !keep.has(span.id)) {
      continue;
    }
    rows.push(span);
    if (state.collapsed.has(span.id)) {
      foldedDepth = span.depth;
    }
  }
  state.rows = rows;
  byId('traceRows').style.height = `${rows.length * ROW_HEIGHT}px`;
  const grid = byId('traceGrid');
  grid.setAttribute('aria-rowcount', String(rows.length));
  if (state.selected && !rows.some((r) => r.id === state.selected)) {
    state.selected = undefined;
  }
}

function matches(span: Span): boolean {
  return (state.filters.has('llm') && span.kind === 'llm') || (state.filters.has('tool') && span.kind === 'tool') || (state.filters.has('errors') && span.state === 'failed');
}

/** The time axis: the first start to the last end (now, while the run goes on). */
function axis(): { from: number; to: number } {
  let from = Infinity;
  let to = -Infinity;
  for (const span of state.trace.spans) {
    const start = span.start ?? span.end;
    if (start !== undefined) {from = Math.min(from, start);}
    const end = span.end ?? (span.state === 'running' ? now() : span.start);
    if (end !== undefined) {to = Math.max(to, end);}
  }
  if (!Number.isFinite(from)) {
    from = state.info?.startedAt ?? now();
  }
  if (!Number.isFinite(to) || to <= from) {
    to = from + 1;
  }
  return { from, to };
}

function spanEnd(span: Span): number | undefined {
  return span.end ?? (span.state === 'running' ? now() : undefined);
}

function durationOf(span: Span): number | undefined {
  const end = spanEnd(span);
  return span.start !== undefined && end !== undefined ? Math.max(0, end - span.start) : undefined;
}

function drawRows(): void {
  const grid = byId('traceGrid');
  const container = byId('traceRows');
  if (!grid || !container) {
    return;
  }
  const { from, to } = axis();
  byId('traceAxis').textContent = t('traceAxis', spanTime(to - from));
  const first = Math.max(0, Math.floor(grid.scrollTop / ROW_HEIGHT) - OVERSCAN);
  const visible = Math.ceil((grid.clientHeight || 400) / ROW_HEIGHT) + 2 * OVERSCAN;
  const rows = state.rows.slice(first, first + visible);
  const elements: HTMLElement[] = [];
  rows.forEach((span, i) => elements.push(rowElement(span, first + i, from, to)));
  container.replaceChildren(...elements);
  if (state.selected) {
    grid.setAttribute('aria-activedescendant', rowId(state.selected));
  } else {
    grid.removeAttribute('aria-activedescendant');
  }
}

function rowId(spanId: string): string {
  return `trace-row-${encodeURIComponent(spanId)}`;
}

function hasChildren(span: Span): boolean {
  return state.parents.has(span.id);
}

function rowElement(span: Span, index: number, from: number, to: number): HTMLElement {
  const parent = hasChildren(span);
  const row = h('div', { id: rowId(span.id), class: `trace-row kind-${span.kind} state-${span.state}${span.id === state.selected ? ' selected' : ''}` });
  row.setAttribute('role', 'row');
  row.setAttribute('aria-level', String(span.depth + 1));
  row.setAttribute('aria-rowindex', String(index + 1));
  row.setAttribute('aria-selected', String(span.id === state.selected));
  if (parent) {
    row.setAttribute('aria-expanded', String(!state.collapsed.has(span.id)));
  }
  row.dataset.span = span.id;
  row.style.top = `${index * ROW_HEIGHT}px`;
  const twisty = parent ? icon(state.collapsed.has(span.id) ? 'chevron-right' : 'chevron-down') : h('span', { class: 'twisty-space' });
  twisty.classList.add('twisty');
  const name = h('span', { class: 'cell name' }, twisty, icon(span.state === 'failed' ? 'error' : KIND_ICONS[span.kind]), h('span', { class: 'label' }, span.name));
  // A hostile chain may nest thousands deep: the indent stops growing where the name would have no room.
  name.style.paddingLeft = `${Math.min(span.depth, MAX_INDENT) * 14}px`;
  name.setAttribute('role', 'gridcell');
  name.title = span.name;
  const duration = durationOf(span);
  const slow = state.slowest.has(span.id);
  const time = h('span', { class: `cell duration${slow ? ' slow' : ''}`, title: slow ? t('traceSlow') : undefined }, duration !== undefined ? spanTime(duration) : '');
  time.setAttribute('role', 'gridcell');
  const tokenCount = state.tokens.get(span.id);
  const tokens = h('span', { class: 'cell tokens' }, tokenCount !== undefined ? tokenCount.toLocaleString() : '');
  tokens.setAttribute('role', 'gridcell');
  const lane = h('span', { class: 'cell lane' });
  lane.setAttribute('role', 'gridcell');
  const start = span.start ?? span.end;
  if (start !== undefined) {
    const end = spanEnd(span) ?? start;
    const bar = h('span', { class: `bar state-${span.state}${span.start === undefined || end === start ? ' point' : ''}` });
    bar.style.left = `${((start - from) / (to - from)) * 100}%`;
    bar.style.width = `${Math.max(0, ((end - start) / (to - from)) * 100)}%`;
    lane.append(bar);
  }
  row.append(name, time, tokens, lane);
  return row;
}

function drawDetails(): void {
  const box = byId('traceDetails');
  const span = state.selected ? state.trace.span(state.selected) : undefined;
  if (!span) {
    box.replaceChildren();
    show(box, false);
    return;
  }
  const list = h('dl', { class: 'fields' });
  const add = (label: string, value: string | undefined) => {
    if (value) {
      list.append(h('dt', {}, label), h('dd', {}, value));
    }
  };
  const duration = durationOf(span);
  add(t('traceName'), span.name);
  add(t('traceType'), span.endType ? `${span.type} → ${span.endType}` : span.type);
  add(t('traceState'), t(`traceState.${span.state}` as 'traceState.ok'));
  add(t('traceStarted'), span.start !== undefined ? new Date(span.start).toLocaleTimeString() : undefined);
  add(t('traceDuration'), duration !== undefined ? spanTime(duration) : undefined);
  add(t('traceModel'), span.model);
  if (span.usage) {
    const u = span.usage;
    add(t('traceTokenDetail'), [u.promptTokens !== undefined ? t('tracePrompt', u.promptTokens.toLocaleString()) : '', u.completionTokens !== undefined ? t('traceCompletion', u.completionTokens.toLocaleString()) : '', u.cachedPromptTokens ? t('traceCached', u.cachedPromptTokens.toLocaleString()) : ''].filter(Boolean).join(', '));
  }
  add(t('traceToolArgs'), span.toolArgs);
  add(t('traceFromCache'), span.fromCache ? t('yes') : undefined);
  add(t('traceChunks'), span.chunks ? span.chunks.toLocaleString() : undefined);
  box.replaceChildren(
    h('div', { class: 'section-head' }, h('h3', {}, span.name), button(t('traceCopy'), 'copy', () => post({ type: 'copyText', text: detailsText(span) }), { id: 'traceCopy', class: 'button secondary' })),
    list,
  );
  if (span.error) {
    box.append(h('pre', { class: 'error-text' }, span.error));
  }
  show(box, true);
}

function detailsText(span: Span): string {
  return JSON.stringify({ ...span, eventKeys: undefined }, null, 2);
}

// ---- keys and clicks ----

function select(id: string | undefined, scroll: boolean): void {
  state.selected = id;
  if (id && scroll) {
    const index = state.rows.findIndex((r) => r.id === id);
    const grid = byId('traceGrid');
    const top = index * ROW_HEIGHT;
    if (top < grid.scrollTop) {
      grid.scrollTop = top;
    } else if (top + ROW_HEIGHT > grid.scrollTop + grid.clientHeight) {
      grid.scrollTop = top + ROW_HEIGHT - grid.clientHeight;
    }
  }
  drawRows();
  drawDetails();
}

function toggleFold(span: Span): void {
  if (state.collapsed.has(span.id)) {
    state.collapsed.delete(span.id);
  } else {
    state.collapsed.add(span.id);
  }
  buildRows();
  drawRows();
}

function onClick(event: MouseEvent): void {
  const row = event.target instanceof Element ? event.target.closest<HTMLElement>('.trace-row') : null;
  const id = row?.dataset.span;
  if (!id) {
    return;
  }
  const span = state.trace.span(id);
  if (span && event.target instanceof Element && event.target.closest('.twisty')) {
    toggleFold(span);
  }
  select(id, false);
}

function onKey(event: KeyboardEvent): void {
  const rows = state.rows;
  if (rows.length === 0) {
    return;
  }
  const index = state.selected ? rows.findIndex((r) => r.id === state.selected) : -1;
  const current = index >= 0 ? rows[index] : undefined;
  const page = Math.max(1, Math.floor(byId('traceGrid').clientHeight / ROW_HEIGHT) - 1);
  let next: number | undefined;
  switch (event.key) {
    case 'ArrowDown':
      next = Math.min(rows.length - 1, index + 1);
      break;
    case 'ArrowUp':
      next = Math.max(0, index - 1);
      break;
    case 'PageDown':
      next = Math.min(rows.length - 1, Math.max(0, index) + page);
      break;
    case 'PageUp':
      next = Math.max(0, index - page);
      break;
    case 'Home':
      next = 0;
      break;
    case 'End':
      next = rows.length - 1;
      break;
    case 'ArrowRight':
      if (current && hasChildren(current)) {
        if (state.collapsed.has(current.id)) {
          toggleFold(current);
        } else {
          next = index + 1;
        }
      }
      break;
    case 'ArrowLeft':
      if (current && hasChildren(current) && !state.collapsed.has(current.id)) {
        toggleFold(current);
      } else if (current?.parentId) {
        next = rows.findIndex((r) => r.id === current.parentId);
      }
      break;
    case 'Enter':
    case ' ':
      if (current && hasChildren(current)) {
        toggleFold(current);
      }
      break;
    default:
      return;
  }
  event.preventDefault();
  if (next !== undefined && next >= 0) {
    select(rows[next].id, true);
  }
}

function toggleFilter(filter: Filter, b: HTMLButtonElement): void {
  if (state.filters.has(filter)) {
    state.filters.delete(filter);
  } else {
    state.filters.add(filter);
  }
  b.setAttribute('aria-pressed', String(state.filters.has(filter)));
  buildRows();
  drawRows();
  drawDetails();
}

function syncFilterButtons(): void {
  for (const filter of ['llm', 'tool', 'errors'] as const) {
    byId(`traceFilter-${filter}`).setAttribute('aria-pressed', String(state.filters.has(filter)));
  }
}
