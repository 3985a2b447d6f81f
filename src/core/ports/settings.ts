/** Settings kept in the database (the cursor secret, the administrator's id). */
export interface SettingsStore {
  get(key: string): Promise<string | undefined>;
  /** Stores the value unless the key exists; returns the value that is stored now. */
  putIfAbsent(key: string, value: string): Promise<string>;
}
