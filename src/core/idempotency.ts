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

/** The answer to a key already claimed: the stored result, or why it cannot be given. */
function replayOf<T>(
  claim: Exclude<Awaited<ReturnType<IdempotencyStore['claim']>>, { kind: 'claimed' }>,
  fingerprint: string,
): Idempotent<T> {
  if (claim.fingerprint !== fingerprint) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with another request; use a new key for a new request.',
    );
  }
  if (claim.kind === 'in-progress') {
    throw new DomainError(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still running; retry later.',
    );
  }
  return { result: JSON.parse(JSON.stringify(claim.result), revive) as T, replayed: true };
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
    const claim = await store.idempotency.claim(scope, key, operation, fingerprint, since, leaseStart());
    if (claim.kind !== 'claimed') return replayOf<T>(claim, fingerprint);
    let result: T;
    try {
      const hold = (orderId: number) => store.idempotency.hold(scope, key, orderId);
      const heldOrderId = claim.kind === 'claimed' ? claim.heldOrderId : undefined;
      result = await work({ hold, ...(heldOrderId === undefined ? {} : { heldOrderId }) });
    } catch (error) {
      // A lost database leaves the outcome unknown (the last commit may have landed): the claim stays
      // until its lease runs out, and the retry then answers with what was written, if anything.
      if (!(error instanceof DomainError && error.code === 'DATABASE_UNAVAILABLE')) {
        await store.idempotency.abandon(scope, key);
      }
      throw error;
    }
    await store.idempotency.complete(scope, key, result);
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
