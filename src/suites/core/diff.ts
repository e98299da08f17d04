// A short line diff for an `equals` check's message: the lines the two texts share at their start and end are left
// out, the differing middle shown as `-expected` / `+actual` lines, bounded in lines and in line length. Linear in
// the texts (no edit-distance search: a message needs to show where they part, not the least edit).
import { CHECK_LIMITS } from './limits';

/** `@@ line N @@` then up to CHECK_LIMITS.diffLines `-`/`+` lines; empty when the texts are equal. */
export function shortDiff(expected: string, actual: string): string {
  if (expected === actual) {
    return '';
  }
  const a = expected.split('\n');
  const b = actual.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) {
    start++;
  }
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const half = Math.floor(CHECK_LIMITS.diffLines / 2);
  const lines = [`@@ line ${start + 1} @@`];
  const side = (from: string[], end: number, mark: string, room: number): void => {
    const shown = Math.min(end - start, room);
    for (let i = start; i < start + shown; i++) {
      lines.push(mark + clip(from[i]));
    }
    if (end - start > shown) {
      lines.push(`${mark}… ${end - start - shown} more line(s)`);
    }
  };
  const roomA = Math.max(half, CHECK_LIMITS.diffLines - (endB - start));
  side(a, endA, '-', Math.min(roomA, CHECK_LIMITS.diffLines));
  side(b, endB, '+', Math.max(CHECK_LIMITS.diffLines - Math.min(endA - start, roomA), half));
  return lines.join('\n');
}

function clip(line: string): string {
  return line.length > CHECK_LIMITS.diffLineChars ? `${line.slice(0, CHECK_LIMITS.diffLineChars - 1)}…` : line;
}
