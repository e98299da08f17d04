// A run's trace (runTracking/trace/) in a few lines for the editor's AI and @crews /why: duration, counts, tokens and
// an estimated cost, the step that failed and its error, the slowest steps, the model calls that used the most
// tokens, and what the event log missed. One builder (traceFacts) and two renderings: traceSummaryText, plain English
// for a model (the #crewRun tool and /why's question), and traceSummaryMarkdown, the user's words for /why without a
// model. Bounded whatever the trace: a fixed number of steps, every crew-written string clipped (names, models,
// errors, event types), in an untrusted fence (model) or escaped (Markdown). The events were redacted when read;
// nothing here reads a token or makes a URL. Pure (no `vscode`): unit-tested in plain Node.
import * as l10n from '@vscode/l10n';
import type { RunEvent } from '../api/types';
import { isFinished, type RunDetails, type RunRecord } from '../runTracking/model';
import { estimateCost, type CostEstimate, type PriceTable } from '../runTracking/trace/cost';
import type { Span, SpanKind } from '../runTracking/trace/span';
import { buildTrace } from '../runTracking/trace/traceModel';
import { spanDuration, summarise, usageTokens, type TraceSummary } from '../runTracking/trace/traceSummary';
import { formatDuration } from '../util/duration';
import { oneLine, stripControls } from '../util/inertText';
import { escapeMarkdown, fenceFor } from '../util/markdownText';
import { fenceUntrusted, joinCapped, pageOf } from './chatText';

/** Steps listed per list (slowest, token-heaviest). */
export const TRACE_TOP = 3;
/** Characters of a crew-written name (task, agent, model, tool, event type) in the summary. */
export const TRACE_NAME_CHARS = 48;
/** Characters of the failing step's error in the summary for a model. */
export const TRACE_ERROR_CHARS = 240;
/** Characters of the failing step's error shown to the user (/why without a model). */
export const TRACE_ERROR_CHARS_SHOWN = 1000;
/**
 * The most the model's summary holds (about 650 tokens; a usual one is a third of it): what the lists and clips above
 * allow. joinCapped is the backstop, never cutting inside a fence.
 */
export const TRACE_TEXT_MAX_CHARS = 2600;

/** The user's price table, and the model a crew's calls are priced at when its events name none (runView/traceSettings.ts). */
export interface TracePricing {
  prices: Readonly<PriceTable>;
  modelFor(crew: { url: string; name: string }): string | undefined;
}

/** One step of the trace, as the summary names it. Every string but `kind` is the crew's. */
export interface TraceStep {
  kind: SpanKind;
  name: string;
  /** The task the step ran in (its nearest task ancestor), when it is not a task itself. */
  task?: string;
  durationMs?: number;
  tokens?: number;
  error?: string;
}

export type TraceFacts =
  | { kind: 'noEvents'; running: boolean }
  | {
      kind: 'trace';
      /** Events the trace is built from, and those it could not hold (over its size). */
      events: number;
      notShown: number;
      /** Events the run emitted that never reached Crew Runs (the status lists only the latest), and those over its cap. */
      unseen: number;
      dropped: number;
      summary: TraceSummary;
      /** The summary's tokens, else the run's totals from its status (`fromStatus`). */
      tokens: { total: number; prompt: number; completion: number; cached: number; fromStatus: boolean };
      cost: CostEstimate;
      failing?: TraceStep;
      slowest: TraceStep[];
      tokenHogs: TraceStep[];
    };

