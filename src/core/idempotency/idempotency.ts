import { createHash, randomUUID } from 'node:crypto';
import type { Caller } from '../shared/index.js';
import { canonicalJson, DomainError } from '../shared/index.js';
import { createEndedClaims } from './ended-claims.js';
import { type Idempotent, replayOf } from './idempotent-replay.js';
import { type UseCaseBudget, withinBudget } from './placement-budget.js';

export type { Idempotent } from './idempotent-replay.js';

import type { ClaimCompletion, Store } from '../ports/index.js';

/** How long a key is remembered (docs/decisions.md §3). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** How long a claim holds its key by default before a retry may take it over (IDEMPOTENCY_LEASE_SECONDS). */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 30_000;

/**
 * The claim an idempotent call runs under, handed to its work: the work ties what it holds to the claim,
 * and a retry learns what a dead earlier attempt wrote. Without an Idempotency-Key it holds nothing.
 */
export interface ClaimHold {
  /** When the call began, before its claim was taken: its budget runs from here. */
  readonly startedAt: number;
  /**
   * The order an earlier, dead attempt of this call wrote before it could complete the claim (its process
   * died, or the database failed under it): the retry answers with that order.
   */
  readonly heldOrderId?: number;
  /**
   * Records that this call holds stock for `orderId`: if the process dies before the call completes,
   * whoever takes over or sweeps the expired claim releases that stock. Fails with IDEMPOTENCY_KEY_IN_USE
   * when a retry took the claim over.
   */
  hold(orderId: number): Promise<void>;
  /**
   * The claim as the work's final write can complete it in the same statement (`ClaimCompletion`, fenced by
   * the claim's token); undefined without an Idempotency-Key. A work that does so calls `completed()`.
   */
  readonly completion: Omit<ClaimCompletion, 'result'> | undefined;
  /** Tells the service that the work's own write completed the claim with its result. */
  completed(): void;
}

/** The answer to a late holder whose claim a retry took over: that retry decides the key's outcome. */
export const claimTakenOver = (retryAfter = 1) =>
  new DomainError(
    'IDEMPOTENCY_KEY_IN_USE',
    `This request outlived its hold on the Idempotency-Key and a retry took it over; it changed nothing. Retry in ${retryAfter} s (Retry-After) to get the retry's outcome.`,
    undefined,
    undefined,
    retryAfter,
  );

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

const noClaim = (): ClaimHold => ({
  startedAt: Date.now(),
  hold: () => Promise.resolve(),
  completion: undefined,
  completed: () => undefined,
});

const isDatabaseLoss = (error: unknown) => error instanceof DomainError && error.code === 'DATABASE_UNAVAILABLE';
const isOutOfBudget = (error: unknown) => error instanceof DomainError && error.code === 'UPSTREAM_TIMEOUT';

/** Gives a claim's key back without waiting; if the database cannot take it now, the claim is marked ended. */
const abandonLater = (
  store: Pick<Store, 'idempotency'>,
  endedClaims: ReturnType<typeof createEndedClaims>,
  { caller, key, token }: Omit<ClaimCompletion, 'result'>,
) => store.idempotency.abandon(caller, key, token).catch(() => endedClaims.add(caller, key, token));

/** What tells one request from another under one key: its operation and its canonical input. */
const fingerprintOf = (operation: string, input: unknown) =>
  createHash('sha256')
    .update(`${operation}\n${canonicalJson(input)}`)
    .digest('base64url');

/** The claim `completion` names, as its work holds it. */
function claimHold(
  store: Pick<Store, 'idempotency'>,
  completion: Omit<ClaimCompletion, 'result'>,
  startedAt: number,
  heldOrderId: number | undefined,
  completed: () => void,
): ClaimHold {
  const { caller, key, token } = completion;
  return {
    startedAt,
    ...(heldOrderId === undefined ? {} : { heldOrderId }),
    async hold(orderId) {
      if (!(await store.idempotency.hold(caller, key, token, orderId))) throw claimTakenOver();
    },
    completion,
    completed,
  };
}

/**
 * Runs the work of a claim taken and settles the claim: completed with the result (by the work's own
 * write, or here), abandoned when the work failed, or marked ended when the database was lost under it.
 */
async function runClaimed<T>(
  store: Pick<Store, 'idempotency'>,
  endedClaims: ReturnType<typeof createEndedClaims>,
  completion: Omit<ClaimCompletion, 'result'>,
  startedAt: number,
  heldOrderId: number | undefined,
  work: (claim: ClaimHold) => Promise<T>,
): Promise<Idempotent<T>> {
  const { caller: scope, key, token } = completion;
  let completedByWork = false;
  let result: T;
  try {
    result = await work(claimHold(store, completion, startedAt, heldOrderId, () => (completedByWork = true)));
  } catch (error) {
    // A lost database leaves the outcome unknown (the last commit may have landed): the claim stays,
    // and the retry answers with what was written, if anything. This request is over, so a retry need
    // not wait out the lease: the claim is marked ended (here at once, in the database once it is back).
    // A claim taken over is the retry's now: abandoning changes nothing then (the token fences it).
    // A request out of budget is answered at once: its key is given back on the way.
    if (isDatabaseLoss(error)) endedClaims.add(scope, key, token);
    else if (isOutOfBudget(error)) void abandonLater(store, endedClaims, completion);
    else await store.idempotency.abandon(scope, key, token);
    throw error;
  }
  if (completedByWork) return { result, replayed: false };
  // The work's commit landed; if the database fails now, the retry answers with what it wrote. A claim
  // taken over meanwhile is not overwritten (the token fences it): the retry's outcome stands.
  await store.idempotency.complete(scope, key, token, result).catch((error: unknown) => {
    if (isDatabaseLoss(error)) endedClaims.add(scope, key, token);
    throw error;
  });
  return { result, replayed: false };
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
    budget?: UseCaseBudget,
  ): Promise<Idempotent<T>> {
    if (key === undefined) return { result: await work(noClaim()), replayed: false };
    const startedAt = Date.now();
    // Keys belong to the caller's user, whichever key or interface they come through.
    const scope = `user:${caller.userId}`;
    const fingerprint = fingerprintOf(operation, input);
    const since = new Date(now().getTime() - IDEMPOTENCY_WINDOW_MS);
    const ended = endedClaims.tokenOf(scope, key);
    const token = randomUUID();
    const claiming = store.idempotency
      .claim(scope, key, operation, fingerprint, since, leaseStart(), ended, token)
      .catch((error: unknown) => {
        // The claim may have landed with its answer lost: end it, as a request over (by its token).
        if (isDatabaseLoss(error)) endedClaims.add(scope, key, token);
        throw error;
      });
    const claim = await withinBudget(claiming, startedAt, budget, (token) =>
      abandonLater(store, endedClaims, { caller: scope, key, token }),
    );
    if (claim.kind !== 'claimed') return replayOf<T>(claim, fingerprint, secondsUntil, leaseMs);
    endedClaims.forget(scope, key);
    return runClaimed(
      store,
      endedClaims,
      { caller: scope, key, token: claim.token },
      startedAt,
      claim.heldOrderId,
      work,
    );
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
    useCase<I, T>(operation: string, work: CreateWork<I, T>, budget?: UseCaseBudget): IdempotentCreate<I, T> {
      return (caller, input, { idempotencyKey, signal } = {}) =>
        run(caller, idempotencyKey, operation, input, (claim) => work(caller, input, claim, signal), budget);
    },
  };
}
