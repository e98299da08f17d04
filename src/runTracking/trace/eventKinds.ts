// What an event's type says (status-events.md): whether it starts a span, ends one or marks a moment, which family
// pairs it, and which kind of span it makes. Unknown types are read by their ending too, so `memory_query_started`
// and `memory_query_completed` still make one span.
import type { SpanKind } from './span';

export type EventRole = 'start' | 'ok' | 'failed' | 'streamChunk' | 'thinkingChunk' | 'point';

export interface EventClass {
  role: EventRole;
  /** Starts and ends pair within a family: the type without its `_started`, `_completed`, … ending. */
  family: string;
  kind: SpanKind;
  /** A span nests by containment under open spans of a lower rank only (KIND_RANK). */
  rank: number;
}

/** The families the service documents, and the kind of span each makes; every other family makes `event` spans. */
const KNOWN_FAMILIES = new Map<string, SpanKind>([
  ['flow', 'flow'],
  ['method_execution', 'method'],
  ['crew_kickoff', 'crew'],
  ['task', 'task'],
  ['agent_execution', 'agent'],
  ['llm_call', 'llm'],
  ['tool_usage', 'tool'],
]);

/** Containment, outermost first: flow → method → crew → task → agent → model and tool calls (and the rest). */
export const KIND_RANK: Readonly<Record<SpanKind, number>> = { flow: 0, method: 1, crew: 2, task: 3, agent: 4, llm: 5, tool: 5, event: 5 };
const LEAF_RANK = 5;

/** Failures of a tool call whose type does not begin with the tool family's. */
const TOOL_FAILURES = new Set(['tool_validate_input_error', 'tool_selection_error']);

const ENDINGS: readonly (readonly [RegExp, EventRole])[] = [
  [/_started$/, 'start'],
  [/_(completed|finished)$/, 'ok'],
  [/_(failed|error)$/, 'failed'],
];

/** Classes of the types seen, shared (never changed): a log has a few dozen types and 10,000s of events. */
const classes = new Map<string, Readonly<EventClass>>();
/** Types remembered at most: a hostile log's endless new types are classified afresh. */
const MAX_CLASSES = 1024;

export function classify(type: string): Readonly<EventClass> {
  let cls = classes.get(type);
  if (!cls) {
    cls = Object.freeze(classifyType(type));
    if (classes.size < MAX_CLASSES) {
      classes.set(type, cls);
    }
  }
  return cls;
}

function classifyType(type: string): EventClass {
  if (type === 'llm_stream_chunk' || type === 'llm_thinking_chunk') {
    return { role: type === 'llm_stream_chunk' ? 'streamChunk' : 'thinkingChunk', family: 'llm_call', kind: 'llm', rank: LEAF_RANK };
  }
  if (TOOL_FAILURES.has(type)) {
    return { role: 'failed', family: 'tool_usage', kind: 'tool', rank: LEAF_RANK };
  }
  for (const [ending, role] of ENDINGS) {
    const found = ending.exec(type);
    if (found && found.index > 0) {
      const family = type.slice(0, found.index);
      const kind = KNOWN_FAMILIES.get(family) ?? 'event';
      return { role, family, kind, rank: KIND_RANK[kind] };
    }
  }
  // A moment nests under the span of the family it names (`flow_paused` under its flow, not inside a crew's agent).
  let owner: SpanKind | undefined;
  let ownerLength = 0;
  for (const [family, kind] of KNOWN_FAMILIES) {
    if (family.length > ownerLength && type.startsWith(`${family}_`)) {
      owner = kind;
      ownerLength = family.length;
    }
  }
  return { role: 'point', family: type, kind: 'event', rank: owner === undefined ? LEAF_RANK : Math.min(LEAF_RANK, KIND_RANK[owner] + 1) };
}