/** What a run's events add up to. `at`: now, for a run that has not ended (its open steps run until then). */
export function traceFacts(run: RunRecord, details: RunDetails, events: readonly RunEvent[], prices: Readonly<PriceTable>, model?: string, at = Date.now()): TraceFacts {
  const log = details.lastSnapshot?.eventLog;
  if (events.length === 0) {
    // Waiting: the run has not been checked yet, or its log is on and has listed nothing so far.
    return { kind: 'noEvents', running: !isFinished(run) && (log?.present === true || !details.lastSnapshot) };
  }
  const ended = isFinished(run);
  const trace = buildTrace(events, ended, ended ? (run.finishedAt ?? run.updatedAt) : at);
  const summary = summarise(trace, TRACE_TOP);
  const byId = new Map<string, Span>();
  for (const span of trace.spans) {
    byId.set(span.id, span);
  }
  const step = (span: Span): TraceStep => ({
    kind: span.kind,
    name: span.name,
    task: span.kind === 'task' ? undefined : taskOf(span, byId),
    durationMs: spanDuration(span),
    tokens: span.kind === 'llm' ? usageTokens(span.usage) || undefined : undefined,
    error: span.error,
  });
  const kept = details.events?.kept ?? events.length;
  const dropped = details.events?.dropped ?? 0;
  const statusUsage = log?.usage;
  const fromStatus = summary.tokens.total === 0 && (statusUsage?.totalTokens ?? 0) > 0;
  return {
    kind: 'trace',
    events: events.length,
    notShown: trace.notShown,
    unseen: log?.count !== undefined ? Math.max(0, log.count - kept - dropped) : 0,
    dropped,
    summary,
    tokens: fromStatus
      ? { total: statusUsage?.totalTokens ?? 0, prompt: statusUsage?.promptTokens ?? 0, completion: statusUsage?.completionTokens ?? 0, cached: statusUsage?.cachedPromptTokens ?? 0, fromStatus }
      : { ...summary.tokens, fromStatus },
    cost: estimateCost(trace.spans, prices, model),
    failing: summary.failing && step(summary.failing),
    slowest: summary.slowest.slice(0, TRACE_TOP).map(step),
    tokenHogs: summary.tokenHogs.slice(0, TRACE_TOP).map(step),
  };
}

/** The nearest task the span ran in (a few levels up at most: crew → task → agent → call). */
function taskOf(span: Span, byId: ReadonlyMap<string, Span>): string | undefined {
  let parent = span.parentId === undefined ? undefined : byId.get(span.parentId);
  for (let depth = 0; parent && depth < 16; depth++) {
    if (parent.kind === 'task') {
      return parent.name;
    }
    parent = parent.parentId === undefined ? undefined : byId.get(parent.parentId);
  }
  return undefined;
}

// ---- for a model (plain English, like toolResults.ts) ----

const NO_EVENT_LOG =
  "Trace: none. This run's crew reported no event log, so there are no steps, timings or per-call tokens to show. To get one, redeploy the crew on a newer crewai (1.15.21 and older send none) or set CREWAI_STATUS_EVENTS=true in the deployment's environment variables.";
const NO_EVENTS_YET = 'Trace: no events yet (the run has not reported its first ones).';

const KIND_WORDS: Readonly<Record<SpanKind, string>> = {
  crew: 'crew',
  flow: 'flow',
  task: 'task',
  agent: 'agent',
  llm: 'model call',
  tool: 'tool call',
  method: 'flow method',
  event: 'event',
};

const en = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${en(n)} ${n === 1 ? one : many}`;

/** `850 ms`, `5.5s`, `3m 05s`. */
function spanTime(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : ms < 60_000 ? `${(Math.round(ms / 100) / 10).toLocaleString('en-US')}s` : formatDuration(ms);
}

/** `$0.0123`, `$0.123`, `$1.23`. */
export function formatUsd(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : usd >= 0.01 ? `$${usd.toFixed(3)}` : `$${usd.toFixed(4)}`;
}

/**
 * Crew text for the fence: one inert line, clipped, and runs of backticks longer than three cut to three (marked `…`),
 * so that no clipped name or error needs a long fence: the fence, and so the summary, stays the size counted above.
 */
function clip(text: string, max: number): string {
  return oneLine(text.replace(/`{4,}/g, '```…'), max);
}

/** A step named for the fence: its kind (ours), name and task (the crew's, clipped). */
function stepLine(step: TraceStep): string {
  const task = step.task ? ` (in task ${clip(step.task, TRACE_NAME_CHARS)})` : '';
  return `${KIND_WORDS[step.kind]} ${clip(step.name, TRACE_NAME_CHARS)}${task}`;
}

/**
 * A run's trace for a model: a few hundred tokens at most (TRACE_TEXT_MAX_CHARS), the crew's words only inside the
 * untrusted fence; one line when the run has no events.
 */
export function traceSummaryText(run: RunRecord, details: RunDetails, events: readonly RunEvent[], prices: Readonly<PriceTable>, model?: string, at = Date.now()): string {
  return factsText(traceFacts(run, details, events, prices, model, at), run);
}

