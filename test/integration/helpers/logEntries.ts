// Reading an extension host log as entries, not lines: an entry is a timestamped line and the lines
// that continue it (a stack, a multi-line message). Pure, so that unit tests can read samples.

/** `2026-11-23 01:03:02.370 [error] …` */
const ENTRY_START = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[/;

export interface LogEntry {
  /** 1-based line of the entry's first line. */
  line: number;
  text: string;
}

export function logEntries(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  text.split('\n').forEach((line, i) => {
    const last = entries.at(-1);
    if (ENTRY_START.test(line) || !last) {
      entries.push({ line: i + 1, text: line });
    } else {
      last.text += `\n${line}`;
    }
  });
  return entries;
}

/**
 * Entries that are errors or unhandled rejections and name the extension (`marks`: its id, its
 * bundle's path) in their own text. A neighbouring entry naming it does not make VS Code's own
 * error ours (found in CI: a workspace storage lock error followed by the extension's activation).
 */
export function extensionProblems(text: string, marks: string[]): LogEntry[] {
  return logEntries(text).filter(
    (entry) => (/^\S+ \S+ \[error\]/.test(entry.text) || /rejected promise not handled|unhandled/i.test(entry.text)) && marks.some((mark) => entry.text.includes(mark)),
  );
}
