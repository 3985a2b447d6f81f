import type { CursorCodec } from './cursor.js';
import { createOrderChanges } from './order-changes.js';
import { createOrderPlacement, type OrderPlacementStore } from './order-placement.js';
import { createOrderReads } from './order-reads.js';
import type { InventoryPort } from './ports/index.js';

export type { OrderPatch, OrderReplacement, ShipmentPatch } from './order-changes.js';
export type { OrderLine, PlaceOrderInput } from './order-placement.js';
export { ORDER_SORT_FIELDS, type OrderListInput } from './order-reads.js';

/** Dependencies of the order service. */
export interface OrderServiceDeps {
  store: OrderPlacementStore;
  inventory: InventoryPort;
  cursors: CursorCodec;
  /** Budget of an order placement when the caller gives no deadline of its own. */
  requestTimeoutMs: number;
}

/** The order rules: placing with stock reservation, reading, listing, status changes, cancellation. */
export type OrderService = ReturnType<typeof createOrderService>;

/** Creates the order service: placement (order-placement.ts), reads (order-reads.ts), changes (order-changes.ts). */
export function createOrderService({ store, inventory, cursors, requestTimeoutMs }: OrderServiceDeps) {
  return {
    /** Places an order: reserve every line, then write the order; all or nothing. */
    place: createOrderPlacement({ store, inventory, requestTimeoutMs }),
    ...createOrderReads({ orders: store.orders, cursors }),
    ...createOrderChanges(store.orders),
  };
}
