// Which inputs a crew refused and why, from a 400/422 that explains a type: FastAPI's Pydantic v2 body
// `{"detail": [{"loc": ["body", "inputs", name, …], "msg", "type": "dict_type"}]}`, and Pydantic v1's
// `"type": "type_error.dict"`. Pure and never throwing; a missing top-level input is extractMissingInputs'.

import { decodeBody, isJsonObject, nonBlankString } from './bodies';

/** What the crew expects instead, as far as its error type says: the editor the input's step opens in. */
export type ExpectedKind = 'json' | 'number' | 'boolean' | 'text';

export interface InvalidInput {
  name: string;
  /** The server's words (with the field inside the input when it named one), clipped. */
  message: string;
  expects?: ExpectedKind;
}

const MAX_ENTRIES = 100;
const MAX_MESSAGE = 300;

/** The refused inputs in the order the body names them, one entry per input (its messages joined). */
export function extractInvalidInputs(body: unknown): InvalidInput[] {
  const decoded = decodeBody(body);
  const detail = isJsonObject(decoded) ? decoded['detail'] : undefined;
  if (!Array.isArray(detail)) {
    return [];
  }
  const found = new Map<string, { messages: string[]; expects?: ExpectedKind }>();
  for (const entry of detail.slice(0, MAX_ENTRIES)) {
    if (!isJsonObject(entry) || !Array.isArray(entry['loc'])) {
      continue;
    }
    const loc = entry['loc'];
    const at = loc.indexOf('inputs');
    const name = at >= 0 ? loc[at + 1] : undefined;
    if (typeof name !== 'string' && typeof name !== 'number') {
      continue;
    }
    const inner = loc.slice(at + 2).filter((part) => typeof part === 'string' || typeof part === 'number');
    const type = typeof entry['type'] === 'string' ? entry['type'] : '';
    // A missing input itself is extractMissingInputs'; a missing field inside one is a wrong value here.
    if (inner.length === 0 && (type === 'missing' || type === 'value_error.missing')) {
      continue;
    }
    const msg = nonBlankString(entry['msg']) ?? type;
    const said = inner.length > 0 ? `${inner.join('.')}: ${msg}` : msg;
    const key = String(name);
    const seen = found.get(key) ?? { messages: [] };
    seen.messages.push(said);
    // A field inside the input means the input is structured, whatever the field's own type is.
    seen.expects ??= inner.length > 0 ? 'json' : expectedKind(type);
    found.set(key, seen);
  }
  return [...found].map(([name, { messages, expects }]) => {
    const message = messages.join('; ');
    return { name, message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message, ...(expects ? { expects } : {}) };
  });
}

function expectedKind(type: string): ExpectedKind | undefined {
  if (/^(dict|model|list|tuple|set|frozen_set|json)_|type_error\.(dict|list|tuple|set)/.test(type)) {
    return 'json';
  }
  if (/^(int|float|decimal)_|type_error\.(integer|float|decimal)/.test(type)) {
    return 'number';
  }
  if (/^bool_|type_error\.bool/.test(type)) {
    return 'boolean';
  }
  return /^string_|type_error\.str/.test(type) ? 'text' : undefined;
}
