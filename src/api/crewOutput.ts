// crewai's own result objects as self-hosted servers return them (`CrewOutput.model_dump()`; see the
// shared API notes, "Self-hosted servers of the same API"): `raw`, `json_dict`, `pydantic`,
// `tasks_output` (serialised `TaskOutput`s) and `token_usage` (a serialised `UsageMetrics`). Pure.

import { isJsonObject, type JsonObject } from './bodies';

/** Fields only a serialised CrewOutput (or a flow's result built from one) carries. */
const CREW_OUTPUT_KEYS = ['raw', 'json_dict', 'pydantic', 'tasks_output', 'token_usage'];

/** The body's CrewOutput: `result` when it is one, else `output`; undefined when neither is. */
export function crewOutputOf(fields: JsonObject): JsonObject | undefined {
  return [fields['result'], fields['output']].find(isCrewOutput);
}

/** An object with at least one CrewOutput field (a docs `{output, tasks}` result has none). */
export function isCrewOutput(value: unknown): value is JsonObject {
  return isJsonObject(value) && CREW_OUTPUT_KEYS.some((key) => key in value);
}

/**
 * The final output a CrewOutput stands for: `json_dict`, else `pydantic`, else `raw` — the first that is
 * present and not empty. Never the object itself: its task list and LLM messages are not the output.
 */
export function crewOutputValue(output: JsonObject): unknown {
  for (const key of ['json_dict', 'pydantic']) {
    const value = output[key];
    if ((isJsonObject(value) && Object.keys(value).length > 0) || (Array.isArray(value) && value.length > 0)) {
      return value;
    }
  }
  return output['raw'];
}

/** A TaskOutput's output: `raw` (its text), else `json_dict`, else `pydantic`. */
export function taskOutputValue(task: JsonObject): unknown {
  const raw = task['raw'];
  if (typeof raw === 'string' && raw.trim() !== '') {
    return raw;
  }
  return [task['json_dict'], task['pydantic']].find((value) => isJsonObject(value) && Object.keys(value).length > 0);
}
