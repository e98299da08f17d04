// Tokens summed by model name: a run's own tally (kept with its details as events arrive) and a batch's. Pure; a
// copy is returned, the input is never changed. At most MAX_MODELS names: a crew that names a new model in every
// event must not grow a run's details without end.

import type { EventUsage } from '../../api/types';

export const MAX_MODELS = 50;
/** Where the tokens of models past MAX_MODELS go. */
export const OTHER_MODELS = '…';

const FIELDS = ['promptTokens', 'completionTokens', 'cachedPromptTokens', 'totalTokens'] as const;

export function addUsage(tally: Readonly<Record<string, EventUsage>>, model: string, usage: EventUsage): Record<string, EventUsage> {
  const name = model in tally || Object.keys(tally).length < MAX_MODELS ? model : OTHER_MODELS;
  const sum: EventUsage = { ...tally[name] };
  for (const field of FIELDS) {
    const n = usage[field];
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0) {
      sum[field] = (sum[field] ?? 0) + n;
    }
  }
  // defineProperty: a model named `__proto__` stays a plain key.
  const next = { ...tally };
  Object.defineProperty(next, name, { value: sum, enumerable: true, writable: true, configurable: true });
  return next;
}

/** Several tallies (a batch's runs) in one. */
export function mergeTallies(tallies: Iterable<Readonly<Record<string, EventUsage>> | undefined>): Record<string, EventUsage> {
  let total: Record<string, EventUsage> = {};
  for (const tally of tallies) {
    for (const [model, usage] of Object.entries(tally ?? {})) {
      total = addUsage(total, model, usage);
    }
  }
  return total;
}
