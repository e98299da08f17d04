// What a tree row can show at the default sidebar width (300 px), as VS Code draws it: the label, then the
// description in a smaller font; the row's inline action icons take room from the right while it is selected
// or under the pointer, and what no longer fits is cut from the end. Pure: no vscode.

/**
 * Advances in pixels of the printable ASCII characters (space to `~`) in the workbench's 13 px sans-serif
 * (DejaVu Sans, measured in the integration tests' page: treeLabels.test.ts). It is among the widest of the
 * fonts VS Code uses (Segoe UI, SF, Ubuntu draw narrower), so a row that fits here fits elsewhere too.
 */
const ASCII_PX = [
  4.13, 5.21, 5.98, 10.89, 8.27, 12.35, 10.14, 3.57, 5.07, 5.07, 6.5, 10.89, 4.13, 4.69, 4.13, 4.38, // space to /
  8.27, 8.27, 8.27, 8.27, 8.27, 8.27, 8.27, 8.27, 8.27, 8.27, 4.38, 4.38, 10.89, 10.89, 10.89, 6.9, 13, // 0 to @
  8.89, 8.92, 9.08, 10.01, 8.21, 7.48, 10.07, 9.78, 3.83, 3.83, 8.52, 7.24, 11.22, 9.72, 10.23, 7.84, 10.23, 9.03, 8.25, 7.94, 9.52, 8.89, 12.85, 8.91, 7.94, 8.91, // A to Z
  5.07, 4.38, 5.07, 10.89, 6.5, 6.5, // [ to `
  7.97, 8.25, 7.15, 8.25, 8, 4.58, 8.25, 8.24, 3.61, 3.61, 7.53, 3.61, 12.66, 8.24, 7.95, 8.25, 8.25, 5.34, 6.77, 5.1, 8.24, 7.69, 10.63, 7.69, 7.69, 6.82, // a to z
  8.27, 4.38, 8.27, 10.89, // { to ~
];

/** Characters other than ASCII: ours, then a generous guess (wide scripts and emoji take a full em or more). */
function otherPx(code: number): number {
  if (code === 0x2026 || code === 0x2014) {
    return 13; // … —
  }
  if (code === 0xb7) {
    return 4.13; // ·
  }
  return code < 0x1100 ? 10 : code < 0x1f000 ? 13 : 16;
}

/** The width of `text` in pixels in the tree's label font (scale 0.9: its description's). */
export function textWidth(text: string, scale = 1): number {
  let px = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    px += code >= 0x20 && code <= 0x7e ? ASCII_PX[code - 0x20] : otherPx(code);
  }
  return px * scale;
}

/** Width of a run row's label and description together (depth 2, no icons showing), measured in the page. */
const ROW_PX = 217;
/** Each level of depth indents a row this much. */
const INDENT_PX = 8;
/** An inline action icon. */
const ACTION_PX = 20;
/** The description: its font's size relative to the label's, and its margin. */
const DESCRIPTION_SCALE = 0.9;
const DESCRIPTION_GAP_PX = 6;
/** Left free: the measurements round to a pixel. */
const SLACK_PX = 1;
const ELLIPSIS = '…';

export interface RowParts {
  /** The row's name: cut (with an ellipsis) when it must give way. */
  name: string;
  /** What ends the label whatever the cut, as " #2". */
  nameEnd?: string;
  /** Leads the description and is never given up. */
  state: string;
  /** What may follow the state (" · 5 min ago"), in order: each only when the whole name still fits with it. */
  suffixes?: readonly string[];
}

export interface RowPlace {
  /** Inline action icons the row shows while selected or under the pointer. */
  actions?: number;
  /** 1 for a view's top rows, 2 for their children. */
  depth?: number;
  /** The name keeps at least this many characters (3 unless said), even where the state then is cut. */
  minName?: number;
}

/**
 * A row's label and description such that VS Code cuts nothing of them at the default width, icons showing:
 * the state stays whole, then the name, then the suffixes, which go (to the tooltip) before the name is cut.
 */
export function fitRow(parts: RowParts, place: RowPlace = {}): { label: string; description: string } {
  const room = ROW_PX + INDENT_PX * (2 - (place.depth ?? 2)) - ACTION_PX * (place.actions ?? 0) - SLACK_PX;
  const end = parts.nameEnd ?? '';
  const descriptionPx = (text: string) => (text ? DESCRIPTION_GAP_PX + textWidth(text, DESCRIPTION_SCALE) : 0);
  const namePx = textWidth(parts.name + end);
  let description = parts.state;
  for (const suffix of parts.suffixes ?? []) {
    if (namePx + descriptionPx(description + suffix) > room) {
      break;
    }
    description += suffix;
  }
  const name = cutToWidth(parts.name, room - descriptionPx(description) - textWidth(end), place.minName ?? 3);
  return { label: name + end, description };
}

/** `text` as it fits in `px` (ending in an ellipsis when cut), never under `min` characters. */
export function cutToWidth(text: string, px: number, min = 0): string {
  if (textWidth(text) <= px) {
    return text;
  }
  const chars = [...text];
  const room = px - textWidth(ELLIPSIS);
  let used = 0;
  let kept = 0;
  while (kept < chars.length && (kept < min || used + textWidth(chars[kept]) <= room)) {
    used += textWidth(chars[kept]);
    kept++;
  }
  return kept >= chars.length ? text : `${chars.slice(0, kept).join('').trimEnd()}${ELLIPSIS}`;
}
