// Entry of dist/crewFiles.js (esbuild.js, lazyModules): counting the crews of a settings file needs a JSON
// with comments parser (jsonc-parser, ~10 KB), only in untrusted workspaces (crewRegistry.ts), so activation
// does not carry it.
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
