// Reading the `crewRuns.crews` setting: pure, so its trust and identity rules are unit-tested.
import { normaliseCrewUrl } from '../api/url';
import { inertLine } from '../util/inertText';
import { isPlainObject } from '../util/objects';

export type CrewSource = 'user' | 'workspace' | 'demo';

export interface Crew {
  /** Normalised base URL: the crew's identity and its token's key. */
  url: string;
  name: string;
  source: CrewSource;
}

export interface CrewSettingEntry {
  name: string;
  url: string;
}

export interface ReadCrewsResult {
  crews: Crew[];
  /** Entries that could not be used, in plain words, for the log. */
  problems: string[];
  /** Workspace crews left out because the workspace is not trusted. */
  hiddenWorkspaceCrews: number;
}

/**
 * Merges user and workspace crews. Crews are identified by URL, never by name: a workspace that
 * reuses a user crew's name with another URL gets a separate crew with no token.
 */
export function readCrews(userValue: unknown, workspaceValue: unknown, workspaceTrusted: boolean): ReadCrewsResult {
  const problems: string[] = [];
  const crews: Crew[] = [];
  const seen = new Set<string>();
  const add = (value: unknown, source: CrewSource) => {
    if (value === undefined || value === null) {
      return;
    }
    if (!Array.isArray(value)) {
      problems.push(`The ${source} setting crewRuns.crews is not a list; it was ignored.`);
      return;
    }
    for (const entry of value) {
      const parsed = parseEntry(entry);
      if (typeof parsed === 'string') {
        problems.push(`A ${source} crew was ignored: ${parsed}`);
        continue;
      }
      if (seen.has(parsed.url)) {
        continue;
      }
      seen.add(parsed.url);
      crews.push({ ...parsed, source });
    }
  };
  add(userValue, 'user');
  let hiddenWorkspaceCrews = 0;
  if (workspaceTrusted) {
    add(workspaceValue, 'workspace');
  } else if (Array.isArray(workspaceValue)) {
    hiddenWorkspaceCrews = workspaceValue.length;
  }
  return { crews, problems, hiddenWorkspaceCrews };
}

function parseEntry(entry: unknown): { name: string; url: string } | string {
  if (!isPlainObject(entry)) {
    return 'an entry is not an object with name and url.';
  }
  const { name, url } = entry;
  if (typeof url !== 'string') {
    return 'an entry has no url.';
  }
  const normalised = normaliseCrewUrl(url);
  if (!normalised.ok) {
    return `"${url.slice(0, 100)}" is not a usable crew URL (${normalised.problem}).`;
  }
  const displayName = typeof name === 'string' && name.trim() ? inertLine(name.trim()).slice(0, 100) : normalised.url;
  return { name: displayName, url: normalised.url };
}

/** The user setting with one crew added, renamed or removed; other entries are kept as they were. */
export function withCrew(entries: unknown, crew: CrewSettingEntry): CrewSettingEntry[] {
  const list = sameUrlRemoved(entries, crew.url);
  list.push({ name: crew.name, url: crew.url });
  return list;
}

export function withoutCrew(entries: unknown, url: string): CrewSettingEntry[] {
  return sameUrlRemoved(entries, url);
}

export function renamed(entries: unknown, url: string, name: string): CrewSettingEntry[] {
  return asEntries(entries).map((e) => (sameUrl(e.url, url) ? { ...e, name } : e));
}

function sameUrlRemoved(entries: unknown, url: string): CrewSettingEntry[] {
  return asEntries(entries).filter((e) => !sameUrl(e.url, url));
}

function asEntries(entries: unknown): CrewSettingEntry[] {
  return Array.isArray(entries)
    ? entries.filter((e): e is CrewSettingEntry => isPlainObject(e) && typeof e['url'] === 'string')
    : [];
}

function sameUrl(a: string, b: string): boolean {
  const na = normaliseCrewUrl(a);
  const nb = normaliseCrewUrl(b);
  return na.ok && nb.ok ? na.url === nb.url : a === b;
}
