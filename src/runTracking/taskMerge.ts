// Accumulating per-task outputs across polls (rule 5 of the API notes). It runs on every poll and a hostile or broken
// crew may list tens of thousands of tasks: lookups go through maps, so a merge takes time linear in the tasks, and
// at most MAX_TASK_OUTPUTS are kept.
import { STATUS_LIMITS, UNNAMED_TASK } from '../api/normalize';
import type { StatusSnapshot, TaskOutput } from '../api/types';
import type { RunChange } from './model';
import { withoutUndefined } from '../util/objects';

/** Tasks kept per run, the first ones (as many as one status may carry); describeChanges says so when a crew lists more. */
export const MAX_TASK_OUTPUTS = STATUS_LIMITS.tasks;

function sameTask(a: TaskOutput, b: TaskOutput): boolean {
  if (a.taskId !== undefined && b.taskId !== undefined) {
    return a.taskId === b.taskId;
  }
  return a.name === b.name && a.name !== UNNAMED_TASK;
}

/** `preferred`'s fields win; `other` fills the gaps (and replaces a placeholder name). */
function combine(preferred: TaskOutput, other: TaskOutput): TaskOutput {
  const merged: TaskOutput = { ...other, ...withoutUndefined(preferred) };
  if (merged.name === UNNAMED_TASK) {
    merged.name = other.name;
  }
  return merged;
}

/** Ascending indices read from a head that only moves forward: each index is passed over at most once. */
class Queue {
  private head = 0;
  private readonly items: number[] = [];

  add(index: number): void {
    // Almost always appended; an entry that gains a name or an id later is inserted in order.
    let at = this.items.length;
    while (at > this.head && this.items[at - 1] > index) {
      at--;
    }
    if (this.items[at - 1] !== index) {
      this.items.splice(at, 0, index);
    }
  }

  /** The first index not refused by `drop`; the refused ones before it are passed over for good. */
  first(drop: (i: number) => boolean): number | undefined {
    while (this.head < this.items.length && drop(this.items[this.head])) {
      this.head++;
    }
    return this.items[this.head];
  }

  /** Hands out the indices below `limit`, in order, each once. */
  takeBelow(limit: number, visit: (i: number) => void): void {
    while (this.head < this.items.length && this.items[this.head] < limit) {
      visit(this.items[this.head++]);
    }
  }
}

function queueOf(map: Map<string, Queue>, key: string): Queue {
  let queue = map.get(key);
  if (!queue) {
    queue = new Queue();
    map.set(key, queue);
  }
  return queue;
}

interface Bucket {
  all: Queue;
  unnamed: Queue;
  byId: Map<string, Queue>;
  byNameNoId: Map<string, Queue>;
  byName: Map<string, Queue>;
}

/**
 * Entries indexed for the questions the merge asks: the first unused entry that is the same entry as a task (by
 * output, then task identity), the entries of the same task (by id or name), and the highest attempt of a task.
 * Entries only gain a name or an id (combine); a place an entry no longer fits is passed over when met.
 */
class EntryIndex {
  readonly entries: TaskOutput[] = [];
  private readonly buckets = new Map<string, Bucket>();
  private readonly tasksById = new Map<string, Queue>();
  private readonly tasksByName = new Map<string, Queue>();
  private readonly maxAttempt = { byId: new Map<string, number>(), byNameNoId: new Map<string, number>(), byName: new Map<string, number>() };

  constructor(entries: readonly TaskOutput[], private readonly used: ReadonlySet<number> = new Set()) {
    entries.forEach((entry) => this.add(entry));
  }

  add(entry: TaskOutput): number {
    const index = this.entries.push(entry) - 1;
    this.index(entry, index);
    return index;
  }

  replace(index: number, entry: TaskOutput): void {
    this.entries[index] = entry;
    this.index(entry, index);
  }

  /** The first unused entry that is the same entry as `task` (same trimmed output; same task, or either unnamed), or -1. */
  match(task: TaskOutput): number {
    const bucket = this.buckets.get(task.output.trim());
    if (!bucket) {
      return -1;
    }
    const used = (i: number) => this.used.has(i);
    if (task.name === UNNAMED_TASK) {
      return bucket.all.first(used) ?? -1; // an unnamed task matches any entry with its output
    }
    const heads = [bucket.unnamed.first((i) => used(i) || this.entries[i].name !== UNNAMED_TASK)];
    if (task.taskId !== undefined) {
      heads.push(bucket.byId.get(task.taskId)?.first(used), bucket.byNameNoId.get(task.name)?.first((i) => used(i) || this.entries[i].taskId !== undefined));
    } else {
      heads.push(bucket.byName.get(task.name)?.first(used));
    }
    const found = heads.filter((i): i is number => i !== undefined);
    return found.length ? Math.min(...found) : -1;
  }

  /** Entries of the same task as `task` below `limit`, in order; each entry is offered once over all calls. */
  takeSameTaskBelow(task: TaskOutput, limit: number, visit: (i: number) => void): void {
    const offered: number[] = [];
    const queues = [task.taskId === undefined ? undefined : this.tasksById.get(task.taskId), task.name === UNNAMED_TASK ? undefined : this.tasksByName.get(task.name)];
    for (const queue of queues) {
      queue?.takeBelow(limit, (i) => offered.push(i));
    }
    [...new Set(offered)].sort((a, b) => a - b).filter((i) => sameTask(this.entries[i], task)).forEach(visit);
  }

