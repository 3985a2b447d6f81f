import { randomBytes } from 'node:crypto';
import type { NewApiKey, Store } from '../ports/index.js';
import {
  type ApiKey,
  type Caller,
  type CursorCodec,
  createCursorCodec,
  invalidInput,
  type ListInput,
  type Page,
  parseSort,
  type Role,
  readPage,
  requireAdmin,
  scopesOfRole,
  userNotFound,
} from '../shared/index.js';
import { createKeyCheck, hashKey } from './key-check.js';
import {
  type ApiKeyInput,
  checkedLabel,
  checkedScopes,
  futureTime,
  inactive,
  isActive,
  keyNotFound,
  overlapEnd,
  type RotationInput,
  requirePassable,
} from './key-rules.js';

const KEY_PREFIX = 'oak_';

const newSecret = () => `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

/** Sort keys of the key list. */
export const API_KEY_SORT_FIELDS = ['createdAt', 'id'] as const;

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

/** What the use cases below share. */
interface KeyDeps {
  store: Pick<Store, 'apiKeys' | 'users'>;
  now: () => Date;
  cursors: CursorCodec;
}

/** API keys: issuing, listing, rotating, revoking, and the check of every request's bearer key. */
export type ApiKeyService = ReturnType<typeof createApiKeyService>;

/**
 * Creates the API key service. The monotonic clock times the caches, so tests can move past the 5 s a
 * revoked key may still be accepted; the wall clock decides expiry on every request, cached or not.
 */
export function createApiKeyService(
  store: Pick<Store, 'apiKeys' | 'users'>,
  { clock = performance, now = () => new Date(), cursors = randomCursors() }: ApiKeyServiceOptions = {},
) {
  const check = createKeyCheck(store, { clock, now });
  const deps: KeyDeps = { store, now, cursors };
  /** A key the caller may see: any for admins, their own for customers (others are "not found"). */
  const visibleKey = async (caller: Caller, id: number): Promise<ApiKey> => {
    const key = await store.apiKeys.get(id);
    if (!key || (caller.role !== 'admin' && key.userId !== caller.userId)) throw keyNotFound(id);
    return key;
  };
  /** Runs a change of one key and drops this instance's cached check of it. */
  const changing = async (id: number, change: Promise<ApiKey | undefined>): Promise<ApiKey> => {
    const key = await change;
    if (!key) throw keyNotFound(id);
    check.forget(id);
    return key;
  };

  return {
    authenticate: check.authenticate,
    /** Whether an earlier caller's key still holds (streams re-check it while they deliver); see the key check. */
    stillValid: check.stillValid,
    /** Issues a key (admins only); see `issueKey`. */
    issue: (caller: Caller, input: ApiKeyInput) => issueKey(deps, caller, input),
    /** Reads a key, without its secret: any for admins, their own for customers. */
    get: visibleKey,
    /** A page of keys; see `listKeys`. */
    list: (caller: Caller, input: ListInput & { userId?: number } = {}) => listKeys(deps, caller, input),
    /** Replaces a key by a new one; see `rotateKey`. */
    async rotate(caller: Caller, id: number, input: RotationInput = {}) {
      const { endedPredecessors, ...rotated } = await rotateKey(deps, caller, await visibleKey(caller, id), input);
      for (const ended of [id, ...endedPredecessors]) check.forget(ended);
      return rotated;
    },
    /** Gives a key its own rate budget, or (`null`) its role's default (admins only); cached checks within 5 s. */
    async setRateLimit(caller: Caller, id: number, rateLimit: number | null): Promise<ApiKey> {
      requireAdmin(caller, 'change API keys');
      return changing(id, store.apiKeys.setRateLimit(id, rateLimit));
    },
    /**
     * Revokes a key and its live predecessors (admins only); its successor, if any, stays. Revoking twice
     * is not an error. Cached checks elsewhere end within 5 s.
     */
    async revoke(caller: Caller, id: number): Promise<ApiKey> {
      requireAdmin(caller, 'revoke API keys');
      const revoked = await store.apiKeys.revoke(id);
      for (const predecessor of revoked?.predecessors ?? []) check.forget(predecessor);
      return changing(id, Promise.resolve(revoked?.key));
    },
    /**
     * Makes sure an admin can log in on a new database: the configured `ADMIN_API_KEY` belongs to the first
     * admin user; with none configured and no key at all, a key is issued and returned to be shown once.
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

const randomCursors = () => createCursorCodec(randomBytes(32).toString('base64url'));

/**
 * Issues a key for a user (admins only); the secret is returned once and stored only as a hash. Its scopes
 * must be allowed by its role (400) and held by the calling key (403 INSUFFICIENT_SCOPE), so that no key
 * can mint a stronger one.
 */
async function issueKey({ store, now }: KeyDeps, caller: Caller, input: ApiKeyInput): Promise<IssuedKey> {
  requireAdmin(caller, 'issue API keys');
  const scopes = input.scopes === undefined ? scopesOfRole(input.role) : checkedScopes(input.scopes, input.role);
  requirePassable(caller, scopes);
  const label = checkedLabel(input.label);
  const expiresAt = input.expiresAt ? futureTime(input.expiresAt, now(), '/expiresAt') : null;
  const user = await store.users.get(input.userId);
  if (!user) {
    throw userNotFound(input.userId, '/userId');
  }
  const secret = newSecret();
  const key = { userId: user.id, role: input.role, keyHash: hashKey(secret), scopes, label, expiresAt };
  return { apiKey: await store.apiKeys.insert({ ...key, rateLimit: input.rateLimit ?? null }), secret };
}

/**
 * A page of keys, newest first unless sorted otherwise: every key (or one user's, with `userId`) for
 * admins; a customer's own (a `userId` of someone else gives an empty page, as the order list's does).
 */
function listKeys(
  { store, cursors }: KeyDeps,
  caller: Caller,
  input: ListInput & { userId?: number },
): Promise<Page<ApiKey>> {
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
}

/**
 * Replaces a key by a new one with the same owner, role, scopes, label and budget (the secret is returned
 * once); the old key keeps working until `overlapUntil` (default 24 h, at most 7 days) or its own expiry
 * if sooner. The caller must hold the key's scopes. A revoked, expired or already rotated key cannot be
 * rotated (409 API_KEY_INACTIVE).
 */
async function rotateKey(
  { store, now }: KeyDeps,
  caller: Caller,
  old: ApiKey,
  input: RotationInput,
): Promise<IssuedKey & { replaced: ApiKey; endedPredecessors: number[] }> {
  const at = now();
  if (!isActive(old, at)) throw inactive(old);
  requirePassable(caller, old.scopes);
  const overlapUntil = overlapEnd(input.overlapUntil, at);
  const expiresAt =
    input.expiresAt === undefined ? old.expiresAt : input.expiresAt && futureTime(input.expiresAt, at, '/expiresAt');
  // A rotation replaces a secret; it does not extend what the key's owner decided. Only an admin may.
  if (caller.role !== 'admin' && old.expiresAt && (expiresAt === null || expiresAt > old.expiresAt)) {
    throw invalidInput('expiresAt', `must not be later than the key's own expiry (${old.expiresAt.toISOString()})`);
  }
  const secret = newSecret();
  const successor: NewApiKey = {
    ...roleKey(old.userId, old.role, secret),
    scopes: old.scopes,
    label: old.label,
    expiresAt,
    rateLimit: old.rateLimit,
  };
  const rotated = await store.apiKeys.rotate(old.id, successor, overlapUntil, at);
  if (!rotated) throw inactive(old);
  return { apiKey: rotated.successor, secret, replaced: rotated.old, endedPredecessors: rotated.endedPredecessors };
}

/** A key with every scope of its role, no label and no expiry (the bootstrap and seed keys). */
const roleKey = (userId: number, role: Role, secret: string): NewApiKey => ({
  userId,
  role,
  keyHash: hashKey(secret),
  scopes: scopesOfRole(role),
});

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
