// Crew Markdown (and the model's answers, which may quote it) for the chat, rebuilt from a parse rather
// than filtered by patterns: markdown-it with the run view's rules (runView/page/markdown.ts: no HTML, only
// http(s) links; images parsed here so that they can be written as text) reads the text, and the Markdown
// written back holds only the structure we emit (headings, lists, quotes, code, tables, emphasis, http(s)
// links) with every character of the crew's text backslash-escaped. Whatever a renderer would make of the crew's own syntax (titles,
// nested brackets, reference images, `command:` links) is then text. markdown-it is the run view's lazy
// bundle (dist/markdown.js), loaded with the first crew Markdown the chat shows.
import type * as RunViewMarkdown from '../runView/page/markdown';
import { escapeMarkdown } from '../util/markdownText';

type MarkdownIt = ReturnType<typeof RunViewMarkdown.createMarkdown>;
type Token = ReturnType<MarkdownIt['parse']>[number];

let parser: MarkdownIt | undefined;

/** `text` as Markdown whose only links are http(s) and which embeds nothing. */
export function safeCrewMarkdown(text: string): string {
  parser ??= (require('../runView/page/markdown') as typeof RunViewMarkdown).createMarkdown().enable('image');
  return blocks(tree(parser.parse(text, {}))).join('\n');
}

interface Node {
  token: Token;
  children: Node[];
}

/** The flat block stream as a tree of containers (open…close pairs) and leaves. */
function tree(tokens: Token[]): Node[] {
  const root: Node[] = [];
  const stack: Node[][] = [root];
  for (const token of tokens) {
    if (token.nesting === -1) {
      stack.pop();
      continue;
    }
    const node: Node = { token, children: [] };
    stack[stack.length - 1].push(node);
    if (token.nesting === 1) {
      stack.push(node.children);
    }
  }
  return root;
}

/** Lines of a sequence of blocks, a blank line between them unless they are a tight list item's. */
function blocks(nodes: Node[], tight = false): string[] {
  const out: string[] = [];
  for (const node of nodes) {
    const lines = block(node);
    if (lines.length === 0) {
      continue;
    }
    if (out.length > 0 && !tight) {
      out.push('');
    }
    out.push(...lines);
  }
  return out;
}

function block(node: Node): string[] {
  const { token, children } = node;
  switch (token.type) {
    case 'paragraph_open':
      return inline(children).split('\n');
    case 'heading_open':
      return [`${'#'.repeat(Number(token.tag.slice(1)) || 1)} ${inline(children).replace(/\n/g, ' ')}`];
    case 'blockquote_open':
      return blocks(children).map((line) => (line ? `> ${line}` : '>'));
    case 'bullet_list_open':
    case 'ordered_list_open': {
      const ordered = token.type === 'ordered_list_open';
      const tight = children.every((item) => item.children.every((c) => c.token.type !== 'paragraph_open' || c.token.hidden));
      const out: string[] = [];
      children.forEach((item, i) => {
        const marker = ordered ? `${Number(item.token.info) || Number(token.attrGet('start') ?? 1) + i}. ` : '- ';
        const lines = blocks(item.children, tight);
        if (i > 0 && !tight) {
          out.push('');
        }
        out.push(...(lines.length ? lines : ['']).map((line, j) => (j === 0 ? marker : ' '.repeat(marker.length)) + line));
      });
      return out;
    }
    case 'fence':
    case 'code_block': {
      const content = token.content.replace(/\n$/, '');
      const fence = '`'.repeat(Math.max(3, ...[...content.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      const language = /^[\w+-]{1,30}$/.exec(token.info.trim())?.[0] ?? '';
      return [`${fence}${language}`, ...content.split('\n'), fence];
    }
    case 'hr':
      return ['***'];
    case 'table_open':
      return table(node);
    default:
      // Anything else the parser may produce (html_block cannot: html is off): its text, escaped.
      return token.content ? [escapeText(token.content)] : blocks(children);
  }
}

function table(node: Node): string[] {
  const rows = node.children.flatMap((section) => section.children);
  const cells = (row: Node) => row.children.map((cell) => inline(cell.children).replace(/\n/g, ' '));
  const [head, ...body] = rows;
  if (!head) {
    return [];
  }
  const line = (values: string[]) => `| ${values.join(' | ')} |`;
  return [line(cells(head)), line(head.children.map(() => '---')), ...body.map((row) => line(cells(row)))];
}

/** A block's inline content: its text escaped, our own emphasis, code spans and http(s) links. */
function inline(nodes: Node[]): string {
  const children = nodes.flatMap((n) => n.token.children ?? []);
  let out = '';
  let href = '';
  for (const token of children) {
    switch (token.type) {
      case 'text':
        out += escapeText(token.content);
        break;
      case 'code_inline':
        out += codeSpan(token.content);
        break;
      case 'softbreak':
        out += '\n';
        break;
      case 'hardbreak':
        out += '\\\n';
        break;
      case 'strong_open':
      case 'strong_close':
        out += '**';
        break;
      case 'em_open':
      case 'em_close':
        out += '*';
        break;
      case 's_open':
      case 's_close':
        out += '~~';
        break;
      case 'link_open':
        // Only http(s) links get here: the run view's validateLink leaves every other one text.
        href = String(token.attrGet('href') ?? '');
        out += '[';
        break;
      case 'link_close':
        out += `](${linkTarget(href)})`;
        break;
      case 'task_checkbox':
        out += (token.meta as { checked?: boolean } | null)?.checked ? '☑ ' : '☐ ';
        break;
      case 'image':
        // Never fetched: its description and address, as text.
        out += `${escapeText(token.content)} (${escapeText(String(token.attrGet('src') ?? ''))})`;
        break;
      default:
        // Anything else (html_inline cannot come: html is off): its text only.
        out += escapeText(token.content);
    }
  }
  return out;
}

/** Escaped so it shows as itself; `&` too, so no entity turns into a character the parser reads. */
function escapeText(text: string): string {
  return escapeMarkdown(text).replace(/&/g, '\\&');
}

function codeSpan(content: string): string {
  const ticks = '`'.repeat(Math.max(1, ...[...content.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  // A backtick at either end, or a space at both, would be read differently without a space of ours.
  const pad = /^`|`$|^ .* $/.test(content) ? ' ' : '';
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

/** markdown-it's normalised (percent-encoded) http(s) URL, with what could end or bracket a destination encoded too. */
function linkTarget(href: string): string {
  return href.replace(/[\s()<>\\`]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
