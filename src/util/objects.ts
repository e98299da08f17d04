// Small shape helpers every layer uses: one way to ask "is this a plain object", to find a reply's list and to drop
// undefined keys.

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

/** A list body: the array itself, or the first array under one of the usual wrapper keys (`{"data": [...]}`). */
export function listIn(body: unknown, keys: readonly string[]): unknown[] {
  if (Array.isArray(body)) {
    return body;
  }
  if (isPlainObject(body)) {
    for (const key of keys) {
      const value = body[key];
      if (Array.isArray(value)) {
        return value;
      }
    }
  }
  return [];
}
