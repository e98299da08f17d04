// What a pasted token may look like. Pure, so the rules are unit-tested.

export type TokenKind = 'organization' | 'user';

export type TokenCheck = { ok: true; token: string } | { ok: false; problem: 'empty' | 'whitespace' | 'tooLong' | 'control' | 'nonAscii' };

const MAX_TOKEN_LENGTH = 4096;

/** Accepts a token as pasted: trims it and drops a leading "Bearer " copied along with it. */
export function checkToken(input: string): TokenCheck {
  // "Bearer" alone (the prefix copied without its token) is no token either.
  const token = input.trim().replace(/^bearer(\s+|$)/i, '');
  if (!token) {
    return { ok: false, problem: 'empty' };
  }
  if (token.length > MAX_TOKEN_LENGTH) {
    return { ok: false, problem: 'tooLong' };
  }
  if (/[\u0000-\u001f\u007f]/.test(token.replace(/\s/g, ''))) {
    return { ok: false, problem: 'control' };
  }
  // A header value is ASCII: a token with other characters (a lookalike letter, a bidi mark) can never be sent.
  if (/[^\x21-\x7e]/.test(token.replace(/\s/g, ''))) {
    return { ok: false, problem: 'nonAscii' };
  }
  if (/\s/.test(token)) {
    return { ok: false, problem: 'whitespace' };
  }
  return { ok: true, token };
}
