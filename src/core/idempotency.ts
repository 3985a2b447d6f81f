import { createHash } from 'node:crypto';
import type { Caller } from './caller.js';
import { canonicalJson } from './canonical-json.js';
import { DomainError } from './errors.js';
import type { IdempotencyStore, Store } from './ports/index.js';

/** How long a key is remembered (docs/decisions.md §3). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** How long a claim holds its key by default before a retry may take it over (IDEMPOTENCY_LEASE_SECONDS). */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 30_000;

/**
 * The claim an idempotent call runs under, handed to its work: the work ties what it holds to the claim,
 * and a retry learns what a dead earlier attempt wrote. Without an Idempotency-Key it holds nothing.
 */
export interface ClaimHold {
  /**
   * The order an earlier, dead attempt of this call wrote before it could complete the claim (its process
   * died, or the database failed under it): the retry answers with that order.
   */
  readonly heldOrderId?: number;
  /**
   * Records that this call holds stock for `orderId`: if the process dies before the call completes,
   * whoever takes over or sweeps the expired claim releases that stock.
   */
  hold(orderId: number): Promise<void>;
}

/** What a request brings to a create besides its input. */
export interface CreateOptions {
  /** The client's Idempotency-Key (REST header, GraphQL argument); without one the create just runs. */
  idempotencyKey?: string | undefined;
  /** Aborts the work when the client goes away. */
  signal?: AbortSignal | undefined;
}

/** The work of a create use case: the caller, the input, the claim it runs under, the client's signal. */
export type CreateWork<I, T> = (caller: Caller, input: I, claim: ClaimHold, signal?: AbortSignal) => Promise<T>;

/** A create use case as the core exposes it: run once per Idempotency-Key, answering whether it replayed. */
export type IdempotentCreate<I, T> = (caller: Caller, input: I, options?: CreateOptions) => Promise<Idempotent<T>>;

const NO_CLAIM: ClaimHold = { hold: () => Promise.resolve() };

/** The outcome of an idempotent call: the result and whether it is a replay of an earlier one. */
export interface Idempotent<T> {
  result: T;
  replayed: boolean;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Stored results are JSON; timestamps come back as Dates, as the service returned them the first time. */
const revive = (key: string, value: unknown) =>
  key.endsWith('At') && typeof value === 'string' && ISO_TIME.test(value) ? new Date(value) : value;

/**
 * The answer to a key already claimed: the stored result, or why it cannot be given. A claim in progress
 * says when its lease runs out (`leaseEnd`), the latest moment a retry can take the key over.
 */
function replayOf<T>(
  claim: Exclude<Awaited<ReturnType<IdempotencyStore['claim']>>, { kind: 'claimed' }>,
  fingerprint: string,
  secondsUntil: (moment: Date) => number,
  leaseMs: number,
): Idempotent<T> {
  if (claim.fingerprint !== fingerprint) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with another request; use a new key for a new request.',
    );
  }
  if (claim.kind === 'in-progress') {
    const retryAfter = secondsUntil(new Date(claim.claimedAt.getTime() + leaseMs));
    throw new DomainError(
      'IDEMPOTENCY_KEY_IN_USE',
      `A request with this Idempotency-Key is still running; retry in ${retryAfter} s at the latest (Retry-After).`,
      undefined,
      undefined,
      retryAfter,
    );
  }
  return { result: JSON.parse(JSON.stringify(claim.result), revive) as T, replayed: true };
}

const isDatabaseLoss = (error: unknown) => error instanceof DomainError && error.code === 'DATABASE_UNAVAILABLE';

/** How often an ended claim is marked in the database while the database is away. */
const MARK_RETRY_MS = 1000;

/**
 * The claims of this instance whose request ended without an outcome: a retry here takes them over at
 * once, and each is marked ended in the database as soon as it answers, for retries on other instances.
 * An entry lasts one lease, after which any retry takes the key over anyway.
 */
function createEndedClaims(store: Pick<Store, 'idempotency'>, leaseMs: number) {
  const ended = new Map<string, { scope: string; key: string; token: string; until: number }>();
  const id = (scope: string, key: string) => `${scope}\n${key}`;
  const mark = (entry: { scope: string; key: string; token: string; until: number }) => {
    store.idempotency.end(entry.scope, entry.key, entry.token).catch(() => {
      if (Date.now() + MARK_RETRY_MS < entry.until) setTimeout(() => mark(entry), MARK_RETRY_MS).unref();
    });
  };
  return {
    add(scope: string, key: string, token: string) {
      for (const [name, entry] of ended) if (entry.until <= Date.now()) ended.delete(name);
      const entry = { scope, key, token, until: Date.now() + leaseMs };
      ended.set(id(scope, key), entry);
      mark(entry);
    },
    tokenOf: (scope: string, key: string) => ended.get(id(scope, key))?.token,
    forget: (scope: string, key: string) => ended.delete(id(scope, key)),
  };
}

