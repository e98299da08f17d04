// Where a run's events sort: by time, then emission sequence, then arrival (status-events.md, "Rules that
// follow"). An event without a time goes right after the one it arrived after. Pure; the trace model places each
// add's events with it, sorting only when a batch arrives out of order.
import type { RunEvent } from '../../api/types';

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
