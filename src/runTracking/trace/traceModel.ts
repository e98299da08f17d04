// A run's span tree, rebuilt from its event log as polls bring it (status-events.md: pairing and nesting rules).
// Incremental: an add costs time in the events it brings (maps, and scans of at most TRACE_LIMITS.scan candidates),
// never a pass over the tree, and names the spans it added or changed so a page redraws only those. The event log is
// the crew's, so nothing in it is trusted: repeated or missing ids, parents that name each other, times out of order
// or in the future all make a tree, bounded in size, without looping or throwing.
import * as l10n from '@vscode/l10n';
import type { RunEvent } from '../../api/types';
import { classify, type EventClass, KIND_RANK } from './eventKinds';
import { comparePlaces, type EventPlace, FIRST_PLACE, placeEvents } from './eventOrder';
import { LiveList } from './liveList';
import type { Span, SpanKind, SpanState } from './span';

export const TRACE_LIMITS = {
  /** Rows a trace holds; events that would make more are counted in `notShown`. */
  spans: 20_000,
  /** Event keys remembered to drop repeats; past them, repeats are the caller's to drop (the run's event file keeps each once). */
  events: 200_000,
  /** Event keys listed on one span. */
  keysPerSpan: 8,
  /** Candidates looked at to pair an end, adopt an early end or find an enclosing span. */
  scan: 64,
} as const;

export interface TraceOptions {
  maxSpans?: number;
  maxEvents?: number;
}

/** What an add or a settle changed, by span id: `updated` never repeats an id of `added`. */
export interface TraceChange {
  added: string[];
  updated: string[];
}

/** The fields that say which task, agent, call, tool, method or flow an event belongs to. */
type Identity = Pick<RunEvent, 'callId' | 'toolName' | 'agentId' | 'taskId' | 'methodName' | 'flowName' | 'agentRole' | 'taskName'>;
/** Most telling first: an end is paired through the first of these it carries. */
const IDENTITY = ['callId', 'toolName', 'agentId', 'taskId', 'methodName', 'flowName', 'agentRole', 'taskName'] as const;

/**
 * Spans others nest in by containment, innermost first, with the fields a span nested in one must not contradict
 * (a delegated agent's call still nests in the task, whichever agent the task names).
 */
const CONTAINERS: readonly (readonly [SpanKind, readonly (keyof Identity)[]])[] = [
  ['agent', ['agentId', 'agentRole', 'taskId']],
  ['task', ['taskId', 'taskName']],
  ['crew', []],
  ['method', ['methodName', 'flowName']],
  ['flow', ['flowName']],
];
/** What a stream chunk must not contradict in the model call it is counted on. */
const CALL_FIELDS: readonly (keyof Identity)[] = ['callId', 'agentId', 'taskId'];

type Draft = { -readonly [K in keyof Span]: Span[K] };

interface Node {
  readonly span: Draft;
  readonly keys: string[];
  readonly cls: EventClass;
  readonly parent?: Node;
  readonly children: Node[];
  /** Read for pairing and containment; the making event itself until another event adds to it. */
  ident: Identity;
  place: EventPlace;
  readonly order: number;
  /** A start whose end has not come (a `lost` span is still open: its end may come late). */
  open: boolean;
  /** An end whose start has not come. */
  early: boolean;
  /** The start's event id; for an early end, the id its end names. */
  startId?: string;
  endNames?: string;
  readonly lists: LiveList<Node>[];
  namedByDefault: boolean;
}

const isOpen = (node: Node) => node.open;
const isEarly = (node: Node) => node.early;

export class Trace {
  private readonly maxSpans: number;
  private readonly maxEvents: number;
  private readonly nodes = new Map<string, Node>();
  private readonly roots: Node[] = [];
  private readonly seen = new Set<string>();
  /** Event id → the span it is part of (the first, where ids repeat): what `parentId` names. */
  private readonly byEventId = new Map<string, Node>();
  /** Start event id → its span: what `startedId` names. */
  private readonly byStartId = new Map<string, Node>();
  /** Open spans by family. */
  private readonly openByFamily = new Map<string, LiveList<Node>>();
  /**
   * Open spans by family, identity field and its value. Most values name one span (a call's id, an agent's): it is
   * kept alone, and a list made only when a second comes, so a 10,000-event log does not make 25,000 lists.
   */
  private readonly openByIdentity = new Map<string, Map<string, Map<string, Node | LiveList<Node>>>>();
  private readonly openOfKind = new Map<SpanKind, LiveList<Node>>();
  private readonly earlyByFamily = new Map<string, LiveList<Node>>();
  private readonly earlyByStartId = new Map<string, Node>();
  private readonly open = new Set<Node>();
  private readonly callsById = new Map<string, Node>();
  private readonly chunkRows = new Map<string, Node>();
  private latestPlace = FIRST_PLACE;
  private made = 0;
  private skipped = 0;
  private ordered?: readonly Span[];
  private change = { added: new Set<string>(), updated: new Set<string>() };

