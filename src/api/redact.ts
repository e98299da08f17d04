// A token a server echoes back is taken out of the whole reply before anything reads, cuts, stores or shows it,
// in every common spelling: as is, HTML entities (named, decimal, hex), JSON and Python escapes (\", \', \\,
// \/, \uXXXX, \xXX), percent-encoding, and one of those over another (a debug page's HTML of a Python repr,
// JSON inside JSON). Spellings are decoded, not generated, so every way of writing each character is caught.
// A token is also found with characters between its own that the text surfaces strip (control characters, bidi
// marks: a UTF-16 body read as UTF-8, `\u0000` escapes): stripped later, they would leave it whole.
import { HAS_CONTROLS, isStrippedControl, stripControls } from '../util/inertText';
import type { HttpResponse } from './transportTypes';

export const REDACTED = '***';

/** Encodings over encodings: an HTML page of a JSON dump of a repr is three. */
const MAX_LAYERS = 3;

/** The three kinds of escape: HTML character references, backslash escapes, percent escapes. */
const HTML = /&#[xX][0-9a-fA-F]{1,6};?|&#[0-9]{1,7};?|&[A-Za-z]{2,13};/g;
const BACKSLASH = /\\(?:u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{1,3}|[^])/g;
const PERCENT = /%[0-9a-fA-F]{2}/g;
/** All three in one pass: enough for a token without `&`, backslash or `%` of its own (any RFC 6750 bearer token). */
const ANY = new RegExp([HTML, BACKSLASH, PERCENT].map((r) => r.source).join('|'), 'g');

/** HTML's names for ASCII characters (the ones encoders write, and HTML5's for the rest of ASCII punctuation). */
const NAMED: Record<string, string> = {
  amp: '&', AMP: '&', lt: '<', LT: '<', gt: '>', GT: '>', quot: '"', QUOT: '"', apos: "'",
  excl: '!', num: '#', dollar: '$', percnt: '%', lpar: '(', rpar: ')', ast: '*', midast: '*', plus: '+', comma: ',',
  period: '.', sol: '/', colon: ':', semi: ';', equals: '=', quest: '?', commat: '@', lsqb: '[', lbrack: '[',
  bsol: '\\', rsqb: ']', rbrack: ']', Hat: '^', lowbar: '_', UnderBar: '_', grave: '`', lcub: '{', lbrace: '{',
  verbar: '|', vert: '|', VerticalLine: '|', rcub: '}', rbrace: '}',
};

/** What `\n`-style escapes stand for in JSON, JavaScript and Python. */
const SINGLE: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', a: '\x07' };

/** Never let a token reach a message, even when a server echoes it back. */
export function redact(text: string, token: string): string {
  if (!token || !text) {
    return text;
  }
  let out = text.includes(token) ? text.split(token).join(REDACTED) : text;
  if (HAS_CONTROLS.test(out)) {
    out = replaceSpans(out, tokenSpans(out, token));
  }
  if (!/[&\\%]/.test(out)) {
    return out;
  }
  // An encoded token is a run of letters, digits, its own characters and escape syntax, at least as long as the
  // token (no escape is shorter than its character): only such runs holding an escape are decoded.
  const inRun = new Set([...token, '&', '#', ';', '\\', '%', '{', '}']);
  const pieces: string[] = [];
  let done = 0;
  let start = 0;
  for (let i = 0; i <= out.length; i++) {
    if (i < out.length && (isAlphanumeric(out.charCodeAt(i)) || inRun.has(out[i]) || isStrippedControl(out.charCodeAt(i)))) {
      continue;
    }
    if (i - start >= token.length) {
      const segment = out.slice(start, i);
      if (/[&\\%]/.test(segment)) {
        pieces.push(out.slice(done, start), redactDecoded(segment, token));
        done = i;
      }
    }
    start = i + 1;
  }
  return done === 0 ? out : pieces.join('') + out.slice(done);
}

const isAlphanumeric = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/** The segment with every decoded occurrence of the token (after one to MAX_LAYERS decodings, in any order) replaced. */
function redactDecoded(segment: string, token: string): string {
  const spans: [number, number][] = [];
  // from[i]: where character i of `text` starts in `segment`; from[text.length] is segment.length.
  // A token holding an escape character of its own is decoded one kind at a time: an HTML page leaves its `%` as is.
  const kinds = /[&\\%]/.test(token) ? [HTML, BACKSLASH, PERCENT] : [ANY];
  const visit = (text: string, from: Uint32Array | undefined, layer: number) => {
    for (const escape of kinds) {
      const decoded = decodeOnce(text, escape);
      if (!decoded || decoded.text.length < token.length) {
        continue;
      }
      const map = from ? decoded.from.map((i) => from[i]) : decoded.from;
      for (const [start, end] of tokenSpans(decoded.text, token)) {
        spans.push([map[start], map[end]]);
      }
      if (layer + 1 < MAX_LAYERS) {
        visit(decoded.text, map, layer + 1);
      }
    }
  };
  visit(segment, undefined, 0);
  return replaceSpans(segment, spans);
}

