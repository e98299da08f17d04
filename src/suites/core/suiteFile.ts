// Reading a suite file (YAML, with the `yaml` package): the suite and every problem at its line and column, the
// rest still usable. Loaded on first use only (it brings `yaml` and `ajv`): never from the main bundle.
import type { ParsedSuite } from './types';

/**
 * Where suites live: files named `*.crew-suite.yaml` (or `.yml`) anywhere in the workspace. The schema
 * (schemas/crew-suite.schema.json) is contributed for the same pattern.
 */
export const SUITE_FILE_GLOB = '**/*.crew-suite.{yaml,yml}';

/** Whether a path (any separator) names a suite file. */
export function isSuiteFileName(path: string): boolean {
  return /\.crew-suite\.ya?ml$/i.test(path);
}

/**
 * Reads a suite file's text. Never throws: a file that is no YAML mapping, or too large, gives an empty suite and
 * the problem; an unknown check type, a wrong type of value, a bad pattern or schema leaves out that check (a case
 * without a usable name or inputs, that case) and says so at its place. `fallbackName` names a suite without `name:`
 * (the file's name, without its extension).
 */
export function parseSuite(text: string, fallbackName: string): ParsedSuite {
  void text;
  void fallbackName;
  throw new Error('parseSuite: not written yet');
}
