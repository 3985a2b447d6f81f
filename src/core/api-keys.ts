import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type Caller, requireAdmin, unauthenticated } from './caller.js';
import { DomainError } from './errors.js';
import type { ApiKey, Role } from './model.js';
import type { Store } from './ports/index.js';

/** How long a verified key is trusted without asking the database (docs/decisions.md §9): revocation takes effect within this. */
export const KEY_CACHE_TTL_MS = 5_000;

/** How often `lastLoginAt` is written at most, per user. */
const LOGIN_WRITE_INTERVAL_MS = 60_000;

const KEY_PREFIX = 'oak_';

/** Keys are 32 random bytes, so a fast hash is enough: there is nothing to brute-force. */
/** SHA-256 of a key, as stored; `crypto.hash` is the one-shot form (no Hash object per request). */
export const hashKey = (secret: string): Buffer => hash('sha256', secret, 'buffer');

const newSecret = () => `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

/** API keys: issuing, revoking and the check of every request's bearer key. */
export type ApiKeyService = ReturnType<typeof createApiKeyService>;

/**
 * Creates the API key service. `clock` (milliseconds, monotonic; `performance` by default) times the
 * caches, so tests can move past the 5 s a revoked key may still be accepted.
 */
export function createApiKeyService(store: Pick<Store, 'apiKeys' | 'users'>, clock: { now(): number } = performance) {
  const verified = new LRUCache<string, Caller>({ max: 10_000, ttl: KEY_CACHE_TTL_MS, perf: clock });
  const loginWritten = new LRUCache<number, true>({ max: 10_000, ttl: LOGIN_WRITE_INTERVAL_MS, perf: clock });

  return {
    /**
     * Resolves a bearer key to its caller, or throws UNAUTHENTICATED for a wrong or revoked key. Records
     * the use as the user's `lastLoginAt`, at most once a minute.
     */
    async authenticate(secret: string): Promise<Caller> {
      const cacheKey = hash('sha256', secret, 'base64url');
      let caller = verified.get(cacheKey);
      if (!caller) {
        const key = await store.apiKeys.findActive(hashKey(secret));
        if (!key) throw unauthenticated.wrongKey();
        caller = callerOf(key);
        verified.set(cacheKey, caller);
      }
      if (!loginWritten.has(caller.userId)) {
        loginWritten.set(caller.userId, true);
        await store.users.touchLogin(caller.userId);
      }
      return caller;
    },

    /** Issues a key for a user (admins only); the secret is returned once and stored only as a hash. */
    async issue(
      caller: Caller,
      input: { userId: number; role: Role; rateLimit?: number | null },
    ): Promise<{ apiKey: ApiKey; secret: string }> {
      requireAdmin(caller, 'issue API keys');
      const user = await store.users.get(input.userId);
      if (!user) {
        throw new DomainError('USER_NOT_FOUND', `There is no user ${input.userId}.`, [
          { in: 'body', name: '/userId', message: 'names no user' },
        ]);
      }
      const secret = newSecret();
      return { apiKey: await store.apiKeys.insert(user.id, input.role, hashKey(secret), input.rateLimit), secret };
    },

    /** Reads a key, without its secret (admins only). */
    async get(caller: Caller, id: number): Promise<ApiKey> {
      requireAdmin(caller, 'read API keys');
      return found(await store.apiKeys.get(id), id);
    },

    /**
     * Gives a key its own rate budget, or (`null`) returns it to its role's default (admins only). Cached
     * checks pick it up within 5 s.
     */
    async setRateLimit(caller: Caller, id: number, rateLimit: number | null): Promise<ApiKey> {
      requireAdmin(caller, 'change API keys');
      return found(await store.apiKeys.setRateLimit(id, rateLimit), id);
    },

    /** Revokes a key (admins only); revoking twice is not an error. Cached checks end within 5 s. */
    async revoke(caller: Caller, id: number): Promise<ApiKey> {
      requireAdmin(caller, 'revoke API keys');
      return found(await store.apiKeys.revoke(id), id);
    },

    /**
     * Makes sure an admin can log in on a new database: the configured `ADMIN_API_KEY` belongs to the
     * first admin user; with none configured and no key at all, a key is issued and returned to be shown
     * once.
     */
    bootstrap: (adminApiKey: string | undefined, adminUserId: number): Promise<string | undefined> =>
      bootstrapKey(store.apiKeys, adminApiKey, adminUserId),

    /** Issues a key without a caller, for the start-up seed only. */
    async issueForSeed(userId: number, role: Role): Promise<string> {
      const secret = newSecret();
      await store.apiKeys.insert(userId, role, hashKey(secret));
      return secret;
    },
  };
}

function callerOf(key: ApiKey): Caller {
  return {
    userId: key.userId,
    role: key.role,
    apiKeyId: key.id,
    ...(key.rateLimit === null ? {} : { rateLimit: key.rateLimit }),
  };
}

function found(key: ApiKey | undefined, id: number): ApiKey {
  if (!key) throw new DomainError('API_KEY_NOT_FOUND', `There is no API key ${id}.`);
  return key;
}

async function bootstrapKey(
  keys: Store['apiKeys'],
  adminApiKey: string | undefined,
  adminUserId: number,
): Promise<string | undefined> {
  if (adminApiKey) {
    await keys.ensure(adminUserId, 'admin', hashKey(adminApiKey));
    return undefined;
  }
  if ((await keys.count()) > 0) return undefined;
  const secret = newSecret();
  await keys.insert(adminUserId, 'admin', hashKey(secret));
  return secret;
}
