// A token a server echoes back is taken out of the whole reply before anything reads, cuts, stores or shows it.
import type { HttpResponse } from './transportTypes';

export const REDACTED = '***';

/** The spellings of a token a reply may carry it in: as is, JSON-escaped (`"` and `\`), URL-encoded. */
function forms(token: string): string[] {
  return [...new Set([token, JSON.stringify(token).slice(1, -1), encodeURIComponent(token)])].sort((a, b) => b.length - a.length);
}

/** Never let a token reach a message, even when a server echoes it back. */
export function redact(text: string, token: string): string {
  if (!token) {
    return text;
  }
  let out = text;
  for (const form of forms(token)) {
    if (out.includes(form)) {
      out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/**
 * The reply with the token out of its body and headers. A JSON body may also spell the token with escapes of
 * its own choosing (`\u0041`, `\/`): when it has any of those (the only escapes JSON.stringify would not write
 * the same way), the parsed value is checked in that canonical spelling and, if it holds the token, the body is
 * rewritten redacted. Other escapes (`\n`, `\"`) are already canonical, so most bodies are not parsed twice.
 */
export function redactResponse(response: HttpResponse, token: string): HttpResponse {
  if (!token) {
    return response;
  }
  let bodyText = redact(response.bodyText, token);
  if (/\\[u/]/.test(bodyText)) {
    try {
      const text = JSON.stringify(JSON.parse(bodyText));
      const redacted = redact(text, token);
      if (redacted !== text) {
        bodyText = redacted;
      }
    } catch {
      // Not JSON: read as text, where a backslash escapes nothing.
    }
  }
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    headers[name] = value === undefined ? undefined : redact(value, token);
  }
  return { ...response, headers, bodyText };
}
