import type { Reservation, Stock } from '../shared/index.js';

/** One SKU and quantity to hold. */
export interface ReserveLine {
  sku: string;
  quantity: number;
}

/**
 * The outcome of reserving the lines of one order, decided atomically by the store: every line held (in
 * SKU order, `replayed` when every one was held already), or none, and the first line in SKU order that
 * could not be.
 */
export type ReserveOutcome =
  | { kind: 'reserved'; reservations: Reservation[]; stocks: Stock[]; replayed: boolean }
  | { kind: 'unknown-sku'; sku: string }
  | { kind: 'insufficient'; stock: Stock; quantity: number }
  | { kind: 'mismatch'; reservation: Reservation };

/**
 * A stock read together with the `seq` of the last `stock.changed` event of its SKU that the same snapshot
 * sees (0: none): the changes that stock already shows. One SKU's changes take their event `seq` while
 * holding its stock row, so their `seq` order is their commit order.
 */
export interface WatchedStock {
  stock: Stock;
  lastChangeSeq: number;
}

/** Stock and reservations; each change is atomic. */
export interface InventoryStore {
  stock(sku: string): Promise<Stock | undefined>;
  /** The stock of `sku` as a watch starts from it (one statement, one snapshot). */
  watchedStock(sku: string): Promise<WatchedStock | undefined>;
  /** Up to `limit` SKUs' stock in SKU order, those after `afterSku` (a keyset page; '' starts), as `watchedStock`. */
  watchedStocks(afterSku: string, limit: number): Promise<WatchedStock[]>;
  /**
   * Holds every line for the order until `expiresAt` (until its order keeps them), all or nothing, locking
   * the SKUs in sorted order; idempotent per (order, SKU) for the same quantity. Each SKU at most once.
   * `beforeCommit` may throw to roll the reservation back (a caller whose deadline passed).
   */
  reserve(
    orderId: number,
    lines: readonly ReserveLine[],
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
  /** Releases HELD reservations that no order kept and whose time ran out before `now`. */
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
  /** Holds every line of the order, all or nothing (`ReserveOrder`). */
  reserveOrder(request: { orderId: string; lines: readonly ReserveLine[] }, options: CallOptions): Promise<void>;
  release(request: { orderId: string; sku?: string }, options: CallOptions): Promise<void>;
}
