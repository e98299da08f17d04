// The one Markdown escaper: untrusted text (crew, task and run names, server words) inside Markdown we
// compose (tree tooltips, comment threads, chat). Pure: no `vscode` here.

/**
 * Every character that could format, link or embed, backslash-escaped so it shows as itself: emphasis,
 * code, links and images, headings, lists, tables, raw HTML and `<https://…>` autolinks (`<`, `:`), and
 * `www.` autolinks (`.`). Make the text inert first (inertText.ts) where it goes on one line.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~:]/g, '\\$&');
}

/** A backtick fence longer than any run of backticks in `text`, so the text cannot close it. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) {
    longest = Math.max(longest, match[0].length);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}
