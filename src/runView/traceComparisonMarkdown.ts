// The text of Compare Trace with Another Run…: the two runs, their totals, the changed steps, then every step of the
// merged tree. Names come from the crew and are untrusted: each is one line, escaped so nothing in it formats, links
// or embeds (no HTML, no entity, no autolink); the only Markdown here is ours. Pure: no `vscode` (l10n through
// `@vscode/l10n`), so plain-Node tests can read it.
import * as l10n from '@vscode/l10n';
import type { SpanKind } from '../runTracking/trace/span';
import { COMPARE_LIMIT, type ComparedStep, SLOWER_MIN_MS, SLOWER_RATIO, type StepSide, type StepVerdict, type TraceComparison, type TraceTotals } from '../runTracking/trace/traceCompare';
import { formatDuration } from '../util/duration';
import { oneLine } from '../util/inertText';
import { escapeMarkdown } from '../util/markdownText';

/** One run as the header shows it; the strings are formatted by the caller (dates, state words). */
export interface ComparedRun {
  crewName: string;
  label: string;
  started: string;
  state: string;
  /** Why it has no trace: `off`: its runtime sends no event log; `none`: it reported no events. */
  noEvents?: 'off' | 'none';
  /** Earlier events never seen (the status's window moved on between two polls). */
  unseen?: number;
}

/** Changed steps listed before the whole table; the rest are marked there. */
export const MAX_CHANGED_ROWS = 200;
/** Names cut to this many characters, ancestors in a changed step's path to this many. */
const NAME_CHARS = 80;
const PATH_ANCESTORS = 3;
/** Indent guides at most this deep: past it the depth column says the rest. */
const MAX_INDENT = 12;

export function comparisonMarkdown(a: ComparedRun, b: ComparedRun, comparison: TraceComparison | undefined): string {
  const parts = [`# ${text(l10n.t('Trace comparison'))}`, runsTable(a, b)];
  const notes = [noteOf('A', a), noteOf('B', b)].filter((note): note is string => note !== undefined);
  if (a.noEvents || b.noEvents || !comparison) {
    parts.push(...notes);
    return `${parts.join('\n\n')}\n`;
  }
  const changed = changedRows(comparison.steps);
  parts.push(`## ${text(l10n.t('Totals'))}`, totalsTable(comparison), ...notes, verdictLine(comparison.steps, changed), text(explanation()));
  if (comparison.notCompared.a > 0 || comparison.notCompared.b > 0) {
    parts.push(text(l10n.t('Only the first {0} steps of each trace are compared ({1} of A and {2} of B left out).', COMPARE_LIMIT.toLocaleString(), comparison.notCompared.a.toLocaleString(), comparison.notCompared.b.toLocaleString())));
  }
  if (changed.length > 0) {
    parts.push(`## ${text(l10n.t('Changed steps'))}`, stepTable(comparison.steps, changed.slice(0, MAX_CHANGED_ROWS), true));
    if (changed.length > MAX_CHANGED_ROWS) {
      parts.push(text(l10n.t('{0} more changed steps are marked in All steps below.', (changed.length - MAX_CHANGED_ROWS).toLocaleString())));
    }
  }
  parts.push(`## ${text(l10n.t('All steps'))}`, stepTable(comparison.steps, comparison.steps.map((_, i) => i), false));
  return `${parts.join('\n\n')}\n`;
}

/** Untrusted (or translated) text on one line, inert for Markdown: `&` too, so no entity becomes a character. */
function text(value: string, max = 2_000): string {
  return escapeMarkdown(oneLine(value, max)).replace(/&/g, '\\&');
}

function runsTable(a: ComparedRun, b: ComparedRun): string {
  const rows: [string, (run: ComparedRun) => string][] = [
    [l10n.t('Crew'), (run) => run.crewName],
    [l10n.t('Run'), (run) => run.label],
    [l10n.t('Started'), (run) => run.started],
    [l10n.t('State'), (run) => run.state],
  ];
  return table(
    ['', 'A', 'B'],
    ['---', '---', '---'],
    rows.map(([name, value]) => [text(name), text(value(a), NAME_CHARS), text(value(b), NAME_CHARS)]),
  );
}

