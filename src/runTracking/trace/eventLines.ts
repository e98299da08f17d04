// A run's events as JSON Lines (eventFiles.ts writes them; the run view's page is sent them as this text), read
// back. Pure: the host and the page share it.

import type { RunEvent } from '../../api/types';

/** Every line that parses as an event; a line cut by a crash, or anything else, is skipped. */
export function parseLines(text: string): RunEvent[] {
  const events: RunEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line) {
      continue;
    }
    try {
      const event = JSON.parse(line) as RunEvent;
      if (typeof event === 'object' && event !== null && typeof event.key === 'string' && typeof event.type === 'string') {
        events.push(event);
      }
    } catch {
      // A line cut by a crash.
    }
  }
  return events;
}
