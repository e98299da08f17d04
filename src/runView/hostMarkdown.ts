// The run view's markdown rules (page/markdown.ts) in the extension host, for the Show All segments the
// host renders while the page renders others. markdown-it loads with the first such segment (dist/markdown.js).
import type * as Markdown from './page/markdown';

let markdownIt: ReturnType<typeof Markdown.createMarkdown> | undefined;

export function renderMarkdown(text: string): string {
  markdownIt ??= (require('./page/markdown') as typeof Markdown).createMarkdown();
  return markdownIt.render(text);
}
