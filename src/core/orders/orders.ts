import type { IdempotencyService } from '../idempotency/index.js';
import type { InventoryPort } from '../ports/index.js';
import type { Caller, Cancellation, CursorCodec, Order } from '../shared/index.js';
import { DomainError, splitVat, type VatSplit } from '../shared/index.js';
import { createOrderChanges } from './order-changes.js';
import { createPlaceOrder, type OrderPlacementStore } from './order-placement.js';
import { createOrderReads } from './order-reads.js';

export type { OrderPatch, OrderReplacement, ShipmentPatch } from './order-changes.js';
export type { OrderLine, PlaceOrder, PlaceOrderInput } from './order-placement.js';
export { ORDER_SORT_FIELDS, type OrderListInput } from './order-reads.js';

/** An order's amount split into supply and VAT, in minor units; `supply + vat === total`. */
export type AmountDetail = VatSplit;

/** Dependencies of the order service. */
export interface OrderServiceDeps {
  store: OrderPlacementStore;
  inventory: InventoryPort;
  cursors: CursorCodec;
  idempotency: IdempotencyService;
  /** Budget of an order placement. */
  requestTimeoutMs: number;
  /** The VAT rate included in totals, e.g. 0.1. */
  vatRate: number;
  /** The most units of one order item (lines of one product merged): `OrderItem.quantity`'s maximum. */
  maxItemQuantity: number;
  /** How long an order may stay PENDING (unpaid) before the server cancels it (UNPAID_ORDER_MINUTES). */
  unpaidOrderMs?: number;
}

/** Who cancels an unpaid order: the server itself, with an admin's rights and no key. */
const SERVER: Caller = { userId: 0, role: 'admin', apiKeyId: null };
/** The reason an expired order's cancellation record carries. */
export const UNPAID_REASON = 'unpaid: not paid in time, canceled by the server';

/** A cancellation as a create: the order and the optional reason. */
export interface CancelInput {
  orderId: number;
  reason?: string;
}

/** The order rules: placing with stock reservation, reading, listing, status changes, cancellation. */
export type OrderService = ReturnType<typeof createOrderService>;

/** Creates the order service: placement (order-placement.ts), reads (order-reads.ts), changes (order-changes.ts). */
export function createOrderService(deps: OrderServiceDeps) {
  const { store, cursors, idempotency, vatRate } = deps;
  const { cancel, ...changes } = createOrderChanges(store.orders);
  return {
    /** The order's amount split into supply and VAT (included in the total), in minor units. */
    amountDetail: (order: Pick<Order, 'amount'>): AmountDetail => splitVat(order.amount, vatRate),
    /** Places an order: reserve every line, then write the order; all or nothing; idempotent per key. */
    place: createPlaceOrder(deps),
    /** Cancels an order with a record; a second cancellation is ALREADY_CANCELED; idempotent per key. */
    cancel: idempotency.useCase(
      'orders.cancel',
      (caller, { orderId, reason }: CancelInput): Promise<Cancellation> => cancel(caller, orderId, reason),
    ),
    ...createOrderReads({ orders: store.orders, cursors }),
    ...changes,
    /**
     * Cancels the orders still PENDING `unpaidOrderMs` after they were placed (those placed before the
     * rule existed keep theirs), which releases their stock and writes `order.canceled`; at most 100 a
     * call. Another instance canceling one first is not an error. Returns how many it canceled.
     */
    async expireUnpaid(): Promise<number> {
      if (!deps.unpaidOrderMs) return 0;
      const due = await store.orders.unpaidOlderThan(deps.unpaidOrderMs, 100);
      let canceled = 0;
      for (const id of due) {
        const outcome = await cancel(SERVER, id, UNPAID_REASON, 'PENDING').then(
          () => true,
          (error: unknown) => {
            if (error instanceof DomainError && ['ALREADY_CANCELED', 'INVALID_TRANSITION'].includes(error.code))
              return false;
            throw error;
          },
        );
        if (outcome) canceled++;
      }
      return canceled;
    },
  };
}
