// GET /inputs in every shape a crew was seen or is expected to answer with (see the shared API notes,
// "GET /inputs" and "Self-hosted servers of the same API"). Pure and never throwing: undefined means
// "this body is no input list", never a guess.
//
// Read, in this order:
// - `{"inputs": [names]}` (the hosted service) and a bare array;
// - a list of objects `{name, type?, description?, required?, default?, enum?}`, bare or under a key;
// - a JSON Schema (`properties`, `required`), also under `inputs`;
// - an object whose only list sits under another key (`parameters`, `fields`, `input_names`, …);
// - a map name → description, type word, or property object (also under `inputs`).

import { decodeBody, isJsonObject, type JsonObject, nonBlankString } from './bodies';
import { type InputValue, valueProblem } from './inputValues';
import type { InputSpec } from './types';

/** Words a map value may be instead of a description: `{"topic": "string"}` declares a type. */
const TYPE_WORDS = new Set(['string', 'str', 'text', 'integer', 'int', 'number', 'float', 'boolean', 'bool', 'array', 'list', 'object', 'dict', 'any']);

/** Keys of error and health replies (`{"detail": …}`, `{"status": "ok"}`): such a map names no inputs. */
const NOT_INPUT_KEYS = ['detail', 'error', 'message', 'status'];

/** Keys of a property object; one of them is needed for `{…}` to describe an input. */
const PROPERTY_KEYS = ['type', 'description', 'default', 'enum', 'title', 'required', 'examples'];

/**
 * The most inputs read from a crew's list, here where they enter: every one is a step of Kick Off and a value of
 * every batch row (a crew declaring 10,000 made a 10,000-step wizard, and a batch of 2,000 rows +920 MB). As many as
 * a batch has columns (batches/core/tableBuilder.ts MAX_COLUMNS).
 */
export const MAX_INPUTS = 200;

const leftOut = new WeakMap<readonly InputSpec[], number>();

/** How many more distinct inputs than MAX_INPUTS the crew listed, for these specs parseInputsBody returned (0 for any others). */
export function inputsLeftOut(specs: readonly InputSpec[]): number {
  return leftOut.get(specs) ?? 0;
}

/** The first MAX_INPUTS, the rest counted. */
function capped(specs: InputSpec[] | undefined): InputSpec[] | undefined {
  if (specs === undefined || specs.length <= MAX_INPUTS) {
    return specs;
  }
  const kept = specs.slice(0, MAX_INPUTS);
  leftOut.set(kept, specs.length - MAX_INPUTS);
  return kept;
}

/** The inputs a crew describes, deduplicated by name in order, at most MAX_INPUTS; undefined when the body is no input list. */
export function parseInputsBody(body: unknown): InputSpec[] | undefined {
  return capped(readInputsBody(body));
}

function readInputsBody(body: unknown): InputSpec[] | undefined {
  const decoded = decodeBody(body);
  if (Array.isArray(decoded)) {
    return fromList(decoded);
  }
  if (!isJsonObject(decoded)) {
    return undefined;
  }
  if ('inputs' in decoded) {
    const inputs = decoded['inputs'];
    return Array.isArray(inputs) ? fromList(inputs) : isJsonObject(inputs) ? fromObject(inputs) : undefined;
  }
  return fromObject(decoded);
}

/** An object: a JSON Schema, a single list under any key, or a map of names. */
function fromObject(value: JsonObject): InputSpec[] | undefined {
  if (isJsonObject(value['properties'])) {
    return fromSchema(value);
  }
  const lists = Object.values(value).filter(Array.isArray);
  if (lists.length === 1) {
    const specs = fromList(lists[0]);
    // An error body with a list in it (FastAPI's `detail: [...]`) lists no names.
    if (specs !== undefined && (specs.length > 0 || lists[0].length === 0)) {
      return specs;
    }
  }
  return fromMap(value);
}

/** A list of names or of input objects; undefined when it holds anything else. */
function fromList(list: readonly unknown[]): InputSpec[] | undefined {
  const specs: InputSpec[] = [];
  for (const entry of list) {
    if (typeof entry === 'string' || typeof entry === 'number') {
      const name = scalarText(entry);
      if (name !== undefined && name.trim() !== '') {
        specs.push({ name });
      }
    } else if (isJsonObject(entry)) {
      const name = nonBlankString(entry['name']);
      if (name === undefined) {
        return undefined;
      }
      specs.push(describe(name, entry, requiredFlag(entry)));
    }
    // null and other junk entries are skipped, like blank names.
  }
  return dedupe(specs);
}

