// What changed between two run views (host: diffViews) and applying it (page: applyPatch), so after the
// first `init` only small `update` messages travel. Pure.

import type { StateChange } from '../../runTracking/model';
import type { FeedbackRoundView, OutputView, RunSummary, RunView, TaskView } from './viewModel';

/** A list change: drop everything from `from` on, then append `items`. */
export interface ListPatch<T> {
  from: number;
  items: T[];
}

export interface ViewPatch {
  set?: Partial<RunSummary>;
  unset?: (keyof RunSummary)[];
  history?: ListPatch<StateChange>;
  tasks?: ListPatch<TaskView>;
  /** Present when the final output appeared or changed (null: it went away). */
  final?: OutputView | null;
  feedbackRounds?: ListPatch<FeedbackRoundView>;
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function taskSame(a: TaskView, b: TaskView): boolean {
  const { output: ao, ...ar } = a;
  const { output: bo, ...br } = b;
  return ao.key === bo.key && ao.previewSegments === bo.previewSegments && same(ar, br);
}

function listPatch<T>(prev: T[], next: T[], eq: (a: T, b: T) => boolean = same): ListPatch<T> | undefined {
  let common = 0;
  while (common < prev.length && common < next.length && eq(prev[common], next[common])) {
    common++;
  }
  if (common === prev.length && common === next.length) {
    return undefined;
  }
  return { from: common, items: next.slice(common) };
}

/** What the page must be told to go from `prev` to `next`; undefined when nothing changed. */
export function diffViews(prev: RunView, next: RunView): ViewPatch | undefined {
  const patch: ViewPatch = {};
  const set: Partial<RunSummary> = {};
  const unset: (keyof RunSummary)[] = [];
  const keys = new Set([...Object.keys(prev.summary), ...Object.keys(next.summary)]) as Set<keyof RunSummary>;
  for (const key of keys) {
    const a = prev.summary[key];
    const b = next.summary[key];
    if (b === undefined) {
      if (a !== undefined) {
        unset.push(key);
      }
    } else if (!same(a, b)) {
      (set as Record<string, unknown>)[key] = b;
    }
  }
  if (Object.keys(set).length) {
    patch.set = set;
  }
  if (unset.length) {
    patch.unset = unset;
  }
  const history = listPatch(prev.history, next.history);
  if (history) {
    patch.history = history;
  }
  const tasks = listPatch(prev.tasks, next.tasks, taskSame);
  if (tasks) {
    patch.tasks = tasks;
  }
  if ((prev.final?.key ?? null) !== (next.final?.key ?? null) || prev.final?.previewSegments !== next.final?.previewSegments) {
    patch.final = next.final;
  }
  const rounds = listPatch(prev.feedbackRounds, next.feedbackRounds);
  if (rounds) {
    patch.feedbackRounds = rounds;
  }
  return Object.keys(patch).length ? patch : undefined;
}

function applyList<T>(list: T[], patch: ListPatch<T> | undefined): T[] {
  return patch ? [...list.slice(0, patch.from), ...patch.items] : list;
}

/** The page's side of diffViews: applyPatch(prev, diffViews(prev, next)) equals next. */
export function applyPatch(view: RunView, patch: ViewPatch): RunView {
  const summary = { ...view.summary, ...(patch.set ?? {}) } as RunSummary;
  for (const key of patch.unset ?? []) {
    delete summary[key];
  }
  return {
    summary,
    history: applyList(view.history, patch.history),
    tasks: applyList(view.tasks, patch.tasks),
    final: patch.final === undefined ? view.final : patch.final,
    feedbackRounds: applyList(view.feedbackRounds, patch.feedbackRounds),
  };
}

