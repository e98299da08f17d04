// A run's event log accumulated across polls (status-events.md, "Rules that follow"): each reply carries a window of
// the latest events, mostly ones already seen. Merging costs time linear in the log and the window plus k log k for
// the k new events (what is kept is never sorted again: the new events are merged into it in one pass), so a 10,000-event log met by
// a 10,000-event window stays cheap on every poll.
import type { RunEvent } from '../../../api/types';

/** Where an event sorts: its time, then its emission sequence. Arrival order breaks the remaining ties. */
export interface EventPlace {
  readonly at: number;
  readonly seq: number;
}

/** Before every event: where the first event without a time of an empty log goes. */
export const FIRST_PLACE: EventPlace = { at: -Infinity, seq: -Infinity };

export function comparePlaces(a: EventPlace, b: EventPlace): number {
  if (a.at !== b.at) {
    return a.at < b.at ? -1 : 1;
  }
  return a.seq === b.seq ? 0 : a.seq < b.seq ? -1 : 1;
}

/**
 * An event's place: its time and sequence, else (no time) its predecessor's, so that it stays just after the event
 * it arrived after. An event without a sequence sorts first among those of its instant.
 */
export function placeOf(event: RunEvent, predecessor: EventPlace): EventPlace {
  const at = event.at;
  if (typeof at !== 'number' || !Number.isFinite(at)) {
    return predecessor;
  }
  const seq = event.seq;
  return { at, seq: typeof seq === 'number' && Number.isFinite(seq) ? seq : -Infinity };
}

export interface PlacedEvent {
  readonly event: RunEvent;
  readonly place: EventPlace;
}

/** `events` with their places, in order (stable: arrival breaks ties); the first without a time goes after `after`. */
export function placeEvents(events: readonly RunEvent[], after: EventPlace = FIRST_PLACE): PlacedEvent[] {
  let previous = after;
  const placed = events.map((event) => {
    previous = placeOf(event, previous);
    return { event, place: previous };
  });
  return isInOrder(placed) ? placed : placed.sort((a, b) => comparePlaces(a.place, b.place));
}

function isInOrder(placed: readonly PlacedEvent[]): boolean {
  for (let i = 1; i < placed.length; i++) {
    if (comparePlaces(placed[i - 1].place, placed[i].place) > 0) {
      return false;
    }
  }
  return true;
}

export interface MergedEvents {
  /** The log after the merge, oldest first: at most `cap` events. */
  events: RunEvent[];
  /** The events of the window not in the log before that the log now holds, in order. */
  added: RunEvent[];
  /** Events the cap dropped in this merge, the oldest: kept ones pushed out and new ones older than all that stay. */
  dropped: number;
}

/**
 * Merges a reply's window into the kept log: deduplicated by `key` (the first copy wins), ordered by time then
 * sequence, an event without a time placed just after the event it arrived after (the log's last for the window's
 * first), and the oldest dropped beyond `cap` (not finite: no cap). Pure: neither list is modified.
 *
 * Once the log is full, a window event that sorts at or before the log's oldest is not taken: it would be dropped at
 * once, and it is most likely one dropped before, which the window still lists. So each event is counted in
 * `dropped` once, however many windows list it.
 */
export function mergeEvents(kept: readonly RunEvent[], incoming: readonly RunEvent[], cap: number): MergedEvents {
  const limit = Number.isFinite(cap) ? Math.max(0, Math.floor(cap)) : Infinity;
  const log = placeEvents(distinct(kept));
  const known = new Map<string, EventPlace>();
  for (const { event, place } of log) {
    known.set(event.key, place);
  }
  const oldest = log.length >= limit ? log[0]?.place : undefined;
  const fresh: PlacedEvent[] = [];
  let previous = log.at(-1)?.place ?? FIRST_PLACE;
  for (const event of incoming) {
    const seen = known.get(event.key);
    if (seen !== undefined) {
      previous = seen;
      continue;
    }
    previous = placeOf(event, previous);
    known.set(event.key, previous);
    if (oldest === undefined || comparePlaces(previous, oldest) > 0) {
      fresh.push({ event, place: previous });
    }
  }
  fresh.sort((a, b) => comparePlaces(a.place, b.place));
  const { merged, freshAt } = interleave(log, fresh);
  const dropped = Math.max(0, merged.length - limit);
  return {
    events: dropped > 0 ? merged.slice(dropped) : merged,
    added: fresh.filter((_, i) => freshAt[i] >= dropped).map((placed) => placed.event),
    dropped,
  };
}

/** The log without repeated keys (a log this module made has none: then it is returned as it is). */
function distinct(events: readonly RunEvent[]): readonly RunEvent[] {
  const keys = new Set<string>();
  let repeated = false;
  for (const event of events) {
    repeated ||= keys.has(event.key);
    keys.add(event.key);
  }
  if (!repeated) {
    return events;
  }
  keys.clear();
  return events.filter((event) => {
    const first = !keys.has(event.key);
    keys.add(event.key);
    return first;
  });
}

/** Both sorted lists as one, in one pass (the log's events before new ones of the same place); where each new one went. */
function interleave(log: readonly PlacedEvent[], fresh: readonly PlacedEvent[]): { merged: RunEvent[]; freshAt: number[] } {
  const merged: RunEvent[] = [];
  const freshAt: number[] = [];
  let i = 0;
  for (const placed of fresh) {
    while (i < log.length && comparePlaces(log[i].place, placed.place) <= 0) {
      merged.push(log[i++].event);
    }
    freshAt.push(merged.length);
    merged.push(placed.event);
  }
  while (i < log.length) {
    merged.push(log[i++].event);
  }
  return { merged, freshAt };
}