function factsText(facts: TraceFacts, run: RunRecord): string {
  if (facts.kind === 'noEvents') {
    return facts.running ? NO_EVENTS_YET : NO_EVENT_LOG;
  }
  const s = facts.summary;
  const counts = [
    plural(s.tasks, 'task'),
    plural(s.agents, 'agent'),
    plural(s.modelCalls, 'model call'),
    plural(s.toolCalls, 'tool call'),
    plural(s.errors, 'error'),
    ...(s.running ? [`${plural(s.running, 'step')} still running`] : []),
    ...(s.lost ? [`${plural(s.lost, 'step')} whose end was never reported`] : []),
  ];
  const head = [
    `Trace (built from ${plural(facts.events, 'event')} of the run's event log):`,
    `Duration: ${s.durationMs !== undefined ? spanTime(s.durationMs) : 'unknown'}; ${counts.join(', ')}.`,
  ];
  const t = facts.tokens;
  if (t.total > 0) {
    const parts = [t.prompt ? `prompt ${en(t.prompt)}${t.cached ? ` (${en(t.cached)} of them cached)` : ''}` : '', t.completion ? `completion ${en(t.completion)}` : ''].filter(Boolean);
    const without = !t.fromStatus && s.tokens.callsWithoutUsage ? `; ${plural(s.tokens.callsWithoutUsage, 'model call')} reported no usage` : '';
    head.push(`Tokens: ${en(t.total)}${parts.length ? ` (${parts.join(', ')})` : ''}${t.fromStatus ? " (the run's totals from its status; its events reported none)" : ''}${without}.`);
    head.push(costLine(facts.cost, t.fromStatus));
  }
  const named: string[] = [];
  if (facts.failing) {
    const f = facts.failing;
    named.push(`Failing step: ${stepLine(f)}${f.durationMs !== undefined ? `, after ${spanTime(f.durationMs)}` : ''}`);
    named.push(`Its error: ${f.error ? clip(f.error, TRACE_ERROR_CHARS) : '(none reported)'}`);
  }
  if (facts.slowest.length) {
    named.push(`Slowest steps: ${facts.slowest.map((x, i) => `${i + 1}) ${stepLine(x)} ${spanTime(x.durationMs ?? 0)}`).join('; ')}`);
  }
  if (facts.tokenHogs.length) {
    named.push(`Most tokens: ${facts.tokenHogs.map((x, i) => `${i + 1}) ${stepLine(x)} ${en(x.tokens ?? 0)} tokens`).join('; ')}`);
  }
  const notes: string[] = [];
  if (!facts.failing && run.state === 'failed') {
    notes.push('No step of the trace failed: the failure is not in its events (see the error above).');
  }
  if (facts.unseen > 0) {
    notes.push(
      `${plural(facts.unseen, 'earlier event was', 'earlier events were')} never seen (the status lists only the latest ones): the trace misses them. A larger CREWAI_STATUS_MAX_EVENTS in the deployment's environment variables keeps more.`,
    );
  }
  if (facts.dropped > 0 || facts.notShown > 0) {
    notes.push(`${plural(facts.dropped + facts.notShown, 'event')} over Crew Runs' limits were not kept: the trace is partial.`);
  }
  return joinCapped(
    [head.join('\n'), named.length ? fenceUntrusted(named.join('\n'), "The steps as the crew's events name them") : '', notes.join('\n')],
    TRACE_TEXT_MAX_CHARS,
  );
}

/** What /why gives a model to explain: the run's state, its error (fenced) and its trace summary. */
export function whyData(run: RunRecord, details: RunDetails, traceSummary: string): string {
  const quoted = (text: string) => JSON.stringify(oneLine(text, 80));
  return joinCapped([
    `Run ${quoted(run.label)} of crew ${quoted(run.crewName)}: ${run.state}${run.finishedAt ? `, ran ${spanTime(Math.max(0, run.finishedAt - run.startedAt))}` : ''}.`,
    details.error ? fenceUntrusted(clip(details.error, 600), 'The run\'s error as the crew reported it') : '',
    traceSummary,
  ]);
}

function costLine(cost: CostEstimate, fromStatus: boolean): string {
  if (cost.usd !== undefined) {
    const floor = cost.unpricedTokens > 0 ? `at least ${formatUsd(cost.usd)} (${en(cost.unpricedTokens)} tokens had no price)` : `about ${formatUsd(cost.usd)}`;
    return `Estimated cost: ${floor}. An estimate from list prices, not a bill.`;
  }
  return fromStatus
    ? 'Estimated cost: not known (the totals do not say which model was used).'
    : "Estimated cost: not known (no price for the models used; the user can add one in the setting crewRuns.trace.modelPrices).";
}

// ---- for the user (/why without a model): Markdown, crew text escaped ----

const md = (text: string) => escapeMarkdown(oneLine(text, TRACE_NAME_CHARS));
const num = (n: number) => n.toLocaleString();

