// Crew base URLs: the identity a token is stored under, and the only origin it is ever sent to.

export type CrewUrlProblem =
  | 'empty'
  | 'malformed'
  | 'unsupportedScheme'
  | 'credentials'
  | 'queryOrFragment'
  | 'insecureHttp'
  | 'tooLong';

export type CrewUrlResult = { ok: true; url: string } | { ok: false; problem: CrewUrlProblem };

const MAX_URL_LENGTH = 2048;

/**
 * Normalises a crew base URL to `scheme://host[:port][/path]` with no trailing slash, lower-case
 * host and no default port. Tokens are keyed by this string, so two spellings of the same crew
 * share a token and a lookalike URL never does.
 */
export function normaliseCrewUrl(input: string): CrewUrlResult {
  const text = input.trim();
  if (!text) {
    return { ok: false, problem: 'empty' };
  }
  if (text.length > MAX_URL_LENGTH) {
    return { ok: false, problem: 'tooLong' };
  }
  if (/[\s\u0000-\u001f\u007f]/.test(text)) {
    return { ok: false, problem: 'malformed' };
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { ok: false, problem: 'malformed' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, problem: 'unsupportedScheme' };
  }
  if (!parsed.hostname) {
    return { ok: false, problem: 'malformed' };
  }
  if (parsed.username || parsed.password) {
    return { ok: false, problem: 'credentials' };
  }
  // A query or fragment would be dropped or mangled when endpoint paths are appended.
  if (parsed.search || parsed.hash || text.includes('?') || text.includes('#')) {
    return { ok: false, problem: 'queryOrFragment' };
  }
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
    return { ok: false, problem: 'insecureHttp' };
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  return { ok: true, url: `${parsed.protocol}//${parsed.host}${path}` };
}

/** Loopback only: 127.0.0.0/8, ::1 and localhost. Plain http is allowed nowhere else. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1') {
    return true;
  }
  const octets = host.split('.');
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/** A kickoff id as crews send them (UUIDs, ids with `_ . : -`), at most 200 characters: anything else is refused. */
export function isPlausibleKickoffId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/.test(id);
}

/** The endpoint URL below a normalised base URL; path segments are escaped. */
export function endpointUrl(crewUrl: string, ...segments: string[]): string {
  return `${crewUrl}/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
}

/** `https://host:port` of a URL, for messages that must not echo a full path or query. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/** A short name for a crew, defaulted from its host: `my-crew-1a2b.crewai.com` → `my-crew-1a2b`. */
export function defaultCrewName(crewUrl: string): string {
  try {
    const { hostname, pathname } = new URL(crewUrl);
    const lastPathSegment = pathname.split('/').filter(Boolean).pop();
    if (lastPathSegment && isLoopbackHost(hostname)) {
      return titleOfSlug(decodeURIComponent(lastPathSegment));
    }
    const slug = hostname.split('.')[0] || hostname;
    // A hosted crew's host is `<name>-<hash>`: the hash (a word with a digit) is no part of its name.
    return titleOfSlug(isHostedCrew(crewUrl) ? slug.replace(/-(?=[a-z0-9]*\d)[a-z0-9]+$/i, '') : slug);
  } catch {
    return crewUrl;
  }
}

/**
 * A name as a person would write it, as Add Crew suggests one: a slug (`idea-flow`, as the platform names a
 * deployment made from a project folder) becomes `Idea Flow`; a name with spaces stays as it was written.
 */
export function readableName(name: string): string {
  const trimmed = name.trim();
  return /\s/.test(trimmed) ? trimmed : titleOfSlug(trimmed);
}

/** `market-crew` → `Market Crew`: what a person would call it (the name step lets them change it). */
function titleOfSlug(slug: string): string {
  const words = slug.split(/[-_\s]+/).filter(Boolean);
  return words.length ? words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ') : slug;
}

/** A crew on CrewAI's hosted service (`https://<name>-<hash>.crewai.com`), where its Status tab holds URL and tokens. */
export function isHostedCrew(url: string | undefined): boolean {
  try {
    return url !== undefined && /(^|\.)crewai\.com$/i.test(new URL(url).hostname);
  } catch {
    return false;
  }
}
