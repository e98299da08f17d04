// The organization's trigger apps and a trigger's sample payload (platform-api.md, "Automation triggers"): each
// slug checked before it names a route, each reply read tolerantly (unknown fields ignored, one odd entry never
// fails the list) and bounded. Pure: no vscode; the request goes through the platform client handed in.
//
// Loaded in its own bundle (dist/triggerKickoff.js): nothing here may rely on the marks the main bundle's bounded
// reader keeps (omittedEntries): this bundle has its own, empty, copy of that module.
import * as l10n from '@vscode/l10n';
import { READ_LIMITS, type ReadLimits } from '../api/boundedJson';
import { type Inputs, MAX_INPUT_DEPTH, MAX_INPUT_VALUE_LENGTH, valueProblem } from '../api/inputValues';
import { inertLine } from '../util/inertText';
import { isPlainObject } from '../util/objects';

/** The input a deployed crew started by a trigger receives the trigger's payload in. */
export const TRIGGER_PAYLOAD_INPUT = 'crewai_trigger_payload';
/** Apps offered at most: a list this long is a pick nobody reads, and 10,000 would cost every keystroke. */
export const MAX_TRIGGER_APPS = 500;
export const MAX_TRIGGERS_PER_APP = 100;
const MAX_NAME = 200;
const MAX_DESCRIPTION = 500;

export interface Trigger {
  slug: string;
  name: string;
  description?: string;
}

export interface TriggerApp {
  slug: string;
  name: string;
  description?: string;
  connected: boolean;
  triggers: Trigger[];
}

export interface TriggerApps {
  /** Connected apps first, each group in the platform's order. */
  apps: TriggerApp[];
  /** Entries past MAX_TRIGGER_APPS: the list was longer than what is offered. */
  overCap: boolean;
  /** Entries that could not be used: not an object, no usable slug, or a slug already listed. */
  skipped: number;
}

/**
 * A sample payload is read within the limits of an input value: strings a character longer than an input may be,
 * containers three levels deeper than one (the reply's wrapper, then MAX_INPUT_DEPTH): whatever the reader had to
 * cut is then over an input's limits, and refused as such. Entries are not capped below what an input may hold.
 */
export const PAYLOAD_READ_LIMITS: ReadLimits = { ...READ_LIMITS, maxDepth: MAX_INPUT_DEPTH + 3, maxStringChars: MAX_INPUT_VALUE_LENGTH + 1, maxEntries: MAX_INPUT_VALUE_LENGTH, tailKeys: undefined };

/**
 * Whether a slug the platform gave may name a route segment: letters, digits, `_`, `-` and `.`, starting with a
 * letter or digit. `/`, `%`, `?`, `#`, `\` and the segments `.` and `..` never pass: no slug can reach another route.
 */
export function isSafeSlug(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/.test(value);
}

function line(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') {
    return undefined;
  }
  const text = inertLine(value.trim()).slice(0, max);
  return text || undefined;
}

function listOf(body: unknown, keys: readonly string[]): unknown[] {
  if (Array.isArray(body)) {
    return body;
  }
  if (isPlainObject(body)) {
    for (const key of keys) {
      if (Array.isArray(body[key])) {
        return body[key];
      }
    }
  }
  return [];
}

function isConnected(entry: Record<string, unknown>): boolean {
  const value = entry.is_connected ?? entry.isConnected ?? entry.connected;
  return value === true || value === 'true';
}

function triggersOf(entry: Record<string, unknown>): Trigger[] {
  const triggers: Trigger[] = [];
  const seen = new Set<string>();
  for (const item of listOf(entry.triggers, ['triggers', 'data', 'items'])) {
    if (triggers.length >= MAX_TRIGGERS_PER_APP) {
      break;
    }
    const slug = isPlainObject(item) ? (item.slug ?? item.trigger_slug ?? item.key) : undefined;
    if (!isPlainObject(item) || !isSafeSlug(slug) || seen.has(slug)) {
      continue;
    }
    seen.add(slug);
    triggers.push({ slug, name: line(item.name ?? item.display_name, MAX_NAME) ?? slug, description: line(item.description, MAX_DESCRIPTION) });
  }
  return triggers;
}