  /** The attempt a new output of `task` gets: undefined for its first. */
  nextAttempt(task: TaskOutput): number | undefined {
    const named = task.name !== UNNAMED_TASK;
    const found =
      task.taskId !== undefined
        ? [this.maxAttempt.byId.get(task.taskId), named ? this.maxAttempt.byNameNoId.get(task.name) : undefined]
        : [named ? this.maxAttempt.byName.get(task.name) : undefined];
    const known = found.filter((n): n is number => n !== undefined);
    return known.length ? Math.max(...known) + 1 : undefined;
  }

  private index(entry: TaskOutput, index: number): void {
    const output = entry.output.trim();
    let bucket = this.buckets.get(output);
    if (!bucket) {
      bucket = { all: new Queue(), unnamed: new Queue(), byId: new Map(), byNameNoId: new Map(), byName: new Map() };
      this.buckets.set(output, bucket);
    }
    bucket.all.add(index);
    const attempt = entry.attempt ?? 1;
    const raise = (map: Map<string, number>, key: string) => map.set(key, Math.max(map.get(key) ?? 0, attempt));
    if (entry.name === UNNAMED_TASK) {
      bucket.unnamed.add(index);
    } else {
      queueOf(bucket.byName, entry.name).add(index);
      queueOf(this.tasksByName, entry.name).add(index);
      raise(this.maxAttempt.byName, entry.name);
      if (entry.taskId === undefined) {
        queueOf(bucket.byNameNoId, entry.name).add(index);
        raise(this.maxAttempt.byNameNoId, entry.name);
      }
    }
    if (entry.taskId !== undefined) {
      queueOf(bucket.byId, entry.taskId).add(index);
      queueOf(this.tasksById, entry.taskId).add(index);
      raise(this.maxAttempt.byId, entry.taskId);
    }
  }
}

/**
 * Accumulates the distinct per-task outputs seen while polling (rule 5). Pure: `known` is not modified.
 *
 * - Live bodies carry only the latest finished task; each distinct (task, output) pair is kept once, so
 *   seeing the same snapshot twice changes nothing.
 * - A task retried after human feedback (`is_approve: false`) that produces a different output is a NEW
 *   entry with `attempt` 2, 3, …, not a replacement: the reviewer's rejected version stays visible and
 *   nothing is lost when tasks cannot be told apart (a string `last_executed_task` has no name).
 * - A complete list (`result.tasks` / `tasks_output`) wins: its order and fields are used, enriched with
 *   what earlier snapshots knew. Earlier entries it lacks are kept — earlier attempts of a listed task
 *   just before that task, entries of tasks it does not list at the end, in the order they were seen.
 * - At most MAX_TASK_OUTPUTS are kept: the first ones.
 */
export function mergeTaskOutputs(known: readonly TaskOutput[], snapshot: StatusSnapshot, max = MAX_TASK_OUTPUTS): TaskOutput[] {
  const listedTasks = snapshot.tasks.slice(0, max);
  const completeList = snapshot.tasksSource === 'result' || snapshot.tasksSource === 'tasks_output';
  if (!completeList) {
    return appendAll(known.slice(0, max), listedTasks, max);
  }
  const seen = snapshot.lastTask === undefined ? known.slice(0, max) : appendAll(known.slice(0, max), [snapshot.lastTask], max);
  const used = new Set<number>();
  const seenIndex = new EntryIndex(seen, used);
  const listedIndex = new EntryIndex(listedTasks);
  const listed = (i: number) => listedIndex.match(seen[i]) >= 0;
  const merged = new EntryIndex([]);
  for (const task of listedTasks) {
    const matchIndex = seenIndex.match(task);
    seenIndex.takeSameTaskBelow(task, matchIndex < 0 ? Infinity : matchIndex, (i) => {
      if (!used.has(i) && i !== matchIndex && !listed(i)) {
        used.add(i);
        merged.add(seen[i]); // an earlier attempt of this task, just before it
      }
    });
    if (matchIndex >= 0) {
      used.add(matchIndex);
      merged.add(combine(task, seen[matchIndex]));
    } else {
      const attempt = merged.nextAttempt(task);
      merged.add(attempt === undefined ? task : { ...task, attempt });
    }
  }
  seen.forEach((entry, index) => {
    if (!used.has(index)) {
      merged.add(entry);
    }
  });
  return merged.entries.slice(0, max);
}

/** Each task appended unless the same entry is already there (then the two are combined). */
function appendAll(known: readonly TaskOutput[], tasks: readonly TaskOutput[], max: number): TaskOutput[] {
  const kept = new EntryIndex(known);
  for (const task of tasks) {
    const index = kept.match(task);
    if (index >= 0) {
      kept.replace(index, combine(kept.entries[index], task));
    } else if (kept.entries.length < max) {
      const attempt = kept.nextAttempt(task);
      kept.add(attempt === undefined ? task : { ...task, attempt });
    }
  }
  return kept.entries;
}

/** Change events naming tasks at most this many times per poll; the rest are counted. */
const MAX_TASK_EVENTS = 20;

/** The task outputs `next` has that `previous` had not (both accumulated lists), in time linear in both. */
export function newTaskChanges(previous: readonly TaskOutput[], next: readonly TaskOutput[]): RunChange[] {
  const before = new EntryIndex(previous);
  const changes: RunChange[] = [];
  let more = 0;
  for (const task of next) {
    if (before.match(task) >= 0) {
      continue;
    }
    if (changes.length >= MAX_TASK_EVENTS) {
      more++;
      continue;
    }
    changes.push({ kind: 'taskFinished', task: task.name, agent: task.agent, retried: before.nextAttempt(task) !== undefined });
  }
  if (more > 0) {
    changes.push({ kind: 'moreTasksFinished', count: more });
  }
  return changes;
}
