import { DomainError } from './errors.js';
import type { Reservation, Stock } from './model.js';
import type { Store } from './ports/index.js';

/** How long a reservation whose order never appeared holds stock (docs/decisions.md §9). */
export const RESERVATION_TTL_MS = 10 * 60 * 1000;

/** The most units of one SKU on hand (the stock columns are 32-bit integers). */
export const MAX_STOCK = 2_147_483_647;

/** The inventory rules: reserve, release, adjust and report stock per SKU. */
export type InventoryService = ReturnType<typeof createInventoryService>;

const parseOrderId = (orderId: string): number => {
  if (!/^[1-9]\d{0,15}$/.test(orderId)) {
    throw new DomainError('VALIDATION_FAILED', 'order_id must be a positive integer as a decimal string.');
  }
  return Number(orderId);
};

const requireSku = (sku: string): string => {
  if (sku.trim() === '') throw new DomainError('VALIDATION_FAILED', 'sku is required.');
  if (sku.includes('\u0000')) throw new DomainError('VALIDATION_FAILED', 'sku must not contain a NUL character.');
  return sku;
};

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

/** Creates the inventory service over the store; `now` is injectable for expiry tests. */
export function createInventoryService(store: Pick<Store, 'inventory'>, now: () => Date = () => new Date()) {
  return {
    /** Holds stock for one order line; idempotent per (order, SKU) for the same quantity. */
    async reserve(
      orderId: string,
      sku: string,
      quantity: number,
      options?: WriteOptions,
    ): Promise<{ reservation: Reservation; stock: Stock; replayed: boolean }> {
      const id = parseOrderId(orderId);
      requireSku(sku);
      if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_STOCK) {
        throw new DomainError('VALIDATION_FAILED', 'quantity must be a positive integer.');
      }
      const expiresAt = new Date(now().getTime() + RESERVATION_TTL_MS);
      const outcome = await store.inventory.reserve(id, sku, quantity, expiresAt, deadlineGuard(options));
      switch (outcome.kind) {
        case 'reserved':
          return outcome;
        case 'unknown-sku':
          throw new DomainError('SKU_NOT_FOUND', `There is no stock record for SKU ${sku}.`);
        case 'insufficient':
          throw new DomainError(
            'INSUFFICIENT_STOCK',
            `Only ${outcome.stock.onHand - outcome.stock.reserved} of ${sku} are available; ${quantity} were requested.`,
          );
        case 'mismatch':
          throw new DomainError(
            'RESERVATION_MISMATCH',
            `Order ${orderId} already holds ${outcome.reservation.quantity} of ${sku}; a retry must ask for the same quantity.`,
          );
      }
    },

    /** Gives back what an order holds (one SKU or all); releasing twice is not an error. */
    async release(orderId: string, sku?: string): Promise<Reservation[]> {
      const id = parseOrderId(orderId);
      const released = await store.inventory.release(id, sku || undefined);
      if (released.length === 0) {
        throw new DomainError(
          'RESERVATION_NOT_FOUND',
          `Order ${orderId} holds no reservation${sku ? ` of ${sku}` : ''}.`,
        );
      }
      return released;
    },

    /** Reports the stock of one SKU. */
    async stock(sku: string): Promise<Stock> {
      const stock = await store.inventory.stock(requireSku(sku));
      if (!stock) throw new DomainError('SKU_NOT_FOUND', `There is no stock record for SKU ${sku}.`);
      return stock;
    },

    /** Applies a signed change to the on-hand quantity. */
    async adjust(sku: string, delta: number, options?: WriteOptions): Promise<Stock> {
      requireSku(sku);
      if (!Number.isInteger(delta) || delta === 0)
        throw new DomainError('VALIDATION_FAILED', 'delta must be a non-zero integer.');
      const result = await store.inventory.adjust(sku, delta, deadlineGuard(options));
      if (result === 'unknown-sku') throw new DomainError('SKU_NOT_FOUND', `There is no stock record for SKU ${sku}.`);
      if (result === 'above-maximum') {
        throw new DomainError('VALIDATION_FAILED', `delta would take on-hand stock of ${sku} above ${MAX_STOCK}.`);
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
