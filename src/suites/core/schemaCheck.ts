// JSON Schema checks with ajv (draft-07 and its keywords; `format` not checked). A schema's `pattern`s run through
// the same guards as pattern checks (./pattern.ts): refused by shape when compiled, stopped by the timeout when run.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import * as l10n from '@vscode/l10n';
import { patternProblem, PatternRunner } from './pattern';
import { SUITE_LIMITS } from './limits';

/** Compiled schemas by their JSON text: the same schema in 10,000 cases compiles once. */
const compiled = new Map<string, ValidateFunction | { error: string }>();
const COMPILED_KEPT = 200;
const patterns = new PatternRunner();

class PatternStopped extends Error {}

let ajv: Ajv | undefined;

function validator(): Ajv {
  ajv ??= new Ajv({
    strict: false,
    allErrors: false,
    validateFormats: false,
    logger: false,
    // Each check's schema stands alone: two cases may give different schemas the same $id.
    addUsedSchema: false,
    code: {
      regExp: Object.assign(
        (source: string, flags: string) => {
          const problem = patternProblem(source, flags);
          if (problem) {
            throw new Error(problem);
          }
          return {
            test(input: string): boolean {
              const result = patterns.test({ kind: 'pattern', source, flags }, input);
              if ('error' in result) {
                throw new PatternStopped(result.error);
              }
              return result.matched;
            },
          };
        },
        { code: 'new RegExp' },
      ),
    },
  });
  return ajv;
}

/** Compiles a schema (cached); a schema that is too large or that the validator refuses gives its reason. */
export function compileSchema(schema: unknown): ValidateFunction | { error: string } {
  let text: string;
  try {
    text = JSON.stringify(schema) ?? 'null';
  } catch {
    return { error: l10n.t('The schema is not JSON.') };
  }
  if (text.length > SUITE_LIMITS.schemaChars) {
    return { error: l10n.t('The schema is larger than {0} KB.', SUITE_LIMITS.schemaChars / 1024) };
  }
  let found = compiled.get(text);
  if (!found) {
    try {
      found = validator().compile(typeof schema === 'boolean' ? schema : (schema as object));
    } catch (error) {
      found = { error: l10n.t('The schema cannot be used: {0}', error instanceof Error ? error.message : String(error)) };
    }
    if (compiled.size >= COMPILED_KEPT) {
      compiled.clear();
      validator().removeSchema(); // ajv's own cache of compiled schemas too, or it grows for as long as the host runs
    }
    compiled.set(text, found);
  }
  return found;
}

export type SchemaVerdict = { valid: true } | { valid: false; message: string } | { error: string };

/** Validates a JSON value against a schema; the first few errors in words. */
export function validateAgainstSchema(schema: unknown, value: unknown): SchemaVerdict {
  const validate = compileSchema(schema);
  if (!(validate instanceof Function)) {
    return validate;
  }
  try {
    if (validate(value)) {
      return { valid: true };
    }
  } catch (error) {
    return { error: error instanceof PatternStopped ? error.message : l10n.t('The schema could not be checked: {0}', String(error)) };
  }
  return { valid: false, message: errorsText(validate.errors ?? []) };
}

function errorsText(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim())
    .join('; ');
}
