// Two runs' traces side by side: each step of one paired with the same step of the other, so "what changed"
// reads off a table. A step is the same step when its path is: the kind and name at each level (crew → task name →
// agent role → the Nth model call, or the Nth call of tool X, within that agent, in start order), so repeated steps
// pair in order and a step added in between shifts only the calls of its own kind and name after it.
// Linear in the spans: paths are interned to small numbers, so a path costs its own name, never its ancestors'.
import type { Span, SpanKind } from './span';
import { spanDuration, summarise, usageTokens } from './traceSummary';

/** A step takes at least this many times as long (or as short) to be slower (or faster)… */
export const SLOWER_RATIO = 1.5;
/** …and at least this many milliseconds more (or less): a 10 ms call taking 20 ms is noise. */
export const SLOWER_MIN_MS = 500;
/** Spans compared of each trace (display order, so parents come before their children and a cut keeps a tree). */
export const COMPARE_LIMIT = 10_000;

/**
 * `added`: only in b; `missing`: only in a; `failed`: failed in b, not in a; `fixed`: failed in a, ended well in b;
 * `slower` / `faster`: by SLOWER_RATIO and SLOWER_MIN_MS; else `same`.
 */
export type StepVerdict = 'same' | 'slower' | 'faster' | 'added' | 'missing' | 'failed' | 'fixed';

export interface StepSide {
  readonly span: Span;
  readonly durationMs?: number;
  /** A model call's tokens; for other steps, their model calls' (or what the step itself reports); undefined when nothing says. */
  readonly tokens?: number;
}

export interface ComparedStep {
  /** In the merged tree: the depth and the row of the parent (an index into `steps`). */
  readonly depth: number;
  readonly parent?: number;
  readonly kind: SpanKind;
  /** a's name, else b's; `nameB` only when b's differs (another model, another crew name). */
  readonly name: string;
  readonly nameB?: string;
  readonly a?: StepSide;
  readonly b?: StepSide;
  readonly durationDeltaMs?: number;
  readonly tokenDelta?: number;
  readonly verdict: StepVerdict;
  /** Steps below this one (the size of an added or missing part). */
  readonly descendants: number;
}

export interface TraceTotals {
  durationMs?: number;
  tokens: number;
  /** Model calls that ended without saying their usage: `tokens` is then short of the truth. */
  callsWithoutUsage: number;
  modelCalls: number;
  toolCalls: number;
  errors: number;
  steps: number;
}

/** b minus a, where both are known. */
export interface TotalsDelta {
  durationMs?: number;
  tokens: number;
  modelCalls: number;
  toolCalls: number;
  errors: number;
  steps: number;
}

export interface TraceComparison {
  /** The merged tree, depth first: a's order, b's new steps after the step they follow in b. */
  readonly steps: readonly ComparedStep[];
  readonly totals: { readonly a: TraceTotals; readonly b: TraceTotals; readonly delta: TotalsDelta };
  /** Steps per verdict, every row counted (the steps inside an added task too). */
  readonly verdicts: Readonly<Record<StepVerdict, number>>;
  /** Spans past COMPARE_LIMIT, not compared. */
  readonly notCompared: { readonly a: number; readonly b: number };
}

interface Side {
  readonly spans: readonly Span[];
  /** Per span (same index): its path number, its parent's path number (0: none), its tokens. */
  readonly paths: readonly number[];
  readonly parents: readonly number[];
  readonly tokens: readonly (number | undefined)[];
  /** Path number → index in `spans`. */
  readonly byPath: ReadonlyMap<number, number>;
}

/** Path numbers, shared by both sides: a path is its parent's number and its own kind, name and ordinal. */
class Paths {
  private readonly ids = new Map<string, number>();
  private readonly ordinals = new Map<string, number>();

  /** Starts counting ordinals afresh (each side counts its own). */
  nextSide(): void {
    this.ordinals.clear();
  }