/** `text` with each span (start, end), in any order, overlapping or not, replaced by REDACTED. */
function replaceSpans(text: string, spans: [number, number][]): string {
  if (!spans.length) {
    return text;
  }
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let done = 0;
  for (const [start, end] of spans) {
    if (end <= done) {
      continue; // Found again in a later layer.
    }
    out += start >= done ? `${text.slice(done, start)}${REDACTED}` : '';
    done = end;
  }
  return out + text.slice(done);
}

/** Where the token is in `text`, also with characters stripControls removes between its own: [start, end) spans. */
function tokenSpans(text: string, token: string): [number, number][] {
  const spans: [number, number][] = [];
  if (!HAS_CONTROLS.test(text)) {
    for (let at = text.indexOf(token); at !== -1; at = text.indexOf(token, at + token.length)) {
      spans.push([at, at + token.length]);
    }
    return spans;
  }
  // The text as a surface shows it once stripped, and where each of its characters came from.
  const shown = stripControls(text);
  const from = new Uint32Array(shown.length + 1);
  for (let i = 0, k = 0; i < text.length; i++) {
    if (!isStrippedControl(text.charCodeAt(i))) {
      from[k++] = i;
    }
  }
  for (let at = shown.indexOf(token); at !== -1; at = shown.indexOf(token, at + token.length)) {
    spans.push([from[at], from[at + token.length - 1] + 1]);
  }
  return spans;
}

/** One layer of escapes decoded, with where each decoded character came from; undefined when there is none. */
function decodeOnce(text: string, escape: RegExp): { text: string; from: Uint32Array } | undefined {
  escape.lastIndex = 0;
  let match = escape.exec(text);
  if (!match) {
    return undefined;
  }
  const from = new Uint32Array(text.length + 1);
  let out = '';
  let done = 0;
  for (; match; match = escape.exec(text)) {
    const value = unescape(match[0]);
    if (value === undefined) {
      continue;
    }
    for (let i = done; i < match.index; i++) {
      from[out.length + i - done] = i;
    }
    out += text.slice(done, match.index);
    for (let i = 0; i < value.length; i++) {
      from[out.length + i] = match.index;
    }
    out += value;
    done = match.index + match[0].length;
  }
  if (done === 0) {
    return undefined;
  }
  for (let i = done; i <= text.length; i++) {
    from[out.length + i - done] = i;
  }
  out += text.slice(done);
  return { text: out, from: from.subarray(0, out.length + 1) };
}

/** The character an escape stands for; undefined for a name or a code point that is none. */
function unescape(escape: string): string | undefined {
  const number = (digits: string, radix: number) => {
    const code = parseInt(digits, radix);
    return code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
  };
  const body = escape.replace(/;$/, '');
  if (escape[0] === '%') {
    return number(escape.slice(1), 16);
  }
  if (escape[0] === '&') {
    return /^&#x/i.test(body) ? number(body.slice(3), 16) : body[1] === '#' ? number(body.slice(2), 10) : Object.hasOwn(NAMED, body.slice(1)) ? NAMED[body.slice(1)] : undefined;
  }
  const kind = escape[1];
  if (kind === 'u' && escape.length > 2) {
    return number(escape.slice(2).replace(/[{}]/g, ''), 16);
  }
  if ((kind === 'U' || kind === 'x') && escape.length > 2) {
    return number(escape.slice(2), 16);
  }
  if (/[0-7]/.test(kind)) {
    return number(escape.slice(1), 8);
  }
  return SINGLE[kind] ?? kind;
}

/** The reply with the token out of its body and headers; a body the transport redacted (bodyRedacted) is not redone. */
export function redactResponse(response: HttpResponse, token: string): HttpResponse {
  if (!token) {
    return response;
  }
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    headers[name] = value === undefined ? undefined : redact(value, token);
  }
  return { ...response, headers, bodyText: response.bodyRedacted ? response.bodyText : redact(response.bodyText, token) };
}

/**
 * Redacts text that comes in pieces (a streamed answer, token by token): a token cut over two pieces is caught.
 * What could still be the start of the token is held back until the next piece (or `flush`) settles it.
 */
export class PieceRedactor {
  private held = '';

  constructor(private readonly token: string) {}

  push(piece: string): string {
    if (!this.token) {
      return piece;
    }
    const text = redact(this.held + piece, this.token);
    const keep = heldBack(text, this.token);
    this.held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** The text held back, released at the end of the stream (it did not turn into the token). */
  flush(): string {
    const text = this.held;
    this.held = '';
    return text;
  }
}

/** The length of the longest end of `text` that is a start of `token` (shorter than the token). */
function heldBack(text: string, token: string): number {
  for (let n = Math.min(token.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(token.slice(0, n))) {
      return n;
    }
  }
  return 0;
}
