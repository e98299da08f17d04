// Makes an untrusted string (from a crew server, a workspace or crew output) inert on VS Code's text surfaces.
//
// What those surfaces interpret (VS Code sources):
// - notifications, input box prompts/validation messages and quick input descriptions parse links with
//   `vs/base/common/linkedText.ts`: `\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^\)\s]+)…\)` — a link only when
//   `]` is directly followed by `(`. Backslashes mean nothing there (it is not Markdown), so `\[x\](…)` stays a
//   link. Bare URLs are not linked.
// - quick pick labels/descriptions/details, status bar text and Markdown tooltips with theme icons render
//   `$(name)` / `$(name~spin)` as icons (`renderLabelWithIcons`: `\$\(` directly followed by the name).
// - every surface shows bidi overrides/isolates, which can make text read differently from what it is.
// One rule serves all of them: a WORD JOINER (U+2060, invisible, zero width, no line break) between `]` and `(` and
// between `$` and `(` breaks both patterns wherever they are parsed, and a backslash escape would show literally on
// the surfaces (tree labels, notifications) that do not parse icons.

/** Zero-width and invisible; breaks `](` and `$(` without changing what the reader sees. */
export const WORD_JOINER = '\u2060';

// Bidi embeddings/overrides/isolates and marks, and C0/C1 controls (tab and line breaks handled apart).
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const LINK_OR_ICON = /([\]$])(?=\()/g;

/** Whether stripControls removes this UTF-16 code unit (CONTROLS, one unit at a time). */
export function isStrippedControl(code: number): boolean {
  return (
    code <= 0x08 || code === 0x0b || code === 0x0c || (code >= 0x0e && code <= 0x1f) || (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)
  );
}

/** Any character stripControls removes. */
export const HAS_CONTROLS = new RegExp(CONTROLS.source);

/** Removes bidi controls and control characters; keeps tabs and line breaks. */
export function stripControls(text: string): string {
  return text.replace(CONTROLS, '');
}

/** Inert text for a notification or any multi-line surface: no link, no icon, no bidi control. */
export function inert(text: string): string {
  return stripControls(text).replace(LINK_OR_ICON, `$1${WORD_JOINER}`);
}

/** Anything inertLine would change: controls (line breaks and tabs among them), bidi marks, `]` or `$`. */
const NEEDS_LINE_WORK = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029\]$]/;

/** Inert text on one line, for labels, descriptions, titles and the status bar. */
export function inertLine(text: string): string {
  // One scan for the usual text that needs nothing (a 50,000-line log calls this 150,000 times).
  if (!NEEDS_LINE_WORK.test(text)) {
    return text;
  }
  return inert(text.replace(/\r\n|[\r\n\t\u2028\u2029]/g, ' '));
}

/** A cell, name, file name or crew output as one inert line, whitespace collapsed, cut to `max` with an ellipsis. */
export function oneLine(text: string, max: number): string {
  // String(): chat tools hand on values a model wrote, which are not always strings.
  const line = inertLine(String(text)).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1)).trimEnd()}…` : line;
}

/** A server's scalar as one inert line: a number's digits, or a string trimmed and cut to `max`; undefined when empty or neither. */
export function inertScalar(value: unknown, max: number): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return String(value);
  }
  if (typeof value !== 'string') {
    return undefined;
  }
  const line = inertLine(value.trim()).slice(0, max);
  return line || undefined;
}