/** JSON Schema: `properties` in order; `required` names the required ones (with none, a default makes it optional). */
function fromSchema(schema: JsonObject): InputSpec[] {
  const properties = schema['properties'] as JsonObject;
  const required = Array.isArray(schema['required']) ? schema['required'].filter((name): name is string => typeof name === 'string') : undefined;
  const specs = Object.entries(properties)
    .filter(([name]) => name.trim() !== '')
    .map(([name, property]) => {
      const fields = isJsonObject(property) ? property : {};
      const spec = describe(name, fields, required === undefined ? undefined : required.includes(name));
      if (spec.required === undefined && spec.default !== undefined) {
        spec.required = false;
      }
      return spec;
    });
  return dedupe(specs);
}

/** name → description, type word or property object. Undefined for anything else, error bodies included. */
function fromMap(map: JsonObject): InputSpec[] | undefined {
  const entries = Object.entries(map).filter(([name]) => name.trim() !== '');
  if (entries.length === 0 || NOT_INPUT_KEYS.some((key) => key in map)) {
    return undefined;
  }
  const specs: InputSpec[] = [];
  for (const [name, value] of entries) {
    if (typeof value === 'string') {
      const word = value.trim().toLowerCase();
      specs.push(TYPE_WORDS.has(word) ? { name, type: word } : value.trim() === '' ? { name } : { name, description: value.trim() });
    } else if (isJsonObject(value) && PROPERTY_KEYS.some((key) => key in value)) {
      specs.push(describe(name, value, requiredFlag(value)));
    } else {
      return undefined;
    }
  }
  return specs;
}

/** What an input object or schema property says about an input. */
function describe(name: string, fields: JsonObject, required: boolean | undefined): InputSpec {
  const spec: InputSpec = { name };
  const description = nonBlankString(fields['description']) ?? nonBlankString(fields['title']);
  if (description !== undefined && description.trim() !== name) {
    spec.description = description.trim();
  }
  const type = nonBlankString(fields['type']);
  if (type !== undefined) {
    spec.type = type.trim();
  }
  const defaultValue = scalarText(fields['default']);
  if (defaultValue !== undefined) {
    spec.default = defaultValue;
  }
  if (Array.isArray(fields['enum'])) {
    const choices = [...new Set(fields['enum'].map(scalarText).filter((choice): choice is string => choice !== undefined))];
    if (choices.length > 0) {
      spec.enum = choices;
    }
  }
  if (required !== undefined) {
    spec.required = required;
  }
  const skeleton = skeletonOf(fields);
  if (skeleton !== undefined) {
    spec.skeleton = skeleton;
  }
  return spec;
}

/** An empty value of a JSON Schema type: what an object's fields start as in its editor. */
function emptyOf(type: unknown): InputValue {
  switch (type) {
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return '';
  }
}

/**
 * What the JSON editor of an object or list input starts from: its default when that is structured, else
 * an object of the schema's fields (one level, each empty of its type), else undefined.
 */
function skeletonOf(fields: JsonObject): InputValue | undefined {
  const fallback = fields['default'];
  if (typeof fallback === 'object' && fallback !== null && valueProblem('default', fallback) === undefined) {
    return fallback as InputValue;
  }
  if (fields['type'] === 'object' && isJsonObject(fields['properties'])) {
    return Object.fromEntries(
      Object.entries(fields['properties'])
        .slice(0, 100)
        .map(([name, property]) => [name, emptyOf(isJsonObject(property) ? property['type'] : undefined)]),
    );
  }
  return undefined;
}

/** `required: true|false|"true"|"false"` or `optional: true`; undefined when the object does not say. */
function requiredFlag(fields: JsonObject): boolean | undefined {
  const flag = (value: unknown): boolean | undefined =>
    typeof value === 'boolean' ? value : value === 'true' ? true : value === 'false' ? false : undefined;
  const required = flag(fields['required']);
  if (required !== undefined) {
    return required;
  }
  const optional = flag(fields['optional']);
  return optional === undefined ? undefined : !optional;
}

/** Strings as they are, finite numbers and booleans as text: every value is sent as text. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value;
  }
  return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' ? String(value) : undefined;
}

function dedupe(specs: readonly InputSpec[]): InputSpec[] {
  const seen = new Set<string>();
  return specs.filter((spec) => !seen.has(spec.name) && seen.add(spec.name));
}