function noteOf(which: 'A' | 'B', run: ComparedRun): string | undefined {
  const label = oneLine(run.label, NAME_CHARS);
  if (run.noEvents === 'off') {
    return `> ${text(
      l10n.t(
        '{0} ({1}) has no trace: its crew’s runtime sends no event log. Redeploy the crew on a newer crewai, or set CREWAI_STATUS_EVENTS=true in its environment variables, and run it again.',
        which,
        label,
      ),
    )}`;
  }
  if (run.noEvents === 'none') {
    return `> ${text(l10n.t('{0} ({1}) has no trace: it reported no events.', which, label))}`;
  }
  if (run.unseen !== undefined && run.unseen > 0) {
    return `> ${text(l10n.t('The trace of {0} is incomplete: {1} earlier events were never seen, so steps may show as added or missing that were not.', which, run.unseen.toLocaleString()))}`;
  }
  return undefined;
}

function totalsTable(comparison: TraceComparison): string {
  const { a, b, delta } = comparison.totals;
  const count = (value: number) => value.toLocaleString();
  const rows: [string, (t: TraceTotals) => string, string][] = [
    [l10n.t('Duration'), (t) => duration(t.durationMs), delta.durationMs === undefined ? '—' : signedDuration(delta.durationMs)],
    [l10n.t('Tokens'), (t) => count(t.tokens), signed(delta.tokens)],
    [l10n.t('Model calls'), (t) => count(t.modelCalls), signed(delta.modelCalls)],
    [l10n.t('Tool calls'), (t) => count(t.toolCalls), signed(delta.toolCalls)],
    [l10n.t('Errors'), (t) => count(t.errors), signed(delta.errors)],
    [l10n.t('Steps'), (t) => count(t.steps), signed(delta.steps)],
  ];
  const lines = [table(['', 'A', 'B', 'Δ'], ['---', '---:', '---:', '---:'], rows.map(([name, value, change]) => [text(name), text(value(a)), text(value(b)), text(change)]))];
  if (a.callsWithoutUsage > 0 || b.callsWithoutUsage > 0) {
    lines.push(text(l10n.t('Some model calls did not report their tokens ({0} in A, {1} in B): the token counts are short of the truth.', a.callsWithoutUsage, b.callsWithoutUsage)));
  }
  return lines.join('\n\n');
}

const VERDICT_ORDER: readonly StepVerdict[] = ['failed', 'fixed', 'slower', 'faster', 'added', 'missing', 'same'];

/** The changed steps counted as they are listed: an added or missing task counts once, not once per step in it. */
function verdictLine(steps: readonly ComparedStep[], changed: readonly number[]): string {
  if (changed.length === 0) {
    return `**${text(l10n.t('No step changed.'))}**`;
  }
  const counts = new Map<StepVerdict, number>();
  for (const i of changed) {
    counts.set(steps[i].verdict, (counts.get(steps[i].verdict) ?? 0) + 1);
  }
  const line = VERDICT_ORDER.filter((verdict) => counts.has(verdict))
    .map((verdict) => `${(counts.get(verdict) ?? 0).toLocaleString()} ${verdictWord(verdict)}`)
    .join(' · ');
  return `**${text(l10n.t('Changes:'))}** ${text(line)}`;
}

function explanation(): string {
  return l10n.t(
    'Steps are paired by task, agent and order: the Nth model call, the Nth call of each tool. A step is slower (or faster) when it takes at least {0}× as long and {1} ms more (or less). Δ is B minus A.',
    SLOWER_RATIO.toLocaleString(),
    SLOWER_MIN_MS.toLocaleString(),
  );
}

/**
 * The rows of the changed-steps table: every step whose verdict is not `same`, except the steps inside an added or
 * missing step (its row says how many steps it holds).
 */
function changedRows(steps: readonly ComparedStep[]): number[] {
  const rows: number[] = [];
  steps.forEach((step, i) => {
    if (step.verdict === 'same') {
      return;
    }
    const parent = step.parent === undefined ? undefined : steps[step.parent];
    if ((step.verdict === 'added' || step.verdict === 'missing') && parent?.verdict === step.verdict) {
      return;
    }
    rows.push(i);
  });
  return rows;
}

