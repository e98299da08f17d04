// Counting the crews of a settings file (JSON with comments, hence jsonc-parser): an untrusted window tells the
// user that crews are hidden (crewRegistry.ts).
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { isPlainObject } from '../util/objects';

/**
 * How many crews a settings file (JSON with comments) defines under `crewRuns.crews`, also inside a
 * .code-workspace file's "settings". Only counted, never used: see CrewRegistry.
 */
export function countCrewEntries(text: string): number {
  const errors: ParseError[] = [];
  const parsed: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const settings = isPlainObject(parsed) ? (isPlainObject(parsed['settings']) ? parsed['settings'] : parsed) : {};
  const crews = settings['crewRuns.crews'];
  if (Array.isArray(crews)) {
    return crews.length;
  }
  // Unreadable: say something is there if the key appears at all.
  return errors.length > 0 && text.includes('"crewRuns.crews"') ? 1 : 0;
}
