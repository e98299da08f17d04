/** Small values every window shares, each changed as a whole under its lock (storage/sharedState.ts keeps them). */
export interface SharedValues {
  get<T>(key: string): T | undefined;
  /** Stores `update(current)`, with `current` read under the key's lock: no other window's change is lost. */
  change<T>(key: string, update: (current: T | undefined) => T | undefined): Promise<void>;
}
