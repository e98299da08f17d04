// A run's output from a GET /status body (rule 4 of the shared API notes): JSON where the crew gave JSON
// (directly or as a ```json fence that is the whole text), else Markdown. Pure and never throwing.

import { clipJsonDepth, exceedsJsonDepth, isJsonObject, type JsonObject, parseJsonLenient, safeStringify } from './bodies';
import { crewOutputValue } from './crewOutput';
import type { FinalOutput, RunState, TaskOutput } from './types';

const WHOLE_FENCED_BLOCK = /^```[ \t]*(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```$/i;

/**
 * A JSON output. One nested too deep to print or store keeps its source text (or a clipped print)
 * and no structure: "[object Object]" or a run that cannot be saved would be worse.
 */
function jsonOutput(value: unknown, sourceText?: string): FinalOutput {
  if (exceedsJsonDepth(value)) {
    return { kind: 'json', text: sourceText ?? safeStringify(clipJsonDepth(value), 2) ?? '' };
  }
  return { kind: 'json', text: safeStringify(value, 2) ?? sourceText ?? String(value), json: value };
}

function isStructured(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * Text that may carry JSON: JSON as is, then JSON in a ```json fence that is the whole text, else Markdown.
 * Only objects and arrays count as JSON output; a fence inside prose stays prose (its words matter).
 */
export function interpretOutputText(text: string): FinalOutput | undefined {
  const trimmed = text.trim();
  if (trimmed === '') {
    return undefined;
  }
  const direct = parseJsonLenient(trimmed);
  if (direct.ok && isStructured(direct.value)) {
    return jsonOutput(direct.value, trimmed);
  }
  const fenced = WHOLE_FENCED_BLOCK.exec(trimmed);
  if (fenced) {
    const inner = parseJsonLenient(fenced[1]);
    if (inner.ok && isStructured(inner.value)) {
      return jsonOutput(inner.value, fenced[1].trim());
    }
  }
  return { kind: 'markdown', text };
}

/** Any JSON value as an output: strings interpreted, structures as JSON, scalars as text. */
function outputFromValue(value: unknown): FinalOutput | undefined {
  if (typeof value === 'string') {
    return interpretOutputText(value);
  }
  if (isStructured(value)) {
    return jsonOutput(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return { kind: 'markdown', text: String(value) };
  }
  return undefined;
}

// Rule 4: result_json → a CrewOutput's json_dict, pydantic or raw → result (docs object with `output`;
// live string) → last_executed_task.output.
export function parseFinalOutput(
  fields: JsonObject,
  state: RunState,
  lastTask: TaskOutput | undefined,
  crewOutput: JsonObject | undefined,
): FinalOutput | undefined {
  const resultJson = fields['result_json'];
  const isEmptyObject = isJsonObject(resultJson) && Object.keys(resultJson).length === 0;
  // Too deep to keep as a structure: the live `result` string carries the same output as text.
  const tooDeep = typeof fields['result'] === 'string' && exceedsJsonDepth(resultJson);
  const fromResultJson = isEmptyObject || tooDeep ? undefined : outputFromValue(resultJson);
  if (fromResultJson !== undefined) {
    return fromResultJson;
  }
  if (crewOutput !== undefined) {
    // Never the object dumped whole: an empty CrewOutput has no output yet.
    return outputFromValue(crewOutputValue(crewOutput)) ?? (state === 'succeeded' && lastTask !== undefined ? interpretOutputText(lastTask.output) : undefined);
  }
  // A self-hosted server may name it `output`.
  const result = fields['result'] ?? fields['output'];
  if (isJsonObject(result)) {
    if (result['output'] !== undefined && result['output'] !== null) {
      const fromOutput = outputFromValue(result['output']);
      if (fromOutput !== undefined) {
        return fromOutput;
      }
    }
    // An object result without `output` is shown whole, unless it only carries the task list.
    const otherKeys = Object.keys(result).filter((key) => key !== 'tasks' && key !== 'output');
    if (otherKeys.length > 0) {
      return jsonOutput(result);
    }
  } else {
    const fromResult = outputFromValue(result);
    if (fromResult !== undefined) {
      return fromResult;
    }
  }
  // While running, the last task's output is an intermediate result, not the run's final output.
  if (state === 'succeeded' && lastTask !== undefined) {
    return interpretOutputText(lastTask.output);
  }
  return undefined;
}
