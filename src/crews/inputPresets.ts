// Remembered inputs per crew: the last used values and named presets. Plain values, never tokens.
import type { InputSpec } from '../api/types';
import type { KeyValueStore } from '../runs/runStore';
import { isPlainObject } from '../util/objects';
import { type Inputs, type InputValue, inputsProblem, isInputs, inputLine } from '../api/inputValues';

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
/**
 * How long this window's own write to a crew's memory outranks the shared state: right after an update,
 * VS Code's globalState may hand back an older copy for a moment (a preset just saved went missing).
 */
const OWN_WRITE_MS = 5_000;

export class InputPresets {
  private readonly ownWrites = new Map<string, { memory: CrewInputMemory; at: number }>();

  constructor(private readonly store: KeyValueStore) {}

  lastUsed(crewUrl: string): Inputs | undefined {
    return this.memory(crewUrl).last;
  }

  presets(crewUrl: string): readonly InputPreset[] {
    return this.memory(crewUrl).presets;
  }

  /** Values longer than MAX_REMEMBERED_VALUE are left out: global state is meant for small things. */
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

  private all(): Record<string, CrewInputMemory> {
    const value = this.store.get<Record<string, CrewInputMemory>>(KEY);
    const all = value && typeof value === 'object' ? { ...value } : {};
    const now = Date.now();
    for (const [crewUrl, own] of this.ownWrites) {
      if (now - own.at > OWN_WRITE_MS) {
        this.ownWrites.delete(crewUrl);
      } else {
        all[crewUrl] = own.memory;
      }
    }
    return all;
  }

  private memory(crewUrl: string): CrewInputMemory {
    const stored = this.all()[crewUrl];
    return {
      last: isInputs(stored?.last) ? stored.last : undefined,
      unfinished: isInputs(stored?.unfinished) ? stored.unfinished : undefined,
      presets: Array.isArray(stored?.presets) ? stored.presets.filter((p) => typeof p?.name === 'string' && isInputs(p.inputs)) : [],
      json: isPlainObject(stored?.json) ? Object.fromEntries(Object.entries(stored.json).filter(([, v]) => typeof v === 'boolean')) : undefined,
    };
  }

  private async change(crewUrl: string, update: (m: CrewInputMemory) => CrewInputMemory): Promise<void> {
    const all = this.all();
    const memory = update(this.memory(crewUrl));
    this.ownWrites.set(crewUrl, { memory, at: Date.now() });
    await this.store.update(KEY, { ...all, [crewUrl]: memory });
  }
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
