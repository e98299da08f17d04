// Typed inputs of a simulated crew, checked as a FastAPI server with a Pydantic inputs model checks them:
// a value of the wrong type (a string where an object is declared, a field of an object that is not a list…)
// is a 422 whose `detail` lists each error with its `loc`, `msg` and `type`, in Pydantic v2's words.

import { isPlainObject } from '../util/objects';
import type { InputDetails, InputType } from './types';

export interface PydanticError {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

const EXPECTED: Record<InputType, { type: string; msg: string; accepts: (value: unknown) => boolean }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string', accepts: (v) => typeof v === 'string' },
  integer: { type: 'int_type', msg: 'Input should be a valid integer', accepts: (v) => typeof v === 'number' && Number.isInteger(v) },
  number: { type: 'float_type', msg: 'Input should be a valid number', accepts: (v) => typeof v === 'number' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean', accepts: (v) => typeof v === 'boolean' },
  object: { type: 'dict_type', msg: 'Input should be a valid dictionary', accepts: isPlainObject },
  array: { type: 'list_type', msg: 'Input should be a valid list', accepts: Array.isArray },
};

/** Every type error of the kickoff's inputs against the crew's declared types (inputs left out are not checked here). */
export function inputTypeErrors(inputs: Record<string, unknown>, details: Record<string, InputDetails> | undefined): PydanticError[] {
  const errors: PydanticError[] = [];
  for (const [name, detail] of Object.entries(details ?? {})) {
    const value = inputs[name];
    if (value === undefined || value === null || detail.type === undefined) {
      continue;
    }
    const loc = ['body', 'inputs', name];
    const expected = EXPECTED[detail.type];
    if (!expected.accepts(value)) {
      errors.push({ type: expected.type, loc, msg: expected.msg, input: value });
      continue;
    }
    if (detail.type === 'object' && detail.fields && isPlainObject(value)) {
      for (const [field, type] of Object.entries(detail.fields)) {
        if (value[field] === undefined) {
          errors.push({ type: 'missing', loc: [...loc, field], msg: 'Field required', input: value });
        } else if (!EXPECTED[type].accepts(value[field])) {
          errors.push({ type: EXPECTED[type].type, loc: [...loc, field], msg: EXPECTED[type].msg, input: value[field] });
        }
      }
    }
  }
  return errors;
}

/** The JSON Schema of one declared input, as Pydantic's `model_json_schema()` writes it. */
export function inputSchema(detail: InputDetails | undefined): Record<string, unknown> {
  const type = detail?.type ?? 'string';
  if (type === 'object' && detail?.fields) {
    return {
      type,
      properties: Object.fromEntries(Object.entries(detail.fields).map(([field, fieldType]) => [field, { type: fieldType, title: field }])),
      required: Object.keys(detail.fields),
    };
  }
  return { type };
}
