// Whether a text is one JSON value as JSON.parse takes it, found without building it or throwing: in V8 a
// JSON.parse that throws costs about 5 µs, and a table of millions of invalid lines must not cost one each
// (19.9 MB of them: 75 s). Strict JSON (RFC 8259), unlike jsonc-parser, which takes comments, trailing commas and
// other spaces. Iterative: any depth. Pure.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const isDigit = (c: number) => c >= ZERO && c <= NINE;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
/** The escapes after a backslash: " \ / b f n r t (u is read apart). */
const ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

function skipSpace(text: string, i: number, end: number): number {
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      return i;
    }
  }
  return i;
}

/** Past the string that starts at `i` (its quote), or -1. */
function skipString(text: string, i: number, end: number): number {
  for (i++; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      return i + 1;
    }
    if (c < 0x20) {
      return -1;
    }
    if (c === BACKSLASH) {
      const e = i + 1 < end ? text.charCodeAt(i + 1) : -1;
      if (e === 0x75) {
        if (i + 5 >= end || !isHex(text.charCodeAt(i + 2)) || !isHex(text.charCodeAt(i + 3)) || !isHex(text.charCodeAt(i + 4)) || !isHex(text.charCodeAt(i + 5))) {
          return -1;
        }
        i += 5;
      } else if (ESCAPES.has(e)) {
        i++;
      } else {
        return -1;
      }
    }
  }
  return -1;
}

function skipDigits(text: string, i: number, end: number): number {
  while (i < end && isDigit(text.charCodeAt(i))) {
    i++;
  }
  return i;
}

/** Past the number that starts at `i`, or -1. */
function skipNumber(text: string, i: number, end: number): number {
  if (text.charCodeAt(i) === MINUS) {
    i++;
  }
  if (i >= end || !isDigit(text.charCodeAt(i))) {
    return -1;
  }
  i = text.charCodeAt(i) === ZERO ? i + 1 : skipDigits(text, i, end);
  if (i < end && text.charCodeAt(i) === DOT) {
    const from = i + 1;
    i = skipDigits(text, from, end);
    if (i === from) {
      return -1;
    }
  }
  const c = i < end ? text.charCodeAt(i) : -1;
  if (c === 0x65 || c === 0x45) {
    i++;
    if (i < end && (text.charCodeAt(i) === PLUS || text.charCodeAt(i) === MINUS)) {
      i++;
    }
    const from = i;
    i = skipDigits(text, from, end);
    if (i === from) {
      return -1;
    }
  }
  return i;
}

function skipWord(text: string, i: number, end: number, word: string): number {
  return i + word.length <= end && text.startsWith(word, i) ? i + word.length : -1;
}

/** Past an object's key and its colon (from the key's quote, spaces before it skipped), or -1. */
function skipKey(text: string, i: number, end: number): number {
  if (i >= end || text.charCodeAt(i) !== QUOTE) {
    return -1;
  }
  const after = skipString(text, i, end);
  if (after < 0) {
    return -1;
  }
  i = skipSpace(text, after, end);
  return i < end && text.charCodeAt(i) === COLON ? i + 1 : -1;
}

/** Whether `text` from `start` to `end` is exactly one JSON value (spaces around it allowed), as JSON.parse takes it. */
export function isJsonText(text: string, start = 0, end = text.length): boolean {
  // Open containers, innermost last: 1 an object, 0 an array.
  let open = new Uint8Array(64);
  let depth = 0;
  let i = start;
  for (;;) {
    // A value.
    i = skipSpace(text, i, end);
    if (i >= end) {
      return false;
    }
    const c = text.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === open.length) {
        const wider = new Uint8Array(depth * 2);
        wider.set(open);
        open = wider;
      }
      open[depth++] = c === OPEN_BRACE ? 1 : 0;
      i = skipSpace(text, i + 1, end);
      if (i < end && text.charCodeAt(i) === (c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) {
        depth--;
        i++;
      } else {
        if (c === OPEN_BRACE && (i = skipKey(text, i, end)) < 0) {
          return false;
        }
        continue;
      }
    } else if (c === QUOTE) {
      i = skipString(text, i, end);
    } else if (c === MINUS || isDigit(c)) {
      i = skipNumber(text, i, end);
    } else {
      i = c === 0x74 ? skipWord(text, i, end, 'true') : c === 0x66 ? skipWord(text, i, end, 'false') : c === 0x6e ? skipWord(text, i, end, 'null') : -1;
    }
    if (i < 0) {
      return false;
    }
    // After a value: a comma, the end of its container, or the end of the text.
    for (;;) {
      i = skipSpace(text, i, end);
      if (depth === 0) {
        return i === end;
      }
      if (i >= end) {
        return false;
      }
      const next = text.charCodeAt(i);
      const inObject = open[depth - 1] === 1;
      if (next === (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        depth--;
        i++;
        continue;
      }
      if (next !== COMMA) {
        return false;
      }
      i++;
      if (inObject && (i = skipKey(text, skipSpace(text, i, end), end)) < 0) {
        return false;
      }
      break;
    }
  }
}
