// Small shape helpers every layer uses: one way to ask "is this a plain object" and to drop undefined keys.

/** A plain object (not null, not an array): JSON's `{}`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy without the keys whose value is undefined, so that objects compare (deepEqual) and serialise
 * cleanly and an absent option does not override a default in a spread.
 */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
