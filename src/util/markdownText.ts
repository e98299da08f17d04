// The one Markdown escaper: untrusted text (crew, task and run names, server words) inside Markdown we
// compose (tree tooltips, comment threads, chat). Pure: no `vscode` here.
import { inert, inertLine } from './inertText';

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

/** Every ASCII punctuation character: CommonMark (and VS Code's marked) show each one backslash-escaped as itself. */
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;

/**
 * Untrusted text (crew, server or user words) as Markdown that renders as exactly that text, line for line: no link
 * of any scheme (`<command:…>` autolinks, bare URLs, `www.`, e-mail addresses, `[x](y)`), no image, HTML, entity,
 * heading, list or code block, no theme icon, no bidi trick. VS Code's `appendText` is not enough: it leaves `<`,
 * `:`, `.`, `@` and `&` as they are, and turns `>` into `\>`, which an autolink takes as its last character.
 */
export function markdownText(text: string): string {
  return inert(text)
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(ASCII_PUNCTUATION, '\\$&').replace(/^[ \t]+/, (space) => '&nbsp;'.repeat(space.length)))
    .join('\\\n'); // A hard line break: a line of the text stays a line, inside a list item too.
}

/** Untrusted text as Markdown on one line (line breaks and tabs become spaces), as markdownText shows it. */
export function markdownLine(text: string): string {
  return markdownText(inertLine(text));
}