/** Idempotency keys, shared by every transport: the key is scoped to the caller, and the result stored is the core's. */
export type IdempotencyService = ReturnType<typeof createIdempotencyService>;

/**
 * Creates the idempotency service over the store. A claim is a lease of `leaseMs`: a first request that
 * neither completed nor gave its key back within it (its process died, or the database failed under it)
 * no longer blocks the key, and the stock it held is released.
 */
export function createIdempotencyService(
  store: Pick<Store, 'idempotency'>,
  now: () => Date = () => new Date(),
  leaseMs = DEFAULT_IDEMPOTENCY_LEASE_MS,
) {
  const leaseStart = () => new Date(now().getTime() - leaseMs);
  const secondsUntil = (moment: Date) => Math.max(1, Math.ceil((moment.getTime() - now().getTime()) / 1000));
  const endedClaims = createEndedClaims(store, leaseMs);

  /**
   * Runs `work` once per (caller, key): the same operation and input within 24 h gets the stored result
   * back (`replayed`); another operation or input is IDEMPOTENCY_KEY_REUSED; a key whose first request
   * is still running is IDEMPOTENCY_KEY_IN_USE, until its lease runs out. A failed first request frees
   * the key, so a retry runs again. Without a key, `work` simply runs.
   */
  async function run<T>(
    caller: Caller,
    key: string | undefined,
    operation: string,
    input: unknown,
    work: (claim: ClaimHold) => Promise<T>,
  ): Promise<Idempotent<T>> {
    if (key === undefined) return { result: await work(NO_CLAIM), replayed: false };
    // Keys belong to the caller's user, whichever key or interface they come through.
    const scope = `user:${caller.userId}`;
    const fingerprint = createHash('sha256')
      .update(`${operation}\n${canonicalJson(input)}`)
      .digest('base64url');
    const since = new Date(now().getTime() - IDEMPOTENCY_WINDOW_MS);
    const ended = endedClaims.tokenOf(scope, key);
    const claim = await store.idempotency.claim(scope, key, operation, fingerprint, since, leaseStart(), ended);
    if (claim.kind !== 'claimed') return replayOf<T>(claim, fingerprint, secondsUntil, leaseMs);
    endedClaims.forget(scope, key);
    let result: T;
    try {
      const hold = (orderId: number) => store.idempotency.hold(scope, key, orderId);
      const { heldOrderId } = claim;
      result = await work({ hold, ...(heldOrderId === undefined ? {} : { heldOrderId }) });
    } catch (error) {
      // A lost database leaves the outcome unknown (the last commit may have landed): the claim stays,
      // and the retry answers with what was written, if anything. This request is over, so a retry need
      // not wait out the lease: the claim is marked ended (here at once, in the database once it is back).
      if (isDatabaseLoss(error)) endedClaims.add(scope, key, claim.token);
      else await store.idempotency.abandon(scope, key);
      throw error;
    }
    // The work's commit landed; if the database fails now, the retry answers with what it wrote.
    await store.idempotency.complete(scope, key, result).catch((error: unknown) => {
      if (isDatabaseLoss(error)) endedClaims.add(scope, key, claim.token);
      throw error;
    });
    return { result, replayed: false };
  }

  return {
    /** The lease of a claim, in milliseconds. */
    leaseMs,

    /**
     * Forgets keys older than the 24-hour window and claims whose lease ran out (releasing the stock they
     * held); run periodically. Returns how many keys went.
     */
    purgeExpired: async () =>
      (await store.idempotency.purge(new Date(now().getTime() - IDEMPOTENCY_WINDOW_MS))) +
      (await store.idempotency.expireLeases(leaseStart())),

    /**
     * Makes a create use case of `work` (operation names are the use case's own, e.g. `orders.place`):
     * it runs once per Idempotency-Key, scoped to the caller, and its work is handed the claim.
     */
    useCase<I, T>(operation: string, work: CreateWork<I, T>): IdempotentCreate<I, T> {
      return (caller, input, { idempotencyKey, signal } = {}) =>
        run(caller, idempotencyKey, operation, input, (claim) => work(caller, input, claim, signal));
    },
  };
}
