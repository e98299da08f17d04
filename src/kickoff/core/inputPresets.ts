// Remembered inputs per crew: the last used values and named presets. Plain values, never tokens.
import type { InputSpec } from '../../api/types';
import type { SharedValues } from '../../util/sharedValues';
import { isPlainObject } from '../../util/objects';
import { type Inputs, type InputValue, inputsProblem, isInputs, inputLine } from '../../api/inputValues';

export interface InputPreset {
  name: string;
  inputs: Inputs;
}

interface CrewInputMemory {
  last?: Inputs;
  /** What a Kick Off left when the user pressed Escape: offered back as "Continue where you left off". */
  unfinished?: Inputs;
  presets: InputPreset[];
  /** Per input: taken as JSON (true) or as text (false), as the user last switched its step. */
  json?: Record<string, boolean>;
}

const KEY = 'crewRuns.inputMemory';
const MAX_REMEMBERED_VALUE = 32 * 1024;
const MAX_PRESETS_PER_CREW = 50;

type AllMemory = Record<string, CrewInputMemory>;

export class InputPresets {
  constructor(private readonly store: SharedValues) {}

  lastUsed(crewUrl: string): Inputs | undefined {
    return this.memory(crewUrl).last;
  }

  presets(crewUrl: string): readonly InputPreset[] {
    return this.memory(crewUrl).presets;
  }

  /** Values longer than MAX_REMEMBERED_VALUE are left out: the memory is for what a person types. */
  async rememberLastUsed(crewUrl: string, inputs: Inputs): Promise<void> {
    await this.change(crewUrl, (m) => ({ ...m, last: small(inputs) }));
  }

  unfinished(crewUrl: string): Inputs | undefined {
    return this.memory(crewUrl).unfinished;
  }

  /** The values of a Kick Off left with Escape (small values only, as for the last used). */
  async rememberUnfinished(crewUrl: string, inputs: Inputs): Promise<void> {
    await this.change(crewUrl, (m) => ({ ...m, unfinished: small(inputs) }));
  }

  async forgetUnfinished(crewUrl: string): Promise<void> {
    if (this.memory(crewUrl).unfinished) {
      await this.change(crewUrl, (m) => ({ ...m, unfinished: undefined }));
    }
  }

  /** How the user last took each input of the crew: as JSON (true) or as text (false); inputs never switched are absent. */
  jsonChoices(crewUrl: string): Readonly<Record<string, boolean>> {
    return this.memory(crewUrl).json ?? {};
  }

  /** Remembers the text/JSON choices of a kickoff that started, over the earlier ones (at most 200 inputs). */
  async rememberJsonChoices(crewUrl: string, choices: Record<string, boolean>): Promise<void> {
    if (Object.keys(choices).length === 0) {
      return;
    }
    await this.change(crewUrl, (m) => ({ ...m, json: Object.fromEntries(Object.entries({ ...m.json, ...choices }).slice(-200)) }));
  }

  /** Saves or replaces (same name) a preset. */
  async savePreset(crewUrl: string, preset: InputPreset): Promise<void> {
    await this.change(crewUrl, (m) => ({
      ...m,
      presets: [...m.presets.filter((p) => p.name !== preset.name), { name: preset.name, inputs: { ...preset.inputs } }]
        .sort((a, b) => a.name.localeCompare(b.name))
        .slice(0, MAX_PRESETS_PER_CREW),
    }));
  }

  async deletePreset(crewUrl: string, name: string): Promise<void> {
    await this.change(crewUrl, (m) => ({ ...m, presets: m.presets.filter((p) => p.name !== name) }));
  }

  async renamePreset(crewUrl: string, from: string, to: string): Promise<void> {
    await this.change(crewUrl, (m) => ({
      ...m,
      presets: m.presets.filter((p) => p.name !== to).map((p) => (p.name === from ? { ...p, name: to } : p)),
    }));
  }

  private memory(crewUrl: string): CrewInputMemory {
    return memoryOf(this.store.get<AllMemory>(KEY), crewUrl);
  }

  private async change(crewUrl: string, update: (m: CrewInputMemory) => CrewInputMemory): Promise<void> {
    await this.store.change<AllMemory>(KEY, (all) => ({ ...(isPlainObject(all) ? all : {}), [crewUrl]: update(memoryOf(all, crewUrl)) }));
  }
}

/** A crew's memory as stored, each part checked (the file is shared, and older versions wrote it too). */
function memoryOf(all: AllMemory | undefined, crewUrl: string): CrewInputMemory {
  const stored = isPlainObject(all) ? (all[crewUrl] as Partial<CrewInputMemory> | undefined) : undefined;
  return {
    last: isInputs(stored?.last) ? stored.last : undefined,
    unfinished: isInputs(stored?.unfinished) ? stored.unfinished : undefined,
    presets: Array.isArray(stored?.presets) ? stored.presets.filter((p) => typeof p?.name === 'string' && isInputs(p.inputs)) : [],
    json: isPlainObject(stored?.json) ? Object.fromEntries(Object.entries(stored.json).filter(([, v]) => typeof v === 'boolean')) : undefined,
  };
}

function small(inputs: Inputs): Inputs {
  return Object.fromEntries(Object.entries(inputs).filter(([, value]) => inputLine(value).length <= MAX_REMEMBERED_VALUE));
}

export type InputsFromJson = { ok: true; inputs: Inputs } | { ok: false; reason: 'notJson' | 'notObject' } | { ok: false; reason: 'badValue'; message: string };

/**
 * Inputs from JSON text: an object of input names to values, or `{"inputs": {...}}` as in a kickoff body.
 * Every JSON value is kept as it is (a crew takes objects, lists, numbers); a value over the limits is refused by name.
 */
export function inputsFromJson(text: string): InputsFromJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'notJson' };
  }
  if (isPlainObject(value) && 'inputs' in value) {
    value = value['inputs'];
  }
  if (!isPlainObject(value)) {
    return { ok: false, reason: 'notObject' };
  }
  const problem = inputsProblem(value);
  if (problem) {
    return { ok: false, reason: 'badValue', message: problem.message };
  }
  return { ok: true, inputs: value as Record<string, InputValue> };
}

/**
 * Whether an input needs a value: what the crew said, else every listed input but a flow's `id`
 * (optional and better left empty, see the API notes).
 */
export function isRequiredInput(spec: InputSpec): boolean {
  return spec.required ?? spec.name !== 'id';
}
