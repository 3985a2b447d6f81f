import type { ReserveLine, ReserveOutcome, Store } from '../ports/index.js';
import type { Reservation, Stock } from '../shared/index.js';
import { DomainError } from '../shared/index.js';

/** How long a reservation whose order never appeared holds stock (docs/decisions.md §9). */
export const RESERVATION_TTL_MS = 10 * 60 * 1000;

/** The most units of one SKU on hand (the stock columns are 32-bit integers). */
export const MAX_STOCK = 2_147_483_647;

/** The inventory rules: reserve, release, adjust and report stock per SKU. */
export type InventoryService = ReturnType<typeof createInventoryService>;

/** Per-call options of an inventory write: the caller's deadline (epoch milliseconds) and abort signal. */
export interface WriteOptions {
  deadline?: number;
  signal?: AbortSignal;
}

/**
 * The last check before a write commits: a caller whose deadline passed has been told DEADLINE_EXCEEDED
 * (or soon will be), so the write must not land. The timer of a deadline may not have fired yet when
 * the work never yielded to it (PGlite runs in-process), hence the clock as well as the signal.
 */
const deadlineGuard =
  ({ deadline, signal }: WriteOptions = {}) =>
  () => {
    if (signal?.aborted || (deadline !== undefined && Date.now() >= deadline)) {
      throw new DomainError(
        'UPSTREAM_TIMEOUT',
        'The deadline passed before the change was committed; nothing changed.',
      );
    }
  };

/** Why lines could not be held, as the caller is told. */
function reserveFailure(orderId: string, outcome: Exclude<ReserveOutcome, { kind: 'reserved' }>): DomainError {
  switch (outcome.kind) {
    case 'unknown-sku':
      return new DomainError('SKU_NOT_FOUND', `There is no stock record for SKU ${outcome.sku}.`);
    case 'insufficient': {
      const { stock, quantity } = outcome;
      return new DomainError(
        'INSUFFICIENT_STOCK',
        `Only ${stock.onHand - stock.reserved} of ${stock.sku} are available; ${quantity} were requested.`,
      );
    }
    case 'mismatch':
      return new DomainError(
        'RESERVATION_MISMATCH',
        `Order ${orderId} already holds ${outcome.reservation.quantity} of ${outcome.reservation.sku}; a retry must ask for the same quantity.`,
      );
  }
}

/** Creates the inventory service over the store; `now` is injectable for expiry tests. */
export function createInventoryService(store: Pick<Store, 'inventory'>, now: () => Date = () => new Date()) {
  async function stockOf(sku: string): Promise<Stock> {
    const stock = await store.inventory.stock(sku);
    if (!stock) throw new DomainError('SKU_NOT_FOUND', `There is no stock record for SKU ${sku}.`);
    return stock;
  }

  async function reserveOrder(
    orderId: string,
    lines: readonly ReserveLine[],
    options?: WriteOptions,
  ): Promise<{ reservations: Reservation[]; stocks: Stock[]; replayed: boolean }> {
    const expiresAt = new Date(now().getTime() + RESERVATION_TTL_MS);
    const outcome = await store.inventory.reserve(Number(orderId), lines, expiresAt, deadlineGuard(options));
    if (outcome.kind === 'reserved') return outcome;
    throw reserveFailure(orderId, outcome);
  }

  return {
    /**
     * Holds stock for every line of one order, all or nothing; idempotent per (order, SKU) for the same
     * quantity. Fails as `reserve` would for the first line, in SKU order, that cannot be held.
     */
    reserveOrder,

    /** Holds stock for one order line; idempotent per (order, SKU) for the same quantity. */
    async reserve(
      orderId: string,
      sku: string,
      quantity: number,
      options?: WriteOptions,
    ): Promise<{ reservation: Reservation; stock: Stock; replayed: boolean }> {
      const { reservations, stocks, replayed } = await reserveOrder(orderId, [{ sku, quantity }], options);
      return { reservation: reservations[0] as Reservation, stock: stocks[0] as Stock, replayed };
    },

    /** Gives back what an order holds (one SKU or all); releasing twice is not an error. */
    async release(orderId: string, sku?: string): Promise<Reservation[]> {
      const released = await store.inventory.release(Number(orderId), sku || undefined);
      if (released.length === 0) {
        throw new DomainError(
          'RESERVATION_NOT_FOUND',
          `Order ${orderId} holds no reservation${sku ? ` of ${sku}` : ''}.`,
        );
      }
      return released;
    },

    /** Reports the stock of one SKU. */
    stock: stockOf,

    /** Applies a signed change to the on-hand quantity; a change of 0 writes nothing and reports the stock. */
    async adjust(sku: string, delta: number, options?: WriteOptions): Promise<Stock> {
      if (delta === 0) return stockOf(sku);
      const result = await store.inventory.adjust(sku, delta, deadlineGuard(options));
      if (result === 'unknown-sku') throw new DomainError('SKU_NOT_FOUND', `There is no stock record for SKU ${sku}.`);
      if (result === 'above-maximum') {
        const message = `would take on-hand stock above ${MAX_STOCK}`;
        throw new DomainError('VALIDATION_FAILED', `delta ${message} (${sku}).`, [
          { in: 'body', name: 'delta', message },
        ]);
      }
      if (result === 'below-reserved') {
        throw new DomainError(
          'STOCK_BELOW_RESERVED',
          `Changing ${sku} by ${delta} would take on-hand stock below what is reserved.`,
        );
      }
      return result;
    },

    /** Releases reservations whose order never appeared within the time-to-live. */
    expireStale: () => store.inventory.expire(now()),
  };
}
