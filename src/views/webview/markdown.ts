// Markdown rendering for untrusted crew output. Pure (no DOM): unit-tested in Node, bundled into the page.
//
// - No raw HTML (`html: false`): tags in the output are shown as text.
// - Links: only absolute http(s) URLs become links (validateLink); anything else stays text.
//   Every link carries its URL as a title; the page turns clicks into a message to the host.
// - No images: an image would load from the network (and the CSP forbids it anyway).

import MarkdownIt from 'markdown-it';
import { isSafeLink } from './messages';

export function validateLink(url: string): boolean {
  return isSafeLink(url);
}

export function createMarkdown() {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  md.validateLink = validateLink;
  md.disable('image');
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
