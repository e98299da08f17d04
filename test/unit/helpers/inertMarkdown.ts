// Does Markdown we compose show untrusted text as text? Rendered by markdown-it with linkify and raw HTML on:
// stricter than VS Code's hovers and comments, which link less.
import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { WORD_JOINER } from '../../../src/util/inertText';

export const renderer = new MarkdownIt({ html: true, linkify: true });

/** Crew text that links, embeds or formats in one Markdown renderer or another. */
export const HOSTILE = [
  '<command:workbench.action.openSettings>',
  '<https://evil.example/a>',
  'see https://evil.example/b now',
  'www.evil.example',
  'mail me@evil.example',
  'ftp://evil.example/c',
  '[x](command:y)',
  '![i](https://evil.example/i.png)',
  '<a href="command:z">z</a>',
  '&lt;command:q&gt; &amp;',
  '*b* _i_ `c` ~~s~~ $(zap)',
];

/** What a reader sees (formatting would have eaten its marks, so the text would not show as itself) of rendered HTML: its text, entities decoded, the invisible word joiner gone. */
function shownText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;|&#160;|\u00a0/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replaceAll(WORD_JOINER, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function assertInert(markdown: string, texts: readonly string[], where: string): void {
  const html = renderer.render(markdown);
  assert.doesNotMatch(html, /<a[\s>]/, `${where}: a link in ${html}`);
  assert.doesNotMatch(html, /<img[\s>]/, `${where}: an image in ${html}`);
  const shown = shownText(html);
  for (const text of texts) {
    assert.ok(shown.includes(text.replace(/\s+/g, ' ')), `${where}: "${text}" shows as itself in "${shown}"`);
  }
}

