import type { ApiKey, KeyValues, Role, Scope, SortKey } from '../shared/index.js';

/** What a new key is stored with (its secret only as a hash). */
export interface NewApiKey {
  userId: number;
  role: Role;
  keyHash: Buffer;
  scopes: readonly Scope[];
  label?: string | null;
  expiresAt?: Date | null;
  rateLimit?: number | null;
}

/** Issued API keys, stored as hashes. */
export interface ApiKeyStore {
  insert(key: NewApiKey): Promise<ApiKey>;
  setRateLimit(id: number, rateLimit: number | null): Promise<ApiKey | undefined>;
  /** Adds a key with a known hash unless one exists (the bootstrap key); returns whether it was added. */
  ensure(key: NewApiKey): Promise<boolean>;
  /** The key with this hash unless it was revoked (an expired one is returned: the core decides by its clock). */
  findActive(keyHash: Buffer): Promise<ApiKey | undefined>;
  get(id: number): Promise<ApiKey | undefined>;
  /** One page of keys in the sort, after the cursor's keys, of one user or of all. */
  list(query: { userId?: number; sort: readonly SortKey[]; after?: KeyValues; limit: number }): Promise<ApiKey[]>;
  /** How many keys there are (of one user, or of all). */
  count(filter?: { userId?: number }): Promise<number>;
  /**
   * Revokes the key and its live predecessors (the keys it replaced by rotation, back along the chain);
   * `predecessors` names those revoked with it. Revoking twice is not an error.
   */
  revoke(id: number): Promise<{ key: ApiKey; predecessors: number[] } | undefined>;
  /**
   * Rotation, atomically: inserts the successor and ends the old key at `oldEndsAt` (or its own expiry if
   * sooner), and ends at `now` the old key's own live predecessor (a key has at most one live
   * predecessor), unless the old key was revoked or already rotated meanwhile (`undefined` then).
   */
  rotate(
    id: number,
    successor: NewApiKey,
    oldEndsAt: Date,
    now: Date,
  ): Promise<{ old: ApiKey; successor: ApiKey; endedPredecessors: number[] } | undefined>;
  /** Records a use: the key's `lastUsedAt` and its user's `lastLoginAt`, each at most once a minute. */
  touch(id: number, userId: number): Promise<void>;
}
