// One error type for every way a call to a crew can fail, with a kind the UI can act on.

import type { InvalidInput } from './invalidInputs';
import type { CrewUrlProblem } from './url';

export type CrewApiErrorKind =
  | 'unauthorized'
  /** No token is stored for the crew: nothing was sent (not the same as a token the crew rejected). */
  | 'noToken'
  | 'notFound'
  | 'missingInputs'
  | 'badRequest'
  | 'rateLimited'
  | 'server'
  | 'network'
  | 'timeout'
  | 'badResponse'
  /** Refused before sending: insecure URL, redirect to elsewhere, body too large. */
  | 'refused';

export interface CrewApiErrorDetails {
  status?: number;
  /** Names of missing inputs (422), from either body family. */
  missingInputs?: string[];
  /** Inputs the crew refused for their value (400/422 that explains a type), with its words. */
  invalidInputs?: InvalidInput[];
  /** Milliseconds to wait before trying again (429/503 Retry-After). */
  retryAfterMs?: number;
  /** The server's own words, already stripped of anything secret. */
  serverMessage?: string;
  /** The parsed error body (token redacted), for callers that read more from it. */
  body?: unknown;
  /** Origin of the crew that answered (advice for the hosted service is only given to hosted crews). */
  origin?: string;
  /** The connection failed before the request was written (refused, no such host): the crew got nothing. */
  notSent?: boolean;
  /** Refused before sending because the crew URL is not usable (ui/errorMessages.ts words it). */
  urlProblem?: CrewUrlProblem;
}

/** Marks a CrewApiError of any copy of this module: the lazy bundles (esbuild.js) each carry one. */
const CREW_API_ERROR = Symbol.for('crewRuns.CrewApiError');

export class CrewApiError extends Error {
  /** One made by another bundle's copy of this class is one too: the client that throws is in the main bundle. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CREW_API_ERROR] === true;
  }

  readonly [CREW_API_ERROR] = true;
  readonly kind: CrewApiErrorKind;
  readonly status?: number;
  readonly missingInputs?: string[];
  readonly invalidInputs?: InvalidInput[];
  readonly retryAfterMs?: number;
  readonly serverMessage?: string;
  readonly body?: unknown;
  readonly origin?: string;
  readonly notSent: boolean;
  readonly urlProblem?: CrewUrlProblem;

  constructor(kind: CrewApiErrorKind, message: string, details: CrewApiErrorDetails = {}) {
    super(message);
    this.name = 'CrewApiError';
    this.kind = kind;
    this.status = details.status;
    this.missingInputs = details.missingInputs;
    this.invalidInputs = details.invalidInputs;
    this.retryAfterMs = details.retryAfterMs;
    this.serverMessage = details.serverMessage;
    this.body = details.body;
    this.origin = details.origin;
    this.notSent = details.notSent === true;
    this.urlProblem = details.urlProblem;
  }

  /** Worth trying a read again later (never used for kickoff or resume). */
  get transient(): boolean {
    return (
      this.kind === 'network' ||
      this.kind === 'timeout' ||
      this.kind === 'rateLimited' ||
      (this.kind === 'server' && (this.status === 502 || this.status === 503 || this.status === 504))
    );
  }
}

export function isCrewApiError(e: unknown): e is CrewApiError {
  return e instanceof CrewApiError;
}

/**
 * After a kickoff or a resume was sent: could the crew have acted on it? Only a clear refusal says no. A
 * network fault, a time-out, a 5xx, a 2xx the client could not read, or a request cancelled after it left
 * may all hide a run that started, so such a request is never sent again by itself nor offered as a retry.
 */
export function mayHaveActed(error: unknown): boolean {
  if (error instanceof CrewApiError) {
    return !error.notSent && (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'server' || error.kind === 'badResponse');
  }
  return error instanceof Error && error.name === 'AbortError';
}
