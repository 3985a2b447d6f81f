/** The outcome of claiming an idempotency key. */
export type IdempotencyClaim =
  /** `heldOrderId`: a dead claim of the same request was taken over, and the order it wrote exists. */
  | { kind: 'claimed'; heldOrderId?: number }
  | { kind: 'in-progress'; fingerprint: string }
  | { kind: 'completed'; fingerprint: string; result: unknown };

/** Idempotency keys and their claims. */
export interface IdempotencyStore {
  /**
   * Claims a key; a row older than `since`, or still in progress since before `leaseStart`, is taken
   * over (releasing the stock its claim held for an order that was never written).
   */
  claim(
    caller: string,
    key: string,
    operation: string,
    fingerprint: string,
    since: Date,
    leaseStart: Date,
  ): Promise<IdempotencyClaim>;
  /** Records that the claim holds stock reserved for `orderId`. */
  hold(caller: string, key: string, orderId: number): Promise<void>;
  complete(caller: string, key: string, result: unknown): Promise<void>;
  abandon(caller: string, key: string): Promise<void>;
  /** Forgets keys claimed before `before`; returns how many. */
  purge(before: Date): Promise<number>;
  /** Drops claims still in progress since before `leaseStart` and releases their stock; returns how many. */
  expireLeases(leaseStart: Date): Promise<number>;
}