  of(parent: number, span: Span): number {
    const level = `${parent}\u0000${span.kind}\u0000${alignName(span)}`;
    const ordinal = this.ordinals.get(level) ?? 0;
    this.ordinals.set(level, ordinal + 1);
    const key = `${level}\u0000${ordinal}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size + 1; // 0 stands for "no parent"
      this.ids.set(key, id);
    }
    return id;
  }
}

/** Ids stand in for names a crew did not give (a task's id when it has no name); they differ from run to run. */
const GENERATED_ID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * What a span is called for pairing. Nothing for a model call (the Nth call is the Nth call, whatever its model), for
 * the run's own crew or flow (the user chose these two runs; one may carry its crew's name and the other not), or for
 * a generated id.
 */
function alignName(span: Span): string {
  if (span.kind === 'llm' || (span.depth === 0 && (span.kind === 'crew' || span.kind === 'flow')) || GENERATED_ID.test(span.name)) {
    return '';
  }
  return span.name;
}

export function compareTraces(a: readonly Span[], b: readonly Span[]): TraceComparison {
  const paths = new Paths();
  const left = side(a.slice(0, COMPARE_LIMIT), paths);
  paths.nextSide();
  const right = side(b.slice(0, COMPARE_LIMIT), paths);
  const steps = flatten(left, right);
  const verdicts: Record<StepVerdict, number> = { same: 0, slower: 0, faster: 0, added: 0, missing: 0, failed: 0, fixed: 0 };
  for (const step of steps) {
    verdicts[step.verdict]++;
  }
  const totalsA = totalsOf(left.spans);
  const totalsB = totalsOf(right.spans);
  return {
    steps,
    totals: {
      a: totalsA,
      b: totalsB,
      delta: {
        durationMs: totalsA.durationMs !== undefined && totalsB.durationMs !== undefined ? totalsB.durationMs - totalsA.durationMs : undefined,
        tokens: totalsB.tokens - totalsA.tokens,
        modelCalls: totalsB.modelCalls - totalsA.modelCalls,
        toolCalls: totalsB.toolCalls - totalsA.toolCalls,
        errors: totalsB.errors - totalsA.errors,
        steps: totalsB.steps - totalsA.steps,
      },
    },
    verdicts,
    notCompared: { a: Math.max(0, a.length - COMPARE_LIMIT), b: Math.max(0, b.length - COMPARE_LIMIT) },
  };
}

/** A step's verdict from its two sides: state first (a failure outweighs its time), then time. */
export function verdictOf(a: StepSide | undefined, b: StepSide | undefined): StepVerdict {
  if (!a) {
    return 'added';
  }
  if (!b) {
    return 'missing';
  }
  if (b.span.state === 'failed' && a.span.state !== 'failed') {
    return 'failed';
  }
  if (a.span.state === 'failed' && b.span.state === 'ok') {
    return 'fixed';
  }
  if (a.durationMs === undefined || b.durationMs === undefined) {
    return 'same';
  }
  if (b.durationMs >= a.durationMs * SLOWER_RATIO && b.durationMs - a.durationMs >= SLOWER_MIN_MS) {
    return 'slower';
  }
  if (a.durationMs >= b.durationMs * SLOWER_RATIO && a.durationMs - b.durationMs >= SLOWER_MIN_MS) {
    return 'faster';
  }
  return 'same';
}

function side(spans: readonly Span[], paths: Paths): Side {
  const indexOf = new Map<string, number>();
  const pathList: number[] = [];
  const parents: number[] = [];
  const parentIndex: (number | undefined)[] = [];
  const byPath = new Map<number, number>();
  spans.forEach((span, i) => {
    // A parent not in the list (cut off, or never seen) makes a root; display order puts every other parent first.
    const p = span.parentId === undefined ? undefined : indexOf.get(span.parentId);
    const parent = p === undefined ? 0 : pathList[p];
    const path = paths.of(parent, span);
    if (!indexOf.has(span.id)) {
      indexOf.set(span.id, i);
    }
    pathList.push(path);
    parents.push(parent);
    parentIndex.push(p);
    if (!byPath.has(path)) {
      byPath.set(path, i);
    }
  });
  // Walking back sums every child into its parent before the parent is read.
  const below = new Array<number | undefined>(spans.length).fill(undefined);
  const tokens = new Array<number | undefined>(spans.length).fill(undefined);
  for (let i = spans.length - 1; i >= 0; i--) {
    const span = spans[i];
    const own = span.usage ? usageTokens(span.usage) : undefined;
    // A model call counts its own usage; any other step its calls', so a crew's own total is not counted twice.
    tokens[i] = span.kind === 'llm' ? own : (below[i] ?? own);
    const p = parentIndex[i];
    const counted = tokens[i];
    if (counted !== undefined && p !== undefined) {
      below[p] = (below[p] ?? 0) + counted;
    }
  }
  return { spans, paths: pathList, parents, tokens, byPath };
}

/**
 * The merged tree, depth first: a's steps in a's order; a step only in b goes after the last step both have that
 * comes before it among its siblings in b (first, when none does), so an added tool call shows where it happened.
 */
function flatten(left: Side, right: Side): ComparedStep[] {
  const childrenA = new Map<number, number[]>();
  left.paths.forEach((path, i) => push(childrenA, left.parents[i], path));
  const firstB = new Map<number, number[]>();
  const afterB = new Map<number, number[]>();
  const anchor = new Map<number, number>();
  right.paths.forEach((path, i) => {
    const parent = right.parents[i];
    if (left.byPath.has(path)) {
      anchor.set(parent, path);
      return;
    }
    const previous = anchor.get(parent);
    if (previous === undefined) {
      push(firstB, parent, path);
    } else {
      push(afterB, previous, path);
    }
  });
  const childrenOf = (path: number): number[] => {
    const order = [...(firstB.get(path) ?? [])];
    for (const child of childrenA.get(path) ?? []) {
      order.push(child);
      for (const added of afterB.get(child) ?? []) {
        order.push(added);
      }
    }
    return order;
  };
  const steps: MutableStep[] = [];
  // An explicit stack: a crew's log may nest deeper than the call stack goes.
  const stack = childrenOf(0)
    .reverse()
    .map((path): { path: number; depth: number; parent?: number } => ({ path, depth: 0 }));
  for (let item = stack.pop(); item; item = stack.pop()) {
    const index = steps.length;
    steps.push(step(item.path, item.depth, item.parent, left, right));
    const children = childrenOf(item.path);
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ path: children[i], depth: item.depth + 1, parent: index });
    }
  }
  for (let i = steps.length - 1; i >= 0; i--) {
    const parent = steps[i].parent;
    if (parent !== undefined) {
      steps[parent].descendants += steps[i].descendants + 1;
    }
  }
  return steps;
}

function push(lists: Map<number, number[]>, key: number, value: number): void {
  const list = lists.get(key);
  if (list) {
    list.push(value);
  } else {
    lists.set(key, [value]);
  }
}

type MutableStep = { -readonly [K in keyof ComparedStep]: ComparedStep[K] };

function step(path: number, depth: number, parent: number | undefined, left: Side, right: Side): MutableStep {
  const a = sideOf(left, path);
  const b = sideOf(right, path);
  const named = (a ?? b)!.span;
  return {
    depth,
    parent,
    kind: named.kind,
    name: named.name,
    nameB: a && b && b.span.name !== a.span.name ? b.span.name : undefined,
    a,
    b,
    durationDeltaMs: a?.durationMs !== undefined && b?.durationMs !== undefined ? b.durationMs - a.durationMs : undefined,
    tokenDelta: a?.tokens !== undefined || b?.tokens !== undefined ? (b?.tokens ?? 0) - (a?.tokens ?? 0) : undefined,
    verdict: verdictOf(a, b),
    descendants: 0,
  };
}

function sideOf(s: Side, path: number): StepSide | undefined {
  const i = s.byPath.get(path);
  if (i === undefined) {
    return undefined;
  }
  const span = s.spans[i];
  return { span, durationMs: spanDuration(span), tokens: s.tokens[i] };
}

function totalsOf(spans: readonly Span[]): TraceTotals {
  const summary = summarise(spans, 0);
  return {
    durationMs: summary.durationMs,
    tokens: summary.tokens.total,
    callsWithoutUsage: summary.tokens.callsWithoutUsage,
    modelCalls: summary.modelCalls,
    toolCalls: summary.toolCalls,
    errors: summary.errors,
    steps: summary.spans,
  };
}
