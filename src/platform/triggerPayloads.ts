// The trigger payload a crew was last kicked off with, per crew and trigger: offered back the next time that crew is
// tried with that trigger, as Kick Off offers a crew's last used inputs. Shared by every window (util/sharedValues);
// plain values, never a token. Pure: no vscode; functions only (it is part of a lazily loaded bundle).
import { type Inputs, isInputs } from '../api/inputValues';
import { isPlainObject } from '../util/objects';
import type { SharedValues } from '../util/sharedValues';

const KEY = 'crewRuns.triggerPayloads';
/** A payload longer than this (as JSON) is not remembered: the memory is one shared file, read by every window. */
export const MAX_REMEMBERED_PAYLOAD = 64 * 1024;
/** Triggers remembered per crew; the least recently used go first. */
export const MAX_TRIGGERS_PER_CREW = 20;

export interface TriggerRef {
  app: string;
  trigger: string;
}

interface Remembered {
  payload: Inputs;
  /** When it was last used (ms): the newest first, the oldest dropped past MAX_TRIGGERS_PER_CREW. */
  at: number;
}

type CrewMemory = Record<string, Remembered>;
type All = Record<string, CrewMemory>;

const keyOf = (ref: TriggerRef) => `${ref.app}/${ref.trigger}`;

/** The payload last used with this crew and trigger, if it was remembered. */
export function rememberedPayload(store: SharedValues, crewUrl: string, ref: TriggerRef): Inputs | undefined {
  return memoryOf(store.get<All>(KEY), crewUrl)[keyOf(ref)]?.payload;
}

/** The trigger the crew was last kicked off with. */
export function latestTrigger(store: SharedValues, crewUrl: string): TriggerRef | undefined {
  const newest = Object.entries(memoryOf(store.get<All>(KEY), crewUrl)).sort(([, a], [, b]) => b.at - a.at)[0]?.[0];
  const slash = newest?.indexOf('/') ?? -1;
  return newest && slash > 0 ? { app: newest.slice(0, slash), trigger: newest.slice(slash + 1) } : undefined;
}

/** Remembers the payload; false when it is too large to (MAX_REMEMBERED_PAYLOAD). */
export async function rememberPayload(store: SharedValues, crewUrl: string, ref: TriggerRef, payload: Inputs, now = Date.now()): Promise<boolean> {
  if (JSON.stringify(payload).length > MAX_REMEMBERED_PAYLOAD) {
    return false;
  }
  await store.change<All>(KEY, (all) => {
    const crews = isPlainObject(all) ? all : {};
    const kept = Object.entries({ ...memoryOf(crews, crewUrl), [keyOf(ref)]: { payload, at: now } })
      .sort(([, a], [, b]) => b.at - a.at)
      .slice(0, MAX_TRIGGERS_PER_CREW);
    return { ...crews, [crewUrl]: Object.fromEntries(kept) };
  });
  return true;
}

/** A crew's remembered payloads, each checked: the file is shared, and any version may have written it. */
function memoryOf(all: unknown, crewUrl: string): CrewMemory {
  const stored = isPlainObject(all) ? all[crewUrl] : undefined;
  if (!isPlainObject(stored)) {
    return {};
  }
  const kept: CrewMemory = {};
  for (const [key, value] of Object.entries(stored)) {
    if (isPlainObject(value) && isInputs(value.payload) && typeof value.at === 'number' && Number.isFinite(value.at)) {
      kept[key] = { payload: value.payload, at: value.at };
    }
  }
  return kept;
}
