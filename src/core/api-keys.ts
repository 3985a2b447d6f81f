import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type Caller, requireAdmin, unauthenticated } from './caller.js';
import { type CursorCodec, createCursorCodec } from './cursor.js';
import { DomainError, invalidInput } from './errors.js';
import type { ApiKey, Role } from './model.js';
import { type ListInput, type Page, parseSort, readPage } from './paging.js';
import type { NewApiKey, Store } from './ports/index.js';
import { insufficientScope, isScope, type Scope, scopesOf, scopesOfRole } from './scopes.js';

/** How long a verified key is trusted without asking the database (docs/decisions.md §9): revocation takes effect within this. */
export const KEY_CACHE_TTL_MS = 5_000;

/** How often a key's `lastUsedAt` (and its user's `lastLoginAt`) is written at most. */
const USE_WRITE_INTERVAL_MS = 60_000;

/** How long a rotated key keeps working when the rotation names no time, and the most it may be given. */
export const ROTATION_OVERLAP = { defaultMs: 24 * 60 * 60 * 1000, maxMs: 7 * 24 * 60 * 60 * 1000 } as const;

/** Sort keys of the key list. */
export const API_KEY_SORT_FIELDS = ['createdAt', 'id'] as const;

/** The longest label a key may carry. */
export const LABEL_MAX_LENGTH = 100;

const KEY_PREFIX = 'oak_';

/** Keys are 32 random bytes, so a fast hash is enough: there is nothing to brute-force. */
/** SHA-256 of a key, as stored; `crypto.hash` is the one-shot form (no Hash object per request). */
export const hashKey = (secret: string): Buffer => hash('sha256', secret, 'buffer');

