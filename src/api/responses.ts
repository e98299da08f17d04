// A crew's HTTP answer read: its JSON body, the typed error for a non-2xx answer (in plain words,
// with the server's own, the token redacted), and whether a kickoff id it names is usable.
import { extractErrorMessage, extractMissingInputs } from './bodies';
import { extractInvalidInputs } from './invalidInputs';
import { readJsonBounded, type ReadLimits } from './boundedJson';
import { jsonOfRead } from './jsonBody';
import { CrewApiError, type CrewApiErrorDetails } from './errors';
import { redact } from './redact';
import { parseRetryAfter } from './retry';
import type { HttpResponse } from './transportTypes';
import { isPlausibleKickoffId, originOf } from './url';

/**
 * The body as JSON, read within READ_LIMITS (see boundedJson.ts); undefined when empty or not JSON. A body the
 * transport read on the status reader's thread (HttpResponse.jsonRead) is that value.
 */
export function parseJson(response: HttpResponse, limits?: ReadLimits): unknown {
  if (response.jsonRead) {
    return jsonOfRead(response.jsonRead);
  }
  const text = response.bodyText.trim();
  if (!text) {
    return undefined;
  }
  const read = readJsonBounded(text, limits);
  return read.ok ? read.value : undefined;
}

export function errorForResponse(response: HttpResponse, url: string, token: string): CrewApiError {
  const status = response.status;
  const origin = originOf(url);
  const body = parseJson(response) ?? response.bodyText;
  const serverMessage = (() => {
    const message = extractErrorMessage(body);
    return message ? redact(message, token) : undefined;
  })();
  const said = serverMessage ? `: ${serverMessage}` : '.';
  const details = { status, serverMessage, body, origin };

  if (status >= 300 && status < 400) {
    const target = redirectTarget(response.headers['location'], url);
    return new CrewApiError(
      'refused',
      `The crew at ${origin} answered with a redirect${target}. Redirects are not followed, so that the token is only ever sent to the crew's own URL; check the URL.`,
      { status },
    );
  }
  switch (status) {
    case 401:
      return new CrewApiError('unauthorized', `The crew at ${origin} rejected the token (401).`, details);
    case 403:
      return new CrewApiError(
        'unauthorized',
        `The crew at ${origin} does not allow this with the stored token (403); a User Bearer Token can do less than the organization Bearer Token.`,
        details,
      );
    case 404:
      return new CrewApiError('notFound', `Not found at ${origin} (404)${said}`, details);
    case 422: {
      const missingInputs = extractMissingInputs(body);
      if (missingInputs.length > 0) {
        return new CrewApiError('missingInputs', `The crew needs these inputs: ${missingInputs.join(', ')}.`, { ...details, missingInputs });
      }
      return new CrewApiError('badRequest', `The crew rejected the request (422)${said}`, withInvalidInputs(details, body));
    }
    case 400:
      return new CrewApiError('badRequest', `The crew rejected the request (400)${said}`, withInvalidInputs(details, body));
    case 429:
      return new CrewApiError('rateLimited', `The crew is limiting requests (429)${said}`, {
        ...details,
        retryAfterMs: parseRetryAfter(response.headers['retry-after']),
      });
    default:
      return new CrewApiError('server', `The crew's server failed (${status})${said}`, {
        ...details,
        retryAfterMs: status === 503 ? parseRetryAfter(response.headers['retry-after']) : undefined,
      });
  }
}

/** ` to https://other.example` for a redirect's Location, or '' when it names no usable origin. */
function redirectTarget(location: string | undefined, requestUrl: string): string {
  if (!location) {
    return '';
  }
  try {
    const origin = new URL(location, requestUrl).origin;
    return origin && origin !== 'null' ? ` to ${origin}` : '';
  } catch {
    // A malformed Location is still a redirect, refused like any other.
    return '';
  }
}

/** A kickoff id is stored, shown and put in URLs: one that does not look like an id is refused, not quoted. */
export function plausibleKickoffId(id: string, status: number): string {
  if (!isPlausibleKickoffId(id)) {
    throw new CrewApiError('badResponse', `The crew's reply named a kickoff id Crew Runs cannot use (${id.length} characters, or characters an id does not have).`, { status });
  }
  return id;
}

/** A 400/422 that names inputs with a wrong value carries them, so Kick Off can ask for only those again. */
function withInvalidInputs(details: CrewApiErrorDetails, body: unknown): CrewApiErrorDetails {
  const invalidInputs = extractInvalidInputs(body);
  return invalidInputs.length > 0 ? { ...details, invalidInputs } : details;
}