function kindWord(kind: SpanKind): string {
  switch (kind) {
    case 'crew':
      return l10n.t('crew');
    case 'flow':
      return l10n.t('flow');
    case 'task':
      return l10n.t('task');
    case 'agent':
      return l10n.t('agent');
    case 'llm':
      return l10n.t('model call');
    case 'tool':
      return l10n.t('tool call');
    case 'method':
      return l10n.t('flow method');
    case 'event':
      return l10n.t('event');
  }
}

function stepMarkdown(step: TraceStep): string {
  const name = `${kindWord(step.kind)} **${md(step.name)}**`;
  return step.task ? l10n.t('{0} in task {1}', name, md(step.task)) : name;
}

function counted(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/**
 * A run's trace as Markdown for the chat: our words, the crew's names escaped, its error in a code fence it cannot
 * close. Bounded like the model's summary (its error longer: the user reads it).
 */
export function traceSummaryMarkdown(facts: TraceFacts, run: Pick<RunRecord, 'state'>): string {
  if (facts.kind === 'noEvents') {
    return facts.running
      ? l10n.t('No trace yet: the run has not reported its first events.')
      : l10n.t('No trace: this run’s crew reported no event log. Redeploy the crew on a newer crewai (1.15.21 and older send none), or set CREWAI_STATUS_EVENTS=true in its environment variables.');
  }
  const s = facts.summary;
  const counts = [
    s.durationMs !== undefined ? spanTime(s.durationMs) : undefined,
    counted(s.tasks, l10n.t('1 task'), l10n.t('{0} tasks', num(s.tasks))),
    counted(s.agents, l10n.t('1 agent'), l10n.t('{0} agents', num(s.agents))),
    counted(s.modelCalls, l10n.t('1 model call'), l10n.t('{0} model calls', num(s.modelCalls))),
    counted(s.toolCalls, l10n.t('1 tool call'), l10n.t('{0} tool calls', num(s.toolCalls))),
    s.errors ? counted(s.errors, l10n.t('1 error'), l10n.t('{0} errors', num(s.errors))) : undefined,
  ];
  const lines = [`**${l10n.t('Trace')}:** ${counts.filter(Boolean).join(' · ')}`];
  if (facts.tokens.total > 0) {
    const cost = facts.cost.usd === undefined ? '' : ` · ${facts.cost.unpricedTokens > 0 ? l10n.t('estimated cost at least {0}', formatUsd(facts.cost.usd)) : l10n.t('estimated cost about {0}', formatUsd(facts.cost.usd))} ${l10n.t('(an estimate from list prices, not a bill)')}`;
    lines.push('', `${l10n.t('{0} tokens', num(facts.tokens.total))}${cost}`);
  }
  const sections = [lines.join('\n')];
  if (facts.failing) {
    const f = facts.failing;
    const after = f.durationMs !== undefined ? ` · ${spanTime(f.durationMs)}` : '';
    const failing = [`**${l10n.t('Failing step')}:** ${stepMarkdown(f)}${after}`];
    if (f.error) {
      const error = pageOf(stripControls(f.error), 0, TRACE_ERROR_CHARS_SHOWN).text;
      const fence = fenceFor(error);
      failing.push('', `${fence}text`, error, fence);
    }
    sections.push(failing.join('\n'));
  } else if (run.state === 'failed') {
    sections.push(l10n.t('No step of the trace failed: the failure is not in its events (open the run for its error).'));
  }
  if (facts.slowest.length) {
    sections.push([`**${l10n.t('Slowest steps')}**`, '', ...facts.slowest.map((x, i) => `${i + 1}. ${stepMarkdown(x)} · ${spanTime(x.durationMs ?? 0)}`)].join('\n'));
  }
  if (facts.tokenHogs.length) {
    sections.push([`**${l10n.t('Most tokens')}**`, '', ...facts.tokenHogs.map((x, i) => `${i + 1}. ${stepMarkdown(x)} · ${l10n.t('{0} tokens', num(x.tokens ?? 0))}`)].join('\n'));
  }
  if (facts.unseen > 0) {
    sections.push(`_${l10n.t('{0} earlier events were never seen (the status lists only the latest ones): a larger CREWAI_STATUS_MAX_EVENTS keeps more.', num(facts.unseen))}_`);
  }
  if (facts.dropped + facts.notShown > 0) {
    sections.push(`_${l10n.t('{0} events over Crew Runs’ limits were not kept: the trace is partial.', num(facts.dropped + facts.notShown))}_`);
  }
  return sections.join('\n\n');
}