function stepTable(steps: readonly ComparedStep[], rows: readonly number[], withPath: boolean): string {
  const head = [l10n.t('Step'), l10n.t('Kind'), 'A', 'B', 'Δ', l10n.t('A tokens'), l10n.t('B tokens'), l10n.t('Δ tokens'), l10n.t('Verdict')].map((h) => text(h));
  const align = ['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---'];
  return table(
    head,
    align,
    rows.map((i) => {
      const step = steps[i];
      return [
        withPath ? pathOf(steps, i) : indent(step.depth) + stepName(step),
        text(kindWord(step.kind)),
        text(sideDuration(step.a)),
        text(sideDuration(step.b)),
        text(step.durationDeltaMs === undefined ? '—' : signedDuration(step.durationDeltaMs)),
        text(sideTokens(step.a)),
        text(sideTokens(step.b)),
        text(step.tokenDelta === undefined ? '—' : signed(step.tokenDelta)),
        verdictCell(step),
      ];
    }),
  );
}

function table(head: readonly string[], align: readonly string[], rows: readonly (readonly string[])[]): string {
  return [head, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** Guides, not spaces: a table cell loses its leading whitespace. */
function indent(depth: number): string {
  return depth === 0 ? '' : `${'·\u2002'.repeat(Math.min(depth, MAX_INDENT))}`;
}

function stepName(step: ComparedStep): string {
  const name = text(step.name, NAME_CHARS);
  return step.nameB === undefined ? name : `${name} → ${text(step.nameB, NAME_CHARS)}`;
}

/** The step with its nearest ancestors but the run's own crew or flow, so a changed step still says where it is. */
function pathOf(steps: readonly ComparedStep[], index: number): string {
  const names = [stepName(steps[index])];
  const below = (i: number | undefined) => (i !== undefined && steps[i].parent !== undefined ? i : undefined);
  let parent = below(steps[index].parent);
  for (let n = 0; parent !== undefined && n < PATH_ANCESTORS; n++) {
    names.unshift(text(steps[parent].name, NAME_CHARS));
    parent = below(steps[parent].parent);
  }
  return `${parent === undefined ? '' : '… › '}${names.join(' › ')}`;
}

function verdictCell(step: ComparedStep): string {
  if (step.verdict === 'same') {
    return text(verdictWord('same'));
  }
  const inside = step.descendants === 1 ? l10n.t('(with 1 step inside)') : l10n.t('(with {0} steps inside)', step.descendants.toLocaleString());
  const more = (step.verdict === 'added' || step.verdict === 'missing') && step.descendants > 0 ? ` ${text(inside)}` : '';
  return `**${VERDICT_MARK[step.verdict]} ${text(verdictWord(step.verdict))}**${more}`;
}

const VERDICT_MARK: Readonly<Record<StepVerdict, string>> = { same: '', slower: '▲', faster: '▼', added: '✚', missing: '✖', failed: '⚠', fixed: '✔' };

function verdictWord(verdict: StepVerdict): string {
  switch (verdict) {
    case 'same':
      return l10n.t('same');
    case 'slower':
      return l10n.t('slower');
    case 'faster':
      return l10n.t('faster');
    case 'added':
      return l10n.t('added');
    case 'missing':
      return l10n.t('missing');
    case 'failed':
      return l10n.t('failed');
    case 'fixed':
      return l10n.t('fixed');
  }
}

function kindWord(kind: SpanKind): string {
  switch (kind) {
    case 'crew':
      return l10n.t('Crew');
    case 'flow':
      return l10n.t('Flow');
    case 'task':
      return l10n.t('Task');
    case 'agent':
      return l10n.t('Agent');
    case 'llm':
      return l10n.t('Model call');
    case 'tool':
      return l10n.t('Tool call');
    case 'method':
      return l10n.t('Method');
    case 'event':
      return l10n.t('Event');
  }
}

function sideDuration(side: StepSide | undefined): string {
  return side?.durationMs === undefined ? '—' : duration(side.durationMs);
}

function sideTokens(side: StepSide | undefined): string {
  return side?.tokens === undefined ? '—' : side.tokens.toLocaleString();
}

/** As the run view's trace says a step's time: milliseconds, seconds to a tenth below a minute, then minutes. */
function duration(ms: number | undefined): string {
  if (ms === undefined) {
    return '—';
  }
  if (ms < 1000) {
    return l10n.t('{0} ms', Math.round(ms).toLocaleString());
  }
  if (ms < 60_000) {
    return l10n.t('{0}s', (Math.round(ms / 100) / 10).toLocaleString());
  }
  return formatDuration(ms);
}

function signedDuration(ms: number): string {
  return ms === 0 ? '0' : `${ms > 0 ? '+' : '−'}${duration(Math.abs(ms))}`;
}

function signed(value: number): string {
  return value === 0 ? '0' : `${value > 0 ? '+' : '−'}${Math.abs(value).toLocaleString()}`;
}
