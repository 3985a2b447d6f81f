/** The outcome of claiming an idempotency key. */
export type IdempotencyClaim =
  /**
   * `heldOrderId`: a dead claim of the same request was taken over, and the order it wrote exists.
   * `token`: identifies this claim (not a later one of the same key) to `end`.
   */
  | { kind: 'claimed'; token: string; heldOrderId?: number }
  /** `claimedAt`: when the running claim started (its lease runs from then). */
  | { kind: 'in-progress'; fingerprint: string; claimedAt: Date }
  | { kind: 'completed'; fingerprint: string; result: unknown };

/**
 * A claim as the work's own final write completes it, in the same statement: only while the claim is
 * still the one `token` names (`IN_PROGRESS`, not taken over), else that write changes nothing.
 */
export interface ClaimCompletion {
  caller: string;
  key: string;
  token: string;
  result: unknown;
}

/**
 * Idempotency keys and their claims. Every write of a claim's holder names the claim by its `token`: a
 * claim taken over (its lease ran out, a retry holds the key now) is not changed by its late holder.
 */
export interface IdempotencyStore {
  /**
   * Claims a key; a row older than `since`, or still in progress since before `leaseStart`, or whose
   * claim ended (`end`, or `endedToken` from this instance) is taken over (releasing the stock its claim
   * held for an order that was never written). `token` names the new claim: chosen by the caller before
   * it is sent, so that a claim whose answer was lost can still be ended.
   */
  claim(
    caller: string,
    key: string,
    operation: string,
    fingerprint: string,
    since: Date,
    leaseStart: Date,
    endedToken: string | undefined,
    token: string,
  ): Promise<IdempotencyClaim>;
  /** Marks a claim still in progress as ended (its request is over, its outcome unknown). */
  end(caller: string, key: string, token: string): Promise<void>;
  /** Records that the claim holds stock reserved for `orderId`; false when the claim was taken over. */
  hold(caller: string, key: string, token: string, orderId: number): Promise<boolean>;
  /** Stores the result of the claim; false when the claim was taken over. */
  complete(caller: string, key: string, token: string, result: unknown): Promise<boolean>;
  /** Frees the key of a claim whose work failed; false when the claim was taken over. */
  abandon(caller: string, key: string, token: string): Promise<boolean>;
  /** Forgets keys claimed before `before`; returns how many. */
  purge(before: Date): Promise<number>;
  /** Drops claims still in progress since before `leaseStart` and releases their stock; returns how many. */
  expireLeases(leaseStart: Date): Promise<number>;
}