  constructor(options: TraceOptions = {}) {
    this.maxSpans = options.maxSpans ?? TRACE_LIMITS.spans;
    this.maxEvents = options.maxEvents ?? TRACE_LIMITS.events;
  }

  /** Every span, depth first, siblings by start time (computed on the first read after a change). */
  get spans(): readonly Span[] {
    this.ordered ??= this.displayOrder();
    return this.ordered;
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Events not shown because the trace held its most spans. */
  get notShown(): number {
    return this.skipped;
  }

  span(id: string): Span | undefined {
    return this.nodes.get(id)?.span;
  }

  /** Takes events not taken before (by `key`), in any order. */
  add(events: readonly RunEvent[]): TraceChange {
    const fresh: RunEvent[] = [];
    for (const event of events) {
      if (!this.seen.has(event.key)) {
        if (this.seen.size < this.maxEvents) {
          this.seen.add(event.key);
        }
        fresh.push(event);
      }
    }
    for (const { event, place } of placeEvents(fresh, this.latestPlace)) {
      this.take(event, place);
      if (comparePlaces(place, this.latestPlace) > 0) {
        this.latestPlace = place;
      }
    }
    return this.takeChange();
  }

  /**
   * Once the run ended, open spans are `lost`, drawn up to the run's end (`at`); if it goes on after all, they are
   * `running` again. Whether the run succeeded is the run's state, never decided here.
   */
  settle(runEnded: boolean, at: number): TraceChange {
    for (const node of this.open) {
      const span = node.span;
      if (runEnded) {
        const end = Number.isFinite(at) ? Math.max(at, span.start ?? at) : span.start;
        if (span.state !== 'lost' || span.end !== end) {
          span.state = 'lost';
          span.end = end;
          this.changed(node);
        }
      } else if (span.state === 'lost') {
        span.state = 'running';
        span.end = undefined;
        this.changed(node);
      }
    }
    return this.takeChange();
  }

  private take(event: RunEvent, place: EventPlace): void {
    const cls = classify(event.type);
    switch (cls.role) {
      case 'start':
        return this.start(event, cls, place);
      case 'ok':
      case 'failed':
        return this.finish(event, cls, place);
      case 'streamChunk':
      case 'thinkingChunk':
        return this.chunk(event, cls, place);
      case 'point':
        return this.point(event, cls, place);
    }
  }

  private start(event: RunEvent, cls: EventClass, place: EventPlace): void {
    const early = this.earlyEndOf(event, cls);
    if (early) {
      return this.adopt(early, event, place);
    }
    const node = this.make(event, cls, place, 'running');
    if (!node) {
      return;
    }
    node.open = true;
    node.startId = event.id;
    node.span.start = time(event.at);
    this.open.add(node);
    if (event.id !== undefined && !this.byStartId.has(event.id)) {
      this.byStartId.set(event.id, node);
    }
    this.listIn(this.openByFamily, cls.family, node, isOpen);
    for (const field of IDENTITY) {
      const value = event[field];
      if (value !== undefined) {
        this.indexIdentity(cls.family, field, value, node);
      }
    }
    this.listIn(this.openOfKind, cls.kind, node, isOpen);
    if (cls.kind === 'llm' && event.callId !== undefined) {
      this.callsById.set(event.callId, node);
    }
  }

  private finish(event: RunEvent, cls: EventClass, place: EventPlace): void {
    const started = this.startOf(event, cls);
    if (started) {
      return this.close(started, event, cls);
    }
    // An end without a start: a row of its own, which its start still takes over if it comes later.
    const node = this.make(event, cls, place, cls.role === 'failed' ? 'failed' : 'ok');
    if (!node) {
      return;
    }
    node.early = true;
    node.endNames = event.startedId;
    node.span.start = time(event.startedAt);
    node.span.end = time(event.at) ?? time(event.finishedAt);
    node.span.endType = event.type;
    takeEndFields(node.span, event, cls);
    if (event.startedId !== undefined && !this.earlyByStartId.has(event.startedId)) {
      this.earlyByStartId.set(event.startedId, node);
    }
    this.listIn(this.earlyByFamily, cls.family, node, isEarly);
  }

  /** The start an end closes: the one its `startedId` names, else the oldest open one of its family that fits. */
  private startOf(event: RunEvent, cls: EventClass): Node | undefined {
    if (event.startedId !== undefined) {
      const named = this.byStartId.get(event.startedId);
      if (named && named.cls.family === cls.family) {
        return named; // even when closed: a second end of the same start (an error after a finish) updates it
      }
    }
    const fits = (node: Node) => compatible(node.ident, event) && (event.startedId === undefined || node.startId === undefined || node.startId === event.startedId);
    for (const field of IDENTITY) {
      const value = event[field];
      const found = value === undefined ? undefined : this.openWith(cls.family, field, value, fits);
      if (found) {
        return found;
      }
    }
    return this.openByFamily.get(cls.family)?.oldest(fits, TRACE_LIMITS.scan);
  }

  private close(node: Node, event: RunEvent, cls: EventClass): void {
    const span = node.span;
    const failed = cls.role === 'failed';
    const at = time(event.at) ?? time(event.finishedAt);
    if (node.open) {
      node.open = false;
      this.open.delete(node);
      node.lists.forEach((list) => list.noteDead());
      span.state = failed ? 'failed' : 'ok';
      span.end = at;
    } else {
      // A further end of a closed span: a failure outranks a success, the latest time is its end.
      span.state = failed ? 'failed' : span.state;
      span.end = at !== undefined && (span.end === undefined || at > span.end) ? at : span.end;
    }
    span.start ??= time(event.startedAt);
    span.endType = event.type;
    takeEndFields(span, event, cls);
    this.learn(node, event);
  }

  /** An early end (already a row) that this start begins: the one that names it, else one of its family that fits. */
  private earlyEndOf(event: RunEvent, cls: EventClass): Node | undefined {
    if (event.id !== undefined) {
      const named = this.earlyByStartId.get(event.id);
      if (named?.early && named.cls.family === cls.family) {
        return named;
      }
    }
    const started = time(event.at);
    const fits = (node: Node) => {
      if (node.endNames !== undefined || !compatible(node.ident, event)) {
        return false;
      }
      // Without both times, only an end that names the same task, agent, call… is taken over.
      const ended = node.span.end;
      return started !== undefined && ended !== undefined ? ended >= started : sharesIdentity(node.ident, event);
    };
    return this.earlyByFamily.get(cls.family)?.oldest(fits, TRACE_LIMITS.scan);
  }

  private adopt(node: Node, event: RunEvent, place: EventPlace): void {
    const span = node.span;
    node.early = false;
    node.lists.forEach((list) => list.noteDead());
    node.startId = event.id;
    span.type = event.type;
    span.start = time(event.at) ?? span.start;
    span.model ??= event.model;
    span.toolArgs ??= event.toolArgs;
    if (event.id !== undefined) {
      setIfAbsent(this.byStartId, event.id, node);
      setIfAbsent(this.byEventId, event.id, node);
    }
    // Its parent stays (a parent never changes); its place among its siblings follows its start.
    const siblings = node.parent?.children ?? this.roots;
    siblings.splice(indexIn(siblings, node), 1);
    node.place = place;
    insertSorted(siblings, node);
    this.learn(node, event);
  }

  /** Stream chunks are counted on their model call, never listed: a call streams thousands. */
  private chunk(event: RunEvent, cls: EventClass, place: EventPlace): void {
    const named = event.parentId === undefined ? undefined : this.byEventId.get(event.parentId);
    const call =
      (named?.span.kind === 'llm' ? named : undefined) ??
      (event.callId === undefined ? undefined : this.callsById.get(event.callId)) ??
      this.openOfKind.get('llm')?.latest((node) => compatible(node.ident, event, CALL_FIELDS), TRACE_LIMITS.scan);
    if (call) {
      countChunk(call.span, cls);
      return this.changed(call);
    }
    // No model call to count them on: one row of chunks per enclosing span and chunk type.
    const parent = this.parentFor(event, cls.rank);
    const rowId = `chunks:${parent?.span.id ?? ''}:${event.type}`;
    const row = this.chunkRows.get(rowId) ?? this.make(event, { ...cls, kind: 'event' }, place, 'ok', rowId, parent);
    if (!row) {
      return;
    }
    this.chunkRows.set(rowId, row);
    countChunk(row.span, cls);
    const at = time(event.at);
    row.span.start ??= at;
    row.span.end = at !== undefined && (row.span.end === undefined || at > row.span.end) ? at : row.span.end;
    this.changed(row);
  }

  private point(event: RunEvent, cls: EventClass, place: EventPlace): void {
    const node = this.make(event, cls, place, 'ok');
    if (node) {
      node.span.start = time(event.at);
      node.span.end = node.span.start;
      takeEndFields(node.span, event, cls);
    }
  }

  /** A new row under its parent, or nothing (counted) when the trace is full or the id is taken. */
  private make(event: RunEvent, cls: EventClass, place: EventPlace, state: SpanState, id = event.key, parent = this.parentFor(event, cls.rank)): Node | undefined {
    if (this.nodes.size >= this.maxSpans || this.nodes.has(id)) {
      // A taken id is a repeat the key set no longer remembers (past maxEvents): dropped, not counted.
      this.skipped += this.nodes.has(id) ? 0 : 1;
      return undefined;
    }
    const keys: string[] = [event.key];
    const named = nameOf(cls.kind, event, event.type);
    const node: Node = {
      span: { id, parentId: parent?.span.id, depth: parent ? parent.span.depth + 1 : 0, kind: cls.kind, name: named.name, type: event.type, state, eventKeys: keys },
      keys,
      cls,
      parent,
      children: [],
      ident: event,
      place,
      order: this.made++,
      open: false,
      early: false,
      lists: [],
      namedByDefault: named.byDefault,
    };
    node.span.model = event.model;
    node.span.toolArgs = event.toolArgs;
    this.nodes.set(id, node);
    if (event.id !== undefined && id === event.key) {
      setIfAbsent(this.byEventId, event.id, node);
    }
    insertSorted(parent?.children ?? this.roots, node);
    this.change.added.add(id);
    this.ordered = undefined;
    return node;
  }

  /** Where a new span nests: the span its `parentId` names, else the innermost open span of a lower rank that fits. */
  private parentFor(event: RunEvent, rank: number): Node | undefined {
    const named = event.parentId === undefined ? undefined : this.byEventId.get(event.parentId);
    if (named) {
      return named; // it exists already, so parents named by id can never form a cycle
    }
    for (const [kind, fields] of CONTAINERS) {
      if (KIND_RANK[kind] < rank) {
        const found = this.openOfKind.get(kind)?.latest((node) => compatible(node.ident, event, fields), TRACE_LIMITS.scan);
        if (found) {
          return found;
        }
      }
    }
    return undefined;
  }

  /** What a later event of a span adds: identity fields it lacked, a better name, its key. */
  private learn(node: Node, event: RunEvent): void {
    if (IDENTITY.some((field) => node.ident[field] === undefined && event[field] !== undefined)) {
      const merged: Identity = {};
      for (const field of IDENTITY) {
        merged[field] = node.ident[field] ?? event[field];
      }
      node.ident = merged;
    }
    if (node.namedByDefault) {
      const named = nameOf(node.span.kind, { ...node.ident, model: node.span.model, extra: event.extra }, node.span.type);
      node.span.name = named.name;
      node.namedByDefault = named.byDefault;
    }
    if (event.id !== undefined) {
      setIfAbsent(this.byEventId, event.id, node);
    }
    this.addKey(node, event.key);
    this.changed(node);
  }

  private addKey(node: Node, key: string | undefined): void {
    if (key !== undefined && node.keys.length < TRACE_LIMITS.keysPerSpan && !node.keys.includes(key)) {
      node.keys.push(key);
    }
  }

  private listIn<K>(lists: Map<K, LiveList<Node>>, key: K, node: Node, alive: (node: Node) => boolean): void {
    let list = lists.get(key);
    if (!list) {
      list = new LiveList(alive);
      lists.set(key, list);
    }
    list.push(node);
    node.lists.push(list);
  }

  /** Lists an open span under one of its identity values (openByIdentity). */
  private indexIdentity(family: string, field: string, value: string, node: Node): void {
    let fields = this.openByIdentity.get(family);
    if (!fields) {
      fields = new Map();
      this.openByIdentity.set(family, fields);
    }
    let values = fields.get(field);
    if (!values) {
      values = new Map();
      fields.set(field, values);
    }
    const entry = values.get(value);
    if (entry === undefined) {
      values.set(value, node);
      return;
    }
    let list: LiveList<Node>;
    if (entry instanceof LiveList) {
      list = entry;
    } else {
      // The second span of this value: the first moves into a list, as if it had been in one all along.
      list = new LiveList(isOpen);
      list.push(entry);
      if (entry.open) {
        entry.lists.push(list);
      } else {
        list.noteDead();
      }
      values.set(value, list);
    }
    list.push(node);
    node.lists.push(list);
  }

  /** The oldest open span of a family with this identity value that fits (as LiveList.oldest). */
  private openWith(family: string, field: string, value: string, fits: (node: Node) => boolean): Node | undefined {
    const entry = this.openByIdentity.get(family)?.get(field)?.get(value);
    if (entry === undefined) {
      return undefined;
    }
    if (entry instanceof LiveList) {
      return entry.oldest(fits, TRACE_LIMITS.scan);
    }
    return entry.open && fits(entry) ? entry : undefined;
  }

  private changed(node: Node): void {
    if (!this.change.added.has(node.span.id)) {
      this.change.updated.add(node.span.id);
    }
    this.ordered = undefined;
  }

  private takeChange(): TraceChange {
    const { added, updated } = this.change;
    this.change = { added: new Set(), updated: new Set() };
    return { added: [...added], updated: [...updated].filter((id) => !added.has(id)) };
  }

  private displayOrder(): Span[] {
    const order: Span[] = [];
    const stack = [...this.roots].reverse();
    for (let node = stack.pop(); node; node = stack.pop()) {
      order.push(node.span);
      for (let i = node.children.length - 1; i >= 0; i--) {
        stack.push(node.children[i]);
      }
    }
    return order;
  }
}

function time(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** No identity field (of `fields`) that both carry differs. */
function compatible(a: Identity, b: Identity, fields: readonly (keyof Identity)[] = IDENTITY): boolean {
  return fields.every((field) => {
    const x = a[field];
    const y = b[field];
    return x === undefined || y === undefined || x === y;
  });
}

function sharesIdentity(a: Identity, b: Identity): boolean {
  return IDENTITY.some((field) => a[field] !== undefined && a[field] === b[field]);
}

/** The fields an ending event adds to its span. */
function takeEndFields(span: Draft, event: RunEvent, cls: EventClass): void {
  if (cls.role === 'failed' && event.error !== undefined) {
    span.error ??= event.error;
  }
  span.usage = event.usage ?? span.usage;
  span.model ??= event.model;
  span.fromCache = event.fromCache ?? span.fromCache;
  span.toolArgs ??= event.toolArgs;
}

function countChunk(span: Draft, cls: EventClass): void {
  if (cls.role === 'thinkingChunk') {
    span.thinkingChunks = (span.thinkingChunks ?? 0) + 1;
  } else {
    span.chunks = (span.chunks ?? 0) + 1;
  }
}

/**
 * The row's name; `byDefault` when only a placeholder or the raw type was known, so a later event may name it (an
 * `event` row always follows its type, which a start taking over an early end changes).
 */
function nameOf(kind: SpanKind, fields: Identity & Pick<RunEvent, 'model' | 'extra'>, type: string): { name: string; byDefault: boolean } {
  const crewName = fields.extra?.['crew_name'];
  const named: Record<SpanKind, string | undefined> = {
    crew: typeof crewName === 'string' && crewName !== '' ? crewName : undefined,
    flow: fields.flowName,
    task: fields.taskName ?? fields.taskId,
    agent: fields.agentRole ?? fields.agentId,
    llm: fields.model,
    tool: fields.toolName,
    method: fields.methodName,
    event: undefined,
  };
  const name = named[kind];
  if (name !== undefined) {
    return { name, byDefault: false };
  }
  const placeholder = kind === 'crew' ? l10n.t('Crew') : kind === 'flow' ? l10n.t('Flow') : undefined;
  return { name: placeholder ?? type, byDefault: true };
}

function setIfAbsent<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (!map.has(key)) {
    map.set(key, value);
  }
}

function before(a: Node, b: Node): boolean {
  const order = comparePlaces(a.place, b.place);
  return order < 0 || (order === 0 && a.order < b.order);
}

/** Siblings stay sorted by start: a new one almost always goes last, else where a binary search says. */
function insertSorted(siblings: Node[], node: Node): void {
  const last = siblings[siblings.length - 1];
  if (!last || before(last, node)) {
    siblings.push(node);
    return;
  }
  siblings.splice(firstNotBefore(siblings, node), 0, node);
}

/** Where `node` goes among siblings in order: the first that does not come before it (binary search). */
function firstNotBefore(siblings: readonly Node[], node: Node): number {
  let low = 0;
  let high = siblings.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(siblings[mid], node)) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

function indexIn(siblings: readonly Node[], node: Node): number {
  const low = firstNotBefore(siblings, node);
  return siblings[low] === node ? low : siblings.indexOf(node);
}

/** A run's whole trace from its kept events (host side: export, the AI's summary); spans still open at a run's end are lost. */
export function buildTrace(events: readonly RunEvent[], runEnded: boolean, at: number): Trace {
  const trace = new Trace();
  trace.add(events);
  trace.settle(runEnded, at);
  return trace;
}
