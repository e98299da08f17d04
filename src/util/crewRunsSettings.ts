// The numeric crewRuns.* settings, read the one way: the value that applies, clamped to its range.
// Pure (no vscode import): extension.ts and api/networkSettings.ts pass VS Code's configuration in.

interface NumberRule {
  min: number;
  max: number;
  fallback: number;
  integer?: boolean;
  /** Application scope: the user's business only; a workspace value never applies (history it could shrink). */
  userOnly?: boolean;
}

/** Also declared in package.json (minimum, maximum, default, scope); a unit test keeps both the same. */
export const NUMBER_SETTINGS = {
  maxRunsPerCrew: { min: 1, max: 2000, fallback: 50, integer: true, userOnly: true },
  pollMaxIntervalSeconds: { min: 2, max: 300, fallback: 15 },
  pollUnfocusedFactor: { min: 1, max: 10, fallback: 2 },
  watchDeadlineHours: { min: 0.1, max: 720, fallback: 24 },
  requestTimeoutSeconds: { min: 5, max: 600, fallback: 60 },
  /** Never above the poller's per-crew cap on requests in flight (POLLER_DEFAULTS.maxConcurrentPerCrew). */
  batchConcurrency: { min: 1, max: 4, fallback: 3, integer: true },
} as const satisfies Record<string, NumberRule>;

export type NumberSetting = keyof typeof NUMBER_SETTINGS;
export type CrewRunsNumbers = Record<NumberSetting, number>;

/** The shape of `vscode.workspace.getConfiguration('crewRuns')` that is used here. */
export interface SettingsSource {
  inspect(key: string): { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined;
  /** The value as VS Code resolves it (folder over workspace over user over default): cheaper than inspect. */
  get?(key: string): unknown;
}

/** A value in range: not a finite number → the default; out of range → the nearest bound. */
export function clampSetting(name: NumberSetting, value: unknown): number {
  const rule: NumberRule = NUMBER_SETTINGS[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return rule.fallback;
  }
  const clamped = Math.min(rule.max, Math.max(rule.min, value));
  return rule.integer ? Math.floor(clamped) : clamped;
}

/**
 * The value that applies: the user's for a user-only setting, and for every number in an untrusted workspace
 * (they are restricted settings); otherwise folder over workspace over user, as VS Code resolves them.
 */
export function readNumberSetting(source: SettingsSource, name: NumberSetting, trusted: boolean): number {
  const rule: NumberRule = NUMBER_SETTINGS[name];
  const userOnly = rule.userOnly || !trusted;
  if (!userOnly && source.get) {
    return clampSetting(name, source.get(name));
  }
  const inspected = source.inspect(name);
  const value = userOnly ? inspected?.globalValue : (inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue);
  return clampSetting(name, value);
}

export function readCrewRunsNumbers(source: SettingsSource, trusted: boolean): CrewRunsNumbers {
  const out = {} as CrewRunsNumbers;
  for (const name of Object.keys(NUMBER_SETTINGS) as NumberSetting[]) {
    out[name] = readNumberSetting(source, name, trusted);
  }
  return out;
}
