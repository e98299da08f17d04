import { stripControls } from './inertText';

/** A file name from untrusted text (a crew name, a run label): no path characters, controls or bidi tricks. */
export function safeFileName(name: string): string {
  const cleaned = stripControls(name).replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80);
  return cleaned || 'output';
}

/** A document name that says which run it belongs to, e.g. `AI agents · output.md` (tabs of several runs look alike otherwise). */
export function runDocumentName(runLabel: string, name: string): string {
  return `${safeFileName(runLabel).replace(/ \u00b7 /g, ' - ')} · ${name}`;
}
