import type { Reservation, Stock } from '../model.js';

/** The outcome of a reservation attempt, decided atomically by the store. */
export type ReserveOutcome =
  | { kind: 'reserved'; reservation: Reservation; stock: Stock; replayed: boolean }
  | { kind: 'unknown-sku' }
  | { kind: 'insufficient'; stock: Stock }
  | { kind: 'mismatch'; reservation: Reservation };

/** Stock and reservations; each change is atomic. */
export interface InventoryStore {
  stock(sku: string): Promise<Stock | undefined>;
  /** Up to `limit` SKUs' stock in SKU order, those after `afterSku` (a keyset page; '' starts). */
  stocks(afterSku: string, limit: number): Promise<Stock[]>;
  /** `beforeCommit` may throw to roll the reservation back (a caller whose deadline passed). */
  reserve(
    orderId: number,
    sku: string,
    quantity: number,
    expiresAt: Date,
    beforeCommit?: () => void,
  ): Promise<ReserveOutcome>;
  /** Releases HELD reservations of the order (one SKU or all); returns the reservations touched. */
  release(orderId: number, sku?: string): Promise<Reservation[]>;
  /** Changes on-hand stock; refused below what is reserved, or above MAX_STOCK. */
  adjust(
    sku: string,
    delta: number,
    beforeCommit?: () => void,
  ): Promise<Stock | 'unknown-sku' | 'below-reserved' | 'above-maximum'>;
  /** Releases HELD reservations whose order never appeared before `now`. */
  expire(now: Date): Promise<number>;
}

/** Per-call options of an outbound call: the caller's abort signal and the time left. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * The inventory service as order placement sees it. In-process by default; the gRPC client of
 * `inventory.v1.Inventory` implements the same port, so deadlines and errors behave the same either way.
 */
export interface InventoryPort {
  reserve(request: { orderId: string; sku: string; quantity: number }, options: CallOptions): Promise<void>;
  release(request: { orderId: string; sku?: string }, options: CallOptions): Promise<void>;
}