const newSecret = () => `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

/** What an admin issues a key with. */
export interface ApiKeyInput {
  userId: number;
  role: Role;
  rateLimit?: number | null;
  label?: string | null;
  expiresAt?: Date | null;
  /** Default: every scope the role allows. */
  scopes?: readonly string[];
}

/** What a rotation is asked for. */
export interface RotationInput {
  /** Until when the old key keeps working (default 24 h from now, at most 7 days). */
  overlapUntil?: Date;
  /** The new key's expiry; default the old key's. */
  expiresAt?: Date | null;
}

/** A key with its secret, shown once. */
export interface IssuedKey {
  apiKey: ApiKey;
  secret: string;
}

/** The clocks of the key service, and the cursor codec of its list. */
export interface ApiKeyServiceOptions {
  /** Milliseconds, monotonic (`performance` by default): times the caches. */
  clock?: { now(): number };
  /** The wall clock that expiry is decided by (the core's clock; tests move it). */
  now?: () => Date;
  cursors?: CursorCodec;
}

/** API keys: issuing, listing, rotating, revoking, and the check of every request's bearer key. */
export type ApiKeyService = ReturnType<typeof createApiKeyService>;

/**
 * Creates the API key service. The monotonic clock times the caches, so tests can move past the 5 s a
 * revoked key may still be accepted; the wall clock decides expiry on every request, cached or not.
 */
export function createApiKeyService(
  store: Pick<Store, 'apiKeys' | 'users'>,
  {
    clock = performance,
    now = () => new Date(),
    cursors = createCursorCodec(randomBytes(32).toString('base64url')),
  }: ApiKeyServiceOptions = {},
) {
  const verified = new LRUCache<string, Caller>({ max: 10_000, ttl: KEY_CACHE_TTL_MS, perf: clock });
  // The cache entry of each key id, so that a revocation or rotation on this instance takes effect at once.
  const cachedAs = new LRUCache<number, string>({ max: 10_000, ttl: KEY_CACHE_TTL_MS, perf: clock });
  const useWritten = new LRUCache<number, true>({ max: 10_000, ttl: USE_WRITE_INTERVAL_MS, perf: clock });
  const forget = (id: number) => {
    const cacheKey = cachedAs.get(id);
    if (cacheKey) verified.delete(cacheKey);
  };

  /** A key the caller may see: any for admins, their own for customers (others are "not found"). */
  async function visibleKey(caller: Caller, id: number): Promise<ApiKey> {
    const key = await store.apiKeys.get(id);
    if (!key || (caller.role !== 'admin' && key.userId !== caller.userId)) throw keyNotFound(id);
    return key;
  }

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
        if (caller.apiKeyId !== null) cachedAs.set(caller.apiKeyId, cacheKey);
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
     * Issues a key for a user (admins only); the secret is returned once and stored only as a hash. Its
     * scopes must be allowed by its role (400) and held by the calling key (403 INSUFFICIENT_SCOPE), so
     * that no key can mint a stronger one.
     */
    async issue(caller: Caller, input: ApiKeyInput): Promise<IssuedKey> {
      requireAdmin(caller, 'issue API keys');
      const scopes = input.scopes === undefined ? scopesOfRole(input.role) : checkedScopes(input.scopes, input.role);
      requirePassable(caller, scopes);
      const label = checkedLabel(input.label);
      const expiresAt = input.expiresAt ? futureTime(input.expiresAt, now(), '/expiresAt') : null;
      const user = await store.users.get(input.userId);
      if (!user) {
        throw new DomainError('USER_NOT_FOUND', `There is no user ${input.userId}.`, [
          { in: 'body', name: '/userId', message: 'names no user' },
        ]);
      }
      const secret = newSecret();
      const apiKey = await store.apiKeys.insert({
        userId: user.id,
        role: input.role,
        keyHash: hashKey(secret),
        scopes,
        label,
        expiresAt,
        rateLimit: input.rateLimit ?? null,
      });
      return { apiKey, secret };
    },

    /** Reads a key, without its secret: any for admins, their own for customers. */
    get: visibleKey,

    /**
     * A page of keys, newest first unless sorted otherwise: every key (or one user's, with `userId`) for admins; a customer's own
     * (a `userId` of someone else gives an empty page, as the order list's filter does).
     */
    async list(caller: Caller, input: ListInput & { userId?: number } = {}): Promise<Page<ApiKey>> {
      const userId = caller.role === 'admin' ? input.userId : caller.userId;
      const nobody = caller.role !== 'admin' && input.userId !== undefined && input.userId !== caller.userId;
      const sort = parseSort(input.sort, API_KEY_SORT_FIELDS, '-createdAt');
      const filter = userId === undefined ? {} : { userId };
      return readPage({
        cursors,
        sort,
        size: input.size,
        cursor: input.cursor,
        filters: { userId: nobody ? input.userId : userId },
        withTotal: input.withTotal,
        fetch: async (after, limit) =>
          nobody ? [] : store.apiKeys.list({ ...filter, sort, limit, ...(after ? { after } : {}) }),
        count: async () => (nobody ? 0 : store.apiKeys.count(filter)),
        keys: (key, keys) => keys.map(({ field }) => (field === 'createdAt' ? key.createdAt.toISOString() : key.id)),
      });
    },

    /**
     * Replaces a key by a new one with the same owner, role, scopes, label and budget (the secret is
     * returned once); the old key keeps working until `overlapUntil` (default 24 h, at most 7 days) or
     * its own expiry if sooner. Admins rotate any key, customers their own. A revoked, expired or already
     * rotated key cannot be rotated (409 API_KEY_INACTIVE).
     */
    async rotate(caller: Caller, id: number, input: RotationInput = {}): Promise<IssuedKey & { replaced: ApiKey }> {
      const old = await visibleKey(caller, id);
      const at = now();
      if (!isActive(old, at)) throw inactive(old);
      requirePassable(caller, old.scopes);
      const overlapUntil = overlapEnd(input.overlapUntil, at);
      const expiresAt =
        input.expiresAt === undefined
          ? old.expiresAt
          : input.expiresAt && futureTime(input.expiresAt, at, '/expiresAt');
      const secret = newSecret();
      const successor: NewApiKey = {
        userId: old.userId,
        role: old.role,
        keyHash: hashKey(secret),
        scopes: old.scopes,
        label: old.label,
        expiresAt,
        rateLimit: old.rateLimit,
      };
      const rotated = await store.apiKeys.rotate(id, successor, overlapUntil);
      if (!rotated) throw inactive(old);
      forget(id);
      return { apiKey: rotated.successor, secret, replaced: rotated.old };
    },

    /**
     * Gives a key its own rate budget, or (`null`) returns it to its role's default (admins only). Cached
     * checks pick it up within 5 s.
     */
    async setRateLimit(caller: Caller, id: number, rateLimit: number | null): Promise<ApiKey> {
      requireAdmin(caller, 'change API keys');
      const key = found(await store.apiKeys.setRateLimit(id, rateLimit), id);
      forget(id);
      return key;
    },

    /** Revokes a key (admins only); revoking twice is not an error. Cached checks elsewhere end within 5 s. */
    async revoke(caller: Caller, id: number): Promise<ApiKey> {
      requireAdmin(caller, 'revoke API keys');
      const key = found(await store.apiKeys.revoke(id), id);
      forget(id);
      return key;
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
      await store.apiKeys.insert(roleKey(userId, role, secret));
      return secret;
    },
  };
}

function callerOf(key: ApiKey): Caller {
  return {
    userId: key.userId,
    role: key.role,
    apiKeyId: key.id,
    scopes: key.scopes,
    ...(key.expiresAt === null ? {} : { expiresAt: key.expiresAt }),
    ...(key.rateLimit === null ? {} : { rateLimit: key.rateLimit }),
  };
}

/** A key with every scope of its role, no label and no expiry (the bootstrap and seed keys). */
const roleKey = (userId: number, role: Role, secret: string): NewApiKey => ({
  userId,
  role,
  keyHash: hashKey(secret),
  scopes: scopesOfRole(role),
});

const isActive = (key: ApiKey, at: Date) =>
  key.revokedAt === null && key.replacedBy === null && (key.expiresAt === null || key.expiresAt > at);

const inactive = (key: ApiKey) =>
  new DomainError(
    'API_KEY_INACTIVE',
    `API key ${key.id} is ${key.revokedAt ? 'revoked' : key.replacedBy ? `already rotated (replaced by ${key.replacedBy})` : 'expired'}; only a working key can be rotated.`,
  );

/** Known, distinct scopes that the role allows; anything else is a 400 naming the entry. */
function checkedScopes(scopes: readonly string[], role: Role): Scope[] {
  if (scopes.length === 0) throw invalidInput('/scopes', 'must name at least one scope');
  const allowed = scopesOfRole(role);
  return scopes.map((scope, index) => {
    if (!isScope(scope)) throw invalidInput(`/scopes/${index}`, `is not a scope ("${scope}")`);
    if (!allowed.includes(scope)) {
      throw invalidInput(`/scopes/${index}`, `is not allowed for the role ${role} ("${scope}")`);
    }
    if (scopes.indexOf(scope) !== index) throw invalidInput(`/scopes/${index}`, `repeats "${scope}"`);
    return scope;
  });
}

/** A key can only pass on scopes it holds: the first one it lacks is named. */
function requirePassable(caller: Caller, scopes: readonly Scope[]): void {
  const held = scopesOf(caller);
  const missing = scopes.find((scope) => !held.includes(scope));
  if (missing) throw insufficientScope(missing, `Giving a key the scope "${missing}"`);
}

function checkedLabel(label: string | null | undefined): string | null {
  if (label === undefined || label === null) return null;
  const trimmed = label.trim();
  if (trimmed.length === 0 || trimmed.length > LABEL_MAX_LENGTH) {
    throw invalidInput('/label', `must hold 1 to ${LABEL_MAX_LENGTH} characters besides spaces`);
  }
  return trimmed;
}

function futureTime(time: Date, at: Date, name: string): Date {
  if (time.getTime() <= at.getTime()) throw invalidInput(name, `must be in the future (now is ${at.toISOString()})`);
  return time;
}

/** The end of a rotation's overlap: now at the earliest, at most 7 days ahead, 24 hours by default. */
function overlapEnd(requested: Date | undefined, at: Date): Date {
  if (requested === undefined) return new Date(at.getTime() + ROTATION_OVERLAP.defaultMs);
  if (requested.getTime() < at.getTime()) {
    throw invalidInput('/overlapUntil', `must not be in the past (now is ${at.toISOString()})`);
  }
  if (requested.getTime() > at.getTime() + ROTATION_OVERLAP.maxMs) {
    throw invalidInput('/overlapUntil', 'must be at most 7 days from now');
  }
  return requested;
}

const keyNotFound = (id: number) => new DomainError('API_KEY_NOT_FOUND', `There is no API key ${id}.`);

function found(key: ApiKey | undefined, id: number): ApiKey {
  if (!key) throw keyNotFound(id);
  return key;
}

async function bootstrapKey(
  keys: Store['apiKeys'],
  adminApiKey: string | undefined,
  adminUserId: number,
): Promise<string | undefined> {
  if (adminApiKey) {
    await keys.ensure(roleKey(adminUserId, 'admin', adminApiKey));
    return undefined;
  }
  if ((await keys.count()) > 0) return undefined;
  const secret = newSecret();
  await keys.insert(roleKey(adminUserId, 'admin', secret));
  return secret;
}
