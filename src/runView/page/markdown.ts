// Markdown rendering for untrusted crew output. Pure (no DOM): unit-tested in Node, bundled into the page.
//
// - No raw HTML (`html: false`): tags in the output are shown as text.
// - Links: only absolute http(s) URLs become links (validateLink); anything else stays text.
//   Every link carries its URL as a title; the page turns clicks into a message to the host.
// - No images: an image would load from the network (and the CSP forbids it anyway).
// - Task lists (`- [ ] item`, `- [x] item`): a box that shows the state and cannot be clicked (a span
//   with role="checkbox", never an <input>).

import MarkdownIt from 'markdown-it';
import { isSafeLink } from './messages';

export function validateLink(url: string): boolean {
  return isSafeLink(url);
}

export function createMarkdown() {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  md.validateLink = validateLink;
  md.disable('image');
  md.core.ruler.after('inline', 'task_lists', (state) => {
    const tokens = state.tokens;
    for (let i = 2; i < tokens.length; i++) {
      const inline = tokens[i];
      const first = inline.children?.[0];
      const match = inline.type === 'inline' && tokens[i - 1].type === 'paragraph_open' && tokens[i - 2].type === 'list_item_open' && first?.type === 'text' ? /^\[([ xX])\]\s+/.exec(first.content) : null;
      if (!match || !first || !inline.children) {
        continue;
      }
      first.content = first.content.slice(match[0].length);
      const box = new state.Token('task_checkbox', 'span', 0);
      box.meta = { checked: match[1] !== ' ' };
      inline.children.unshift(box);
      tokens[i - 2].attrJoin('class', 'task-list-item');
    }
  });
  md.renderer.rules.task_checkbox = (tokens, idx) => {
    const checked = (tokens[idx].meta as { checked: boolean }).checked;
    return `<span class="task-checkbox${checked ? ' checked' : ''}" role="checkbox" aria-checked="${checked}" aria-disabled="true">${checked ? '☑' : '☐'}</span> `;
  };
  const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    const href = String(token.attrGet('href') ?? '');
    if (!validateLink(href)) {
      // Never reached with validateLink in place; kept so a rule change cannot produce a bad link.
      token.attrs = [];
      token.tag = 'span';
    } else {
      token.attrSet('rel', 'noopener noreferrer');
      if (!token.attrGet('title')) {
        token.attrSet('title', href);
      }
    }
    return defaultLinkOpen(tokens, idx, options, env, self);
  };
  const defaultLinkClose = md.renderer.rules.link_close ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_close = (tokens, idx, options, env, self) => {
    // Close what link_open opened (a span when the link was dropped).
    let depth = 0;
    for (let i = idx - 1; i >= 0; i--) {
      if (tokens[i].type === 'link_close') {
        depth++;
      } else if (tokens[i].type === 'link_open') {
        if (depth === 0) {
          tokens[idx].tag = tokens[i].tag;
          break;
        }
        depth--;
      }
    }
    return defaultLinkClose(tokens, idx, options, env, self);
  };
  return md;
}