/** The reply of `GET …/integrations/apps`: documented `{"apps": [{name, slug, is_connected, description, triggers}]}`. */
export function parseTriggerApps(body: unknown): TriggerApps {
  const list = listOf(body, ['apps', 'integrations', 'data', 'items']);
  const apps: TriggerApp[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const entry of list) {
    if (apps.length >= MAX_TRIGGER_APPS) {
      break;
    }
    const slug = isPlainObject(entry) ? (entry.slug ?? entry.app_slug ?? entry.key) : undefined;
    if (!isPlainObject(entry) || !isSafeSlug(slug) || seen.has(slug)) {
      skipped += 1;
      continue;
    }
    seen.add(slug);
    apps.push({ slug, name: line(entry.name ?? entry.display_name, MAX_NAME) ?? slug, description: line(entry.description, MAX_DESCRIPTION), connected: isConnected(entry), triggers: triggersOf(entry) });
  }
  // The platform's order within each group; connected apps are the ones that can send a payload today.
  const ordered = [...apps.filter((a) => a.connected), ...apps.filter((a) => !a.connected)];
  return { apps: ordered, overCap: apps.length >= MAX_TRIGGER_APPS && list.length > apps.length + skipped, skipped };
}

export type SamplePayload = { ok: true; payload: Inputs } | { ok: false; problem: 'missing' | 'notObject' | 'tooLarge' | 'tooDeep'; message: string };

function kindOf(value: unknown): string {
  if (Array.isArray(value)) {
    return l10n.t('a list');
  }
  if (typeof value === 'string') {
    return l10n.t('text');
  }
  if (typeof value === 'number') {
    return l10n.t('a number');
  }
  if (typeof value === 'boolean') {
    return l10n.t('true or false');
  }
  return l10n.t('null');
}

/**
 * The reply of `GET …/integrations/{app}/{trigger}/payload`: documented `{"sample_payload": {…}}`. What a crew
 * cannot receive as `crewai_trigger_payload` (not an object, larger or deeper than any input may be) is refused
 * in words that name the trigger.
 */
export function parseSamplePayload(body: unknown, triggerName: string): SamplePayload {
  const holder = isPlainObject(body) && isPlainObject(body.data) && !('sample_payload' in body) ? body.data : body;
  const key = isPlainObject(holder) ? ['sample_payload', 'samplePayload', 'payload'].find((k) => k in holder) : undefined;
  const value = key === undefined ? undefined : (holder as Record<string, unknown>)[key];
  if (value === undefined) {
    return { ok: false, problem: 'missing', message: l10n.t('The platform gave no sample payload for {0}.', triggerName) };
  }
  if (!isPlainObject(value)) {
    return {
      ok: false,
      problem: 'notObject',
      message: l10n.t('The sample payload of {0} is {1}, not a JSON object: a crew receives {2} as an object, so it cannot be used.', triggerName, kindOf(value), TRIGGER_PAYLOAD_INPUT),
    };
  }
  const problem = valueProblem(TRIGGER_PAYLOAD_INPUT, value);
  if (problem?.kind === 'tooDeep') {
    return { ok: false, problem: 'tooDeep', message: l10n.t('The sample payload of {0} is nested too deeply to send as an input (over {1} levels).', triggerName, String(MAX_INPUT_DEPTH)) };
  }
  if (problem) {
    // Too long, or a value no JSON holds: a reply read whole is JSON, so only what the reader cut is left.
    return {
      ok: false,
      problem: 'tooLarge',
      message: l10n.t('The sample payload of {0} is too large to send as an input (over {1} characters).', triggerName, MAX_INPUT_VALUE_LENGTH.toLocaleString('en-US')),
    };
  }
  return { ok: true, payload: value as Inputs };
}

/** The platform's Integrations page, where an app is connected. */
export function integrationsPageUrl(platformUrl: string): string {
  return `${platformUrl}/crewai_plus/connectors`;
}

/** A GET of a platform route, its segments each encoded (PlatformClient.getJson). */
export type PlatformGet = (path: string[], signal?: AbortSignal, limits?: ReadLimits) => Promise<unknown>;

export function listTriggerApps(get: PlatformGet, signal?: AbortSignal): Promise<TriggerApps> {
  return get(['integrations', 'apps'], signal).then(parseTriggerApps);
}

/** The sample payload; a slug that could name another route is refused here, and nothing is sent. */
export async function fetchSamplePayload(get: PlatformGet, app: string, trigger: Trigger, signal?: AbortSignal): Promise<SamplePayload | { ok: false; problem: 'badSlug'; message: string }> {
  if (!isSafeSlug(app) || !isSafeSlug(trigger.slug)) {
    return { ok: false, problem: 'badSlug', message: l10n.t('The trigger {0} has a name that is not a plain word (it holds characters such as / or %); nothing was asked of the platform.', trigger.name) };
  }
  return parseSamplePayload(await get(['integrations', app, trigger.slug, 'payload'], signal, PAYLOAD_READ_LIMITS), trigger.name);
}
