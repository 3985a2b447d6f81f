import type { ApiKey, Role } from '../model.js';

/** Issued API keys, stored as hashes. */
export interface ApiKeyStore {
  insert(userId: number, role: Role, keyHash: Buffer, rateLimit?: number | null): Promise<ApiKey>;
  setRateLimit(id: number, rateLimit: number | null): Promise<ApiKey | undefined>;
  /** Adds a key with a known hash unless one exists (the bootstrap key); returns whether it was added. */
  ensure(userId: number, role: Role, keyHash: Buffer): Promise<boolean>;
  findActive(keyHash: Buffer): Promise<ApiKey | undefined>;
  get(id: number): Promise<ApiKey | undefined>;
  revoke(id: number): Promise<ApiKey | undefined>;
  count(): Promise<number>;
}
