import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Store } from '../ports/index.js';
import type { ApiKey } from '../shared/index.js';
import { type Caller, unauthenticated } from '../shared/index.js';

/** How long a verified key is trusted without asking the database (docs/decisions.md §9): revocation takes effect within this. */
export const KEY_CACHE_TTL_MS = 5_000;

/** How often a key's `lastUsedAt` (and its user's `lastLoginAt`) is written at most. */
const USE_WRITE_INTERVAL_MS = 60_000;

/** Keys are 32 random bytes, so a fast hash is enough: there is nothing to brute-force. */
/** SHA-256 of a key, as stored; `crypto.hash` is the one-shot form (no Hash object per request). */
export const hashKey = (secret: string): Buffer => hash('sha256', secret, 'buffer');

/** The clocks of the check. */
export interface KeyCheckClocks {
  /** Milliseconds, monotonic: times the caches. */
  clock: { now(): number };
  /** The wall clock that expiry is decided by. */
  now: () => Date;
}

/**
 * The check of every request's bearer key, with the verified-key cache (5 s) and the once-a-minute
 * record of its use. Expiry is decided on every call, cached or not.
 */
export function createKeyCheck(store: Pick<Store, 'apiKeys'>, { clock, now }: KeyCheckClocks) {
  const verified = new LRUCache<string, Caller>({ max: 10_000, ttl: KEY_CACHE_TTL_MS, perf: clock });
  // The cache entry of each key id, so that a revocation or rotation on this instance takes effect at once.
  const cachedAs = new LRUCache<number, string>({ max: 10_000, ttl: KEY_CACHE_TTL_MS, perf: clock });
  const useWritten = new LRUCache<number, true>({ max: 10_000, ttl: USE_WRITE_INTERVAL_MS, perf: clock });
  // Each key's standing by id, for the streams that re-check a caller while they deliver (false: revoked).
  const standing = new LRUCache<number, ApiKey | false>({ max: 10_000, ttl: KEY_CACHE_TTL_MS, perf: clock });
  const expired = (expiresAt: Date | null | undefined) => !!expiresAt && expiresAt.getTime() <= now().getTime();

  return {
    /**
     * Resolves a bearer key to its caller, or throws UNAUTHENTICATED for a wrong, revoked or expired key
     * (a rotated key expires at the end of its overlap). Records the use as the key's `lastUsedAt` and the
     * user's `lastLoginAt`, at most once a minute.
     */
    async authenticate(secret: string): Promise<Caller> {
      const cacheKey = hash('sha256', secret, 'base64url');
      let caller = verified.get(cacheKey);
      if (!caller) {
        const key = await store.apiKeys.findActive(hashKey(secret));
        if (!key) throw unauthenticated.wrongKey();
        caller = callerOf(key);
        verified.set(cacheKey, caller);
        cachedAs.set(key.id, cacheKey);
      }
      // Expiry is read from the cached key too: an expired key stops at once, not after the cache's 5 s.
      if (caller.expiresAt && caller.expiresAt.getTime() <= now().getTime()) throw unauthenticated.wrongKey();
      if (caller.apiKeyId !== null && !useWritten.has(caller.apiKeyId)) {
        useWritten.set(caller.apiKeyId, true);
        await store.apiKeys.touch(caller.apiKeyId, caller.userId);
      }
      return caller;
    },

    /**
     * Whether a caller authenticated earlier may still receive data: its key is neither expired (by the wall
     * clock, now) nor revoked, nor cut short by a rotation since. Known within the cache's 5 s, at once for a
     * change made on this instance; an in-process caller without a key is always valid.
     */
    async stillValid(caller: Caller): Promise<boolean> {
      if (expired(caller.expiresAt)) return false;
      if (caller.apiKeyId === null) return true;
      let key = standing.get(caller.apiKeyId);
      if (key === undefined) {
        const found = await store.apiKeys.get(caller.apiKeyId);
        key = found && found.revokedAt === null ? found : false;
        standing.set(caller.apiKeyId, key);
      }
      return key !== false && !expired(key.expiresAt);
    },

    /** Drops this instance's cached check of a key (revoked, rotated or changed here). */
    forget(id: number): void {
      const cacheKey = cachedAs.get(id);
      if (cacheKey) verified.delete(cacheKey);
      standing.delete(id);
    },
  };
}

function callerOf(key: ApiKey): Caller {
  return {
    userId: key.userId,
    role: key.role,
    apiKeyId: key.id,
    ...(key.chainId === key.id ? {} : { keyChainId: key.chainId }),
    scopes: key.scopes,
    ...(key.expiresAt === null ? {} : { expiresAt: key.expiresAt }),
    ...(key.rateLimit === null ? {} : { rateLimit: key.rateLimit }),
  };
}
