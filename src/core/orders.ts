import { type Caller, canSee, requireAdmin } from './caller.js';
import type { CursorCodec } from './cursor.js';
import { DomainError } from './errors.js';
import type { Address, Cancellation, Order, OrderHead, OrderItem, Shipment, ShipmentStatus } from './model.js';
import { createOrderPlacement, type OrderPlacementStore } from './order-placement.js';
import { isPaid, type OrderStatus, transition } from './order-state.js';
import { type ListInput, type Page, pageInMemory, pageSize, parseSort, readPage } from './paging.js';
import type { InventoryPort, KeysetQuery, OrderChange, OrderFilters } from './ports.js';
import { checkVersion, retryStale } from './versions.js';

export type { OrderLine, PlaceOrderInput } from './order-placement.js';

/** A merge patch of an order: absent = unchanged, `null` clears. */
export interface OrderPatch {
  status?: OrderStatus;
  shippingAddress?: Address;
  note?: string | null;
  couponCode?: string | null;
}

/** The full writable state of an order (PUT). */
export interface OrderReplacement {
  status: OrderStatus;
  shippingAddress: Address;
  note?: string | null;
  couponCode?: string | null;
}

/** A list request of orders. */
export interface OrderListInput extends ListInput {
  filters?: OrderFilters;
}

/** Sort keys of the order list and the columns' values they page on. */
export const ORDER_SORT_FIELDS = ['createdAt', 'amount', 'id'] as const;

const shipmentStatusOf: Partial<Record<OrderStatus, ShipmentStatus>> = {
  PAID: 'PREPARING',
  SHIPPED: 'SHIPPED',
  DELIVERED: 'DELIVERED',
};

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

/** Creates the order service. */
export function createOrderService({ store, inventory, cursors, requestTimeoutMs }: OrderServiceDeps) {
  async function visibleOrder(caller: Caller, id: number): Promise<Order> {
    const order = await store.orders.get(id);
    // Another user's order is "not found", so that ids cannot be probed (docs/decisions.md §4).
    if (!order || !canSee(caller, order.userId)) throw new DomainError('ORDER_NOT_FOUND', `There is no order ${id}.`);
    return order;
  }

  const place = createOrderPlacement({ store, inventory, requestTimeoutMs });

  /** A page of orders (or heads), keyset-paged over a whitelisted sort, within what the caller may see. */
  async function listPage<T extends OrderHead>(
    caller: Caller,
    input: OrderListInput,
    fetch: (query: KeysetQuery<OrderFilters>) => Promise<T[]>,
  ): Promise<Page<T>> {
    const sort = parseSort(input.sort, ORDER_SORT_FIELDS, '-createdAt');
    const filters = scopeFilters(caller, input.filters ?? {});
    if (!filters) {
      pageSize(input.size);
      return { items: [], hasNext: false, ...(input.withTotal ? { totalCount: 0 } : {}) };
    }
    return readPage<T>({
      cursors,
      sort,
      size: input.size,
      cursor: input.cursor,
      filters: filters as Record<string, unknown>,
      withTotal: input.withTotal,
      fetch: (after, limit) => fetch({ filters, sort, limit, ...(after ? { after } : {}) }),
      count: () => store.orders.count(filters),
      keys: orderKeys,
    });
  }

  return {
    /** Places an order: reserve every line, then write the order; all or nothing. */
    place,
    /** One order of the caller (any order for an admin). */
    get: visibleOrder,

    /** Several orders by id, for batched reads; invisible ones are left out. */
    async getMany(caller: Caller, ids: readonly number[]): Promise<Order[]> {
      return (await store.orders.getMany(ids)).filter((order) => canSee(caller, order.userId));
    },

    /** The shipments of orders the caller already holds (batched reads). */
    shipmentsOf: (orders: readonly OrderHead[]): Promise<Shipment[]> => store.orders.shipments(orders.map((o) => o.id)),

    /** The cancellation records of orders the caller already holds (batched reads). */
    cancellationsOf: (orders: readonly OrderHead[]): Promise<Cancellation[]> =>
      store.orders.cancellations(orders.map((o) => o.id)),

    /** A page of orders, keyset-paged over a whitelisted sort. */
    list: (caller: Caller, input: OrderListInput = {}): Promise<Page<Order>> =>
      listPage(caller, input, (query) => store.orders.list(query)),

    /** The same page without the items, for readers that load them only when asked (`itemsOf`). */
    listHeads: (caller: Caller, input: OrderListInput = {}): Promise<Page<OrderHead>> =>
      listPage(caller, input, (query) => store.orders.listHeads(query)),

    /** The items of orders the caller already holds (batched reads). */
    itemsOf: (orders: readonly OrderHead[]): Promise<OrderItem[]> => store.orders.items(orders.map((o) => o.id)),

    /** A page of an order's items (sorted by `id` or `sku`). */
    async itemPage(caller: Caller, orderId: number, input: ListInput = {}): Promise<Page<OrderItem>> {
      const order = await visibleOrder(caller, orderId);
      return pageInMemory(order.items as unknown as Record<string, unknown>[], {
        cursors,
        sort: parseSort(input.sort, ['id', 'sku'], 'id'),
        size: input.size,
        cursor: input.cursor,
        filters: { orderId },
        withTotal: input.withTotal,
      }) as unknown as Promise<Page<OrderItem>>;
    },

    /** One order item, wherever it is, if its order is visible. */
    async item(caller: Caller, itemId: number): Promise<OrderItem> {
      const orderId = await store.orders.orderOfItem(itemId);
      const order = orderId === undefined ? undefined : await store.orders.get(orderId);
      const item = order && canSee(caller, order.userId) ? order.items.find((line) => line.id === itemId) : undefined;
      if (!item) throw new DomainError('ORDER_ITEM_NOT_FOUND', `There is no order item ${itemId}.`);
      return item;
    },

    /** Changes an order (merge patch); status moves follow the state machine. */
    async update(caller: Caller, id: number, patch: OrderPatch, ifMatchVersion?: number): Promise<Order> {
      return retryStale(ifMatchVersion, async () => {
        const order = await visibleOrder(caller, id);
        return applyChange(
          caller,
          order,
          {
            status: patch.status ?? order.status,
            shippingAddress: patch.shippingAddress ?? order.shippingAddress,
            note: patch.note === undefined ? order.note : patch.note,
            couponCode: patch.couponCode === undefined ? order.couponCode : patch.couponCode,
          },
          ifMatchVersion,
        );
      });
    },

    /** Replaces the writable state of an order; `note` and `couponCode` are cleared when absent. */
    async replace(caller: Caller, id: number, replacement: OrderReplacement, ifMatchVersion?: number): Promise<Order> {
      return retryStale(ifMatchVersion, async () => {
        const order = await visibleOrder(caller, id);
        return applyChange(
          caller,
          order,
          {
            status: replacement.status,
            shippingAddress: replacement.shippingAddress,
            note: replacement.note ?? null,
            couponCode: replacement.couponCode ?? null,
          },
          ifMatchVersion,
        );
      });
    },

    /** Cancels an order with a record; a second cancellation is ALREADY_CANCELED. */
    async cancel(caller: Caller, id: number, reason?: string): Promise<Cancellation> {
      await retryStale(undefined, async () => {
        const order = await visibleOrder(caller, id);
        if (order.status === 'CANCELED') throw new DomainError('ALREADY_CANCELED', `Order ${id} is already canceled.`);
        await applyChange(caller, order, { ...order, status: 'CANCELED' }, undefined, reason ?? null);
      });
      const record = await store.orders.cancellation(id);
      if (!record) throw new Error(`order ${id} was canceled without a cancellation record`);
      return record;
    },

    /** Deletes a PENDING or CANCELED order (admins only) and releases its stock. */
    async remove(caller: Caller, id: number, ifMatchVersion?: number): Promise<void> {
      const order = await visibleOrder(caller, id);
      requireAdmin(caller, 'delete orders');
      if (order.status !== 'PENDING' && order.status !== 'CANCELED') {
        throw new DomainError('INVALID_TRANSITION', `A ${order.status} order cannot be deleted; cancel it first.`);
      }
      checkVersion(order, ifMatchVersion, () => stale(order.id));
      if ((await store.orders.delete(id, order.version)) === 'stale') throw stale(id);
    },

    /** The items of an order. */
    async items(caller: Caller, orderId: number): Promise<OrderItem[]> {
      return (await visibleOrder(caller, orderId)).items;
    },

    /** The shipment of an order; not found while PENDING or when canceled before payment. */
    async shipment(caller: Caller, orderId: number): Promise<Shipment> {
      await visibleOrder(caller, orderId);
      const shipment = await store.orders.shipment(orderId);
      if (!shipment) throw new DomainError('SHIPMENT_NOT_FOUND', `Order ${orderId} has no shipment yet.`);
      return shipment;
    },

    /** Sets a shipment's carrier data (admins only); a merge patch: absent = unchanged, `null` clears. */
    async updateShipment(
      caller: Caller,
      orderId: number,
      patch: { carrier?: string | null; trackingNumber?: string | null },
    ): Promise<Shipment> {
      await visibleOrder(caller, orderId);
      requireAdmin(caller, 'change shipments');
      const shipment = await store.orders.shipment(orderId);
      if (!shipment) throw new DomainError('SHIPMENT_NOT_FOUND', `Order ${orderId} has no shipment yet.`);
      const updated = await store.orders.updateShipment(orderId, {
        carrier: patch.carrier === undefined ? shipment.carrier : patch.carrier,
        trackingNumber: patch.trackingNumber === undefined ? shipment.trackingNumber : patch.trackingNumber,
      });
      if (!updated) throw new DomainError('SHIPMENT_NOT_FOUND', `Order ${orderId} has no shipment yet.`);
      return updated;
    },

    /** The cancellation record of an order. */
    async cancellation(caller: Caller, orderId: number): Promise<Cancellation> {
      await visibleOrder(caller, orderId);
      const record = await store.orders.cancellation(orderId);
      if (!record) throw new DomainError('CANCELLATION_NOT_FOUND', `Order ${orderId} was not canceled.`);
      return record;
    },
  };

  async function applyChange(
    caller: Caller,
    order: Order,
    next: Pick<Order, 'status' | 'shippingAddress' | 'note' | 'couponCode'>,
    ifMatchVersion: number | undefined,
    reason: string | null = null,
  ): Promise<Order> {
    checkVersion(order, ifMatchVersion, () => stale(order.id));
    const move = transition(order.status, next.status);
    if (move.kind === 'invalid') {
      throw new DomainError('INVALID_TRANSITION', `An order cannot move from ${order.status} to ${next.status}.`);
    }
    if (move.kind === 'forward') requireAdmin(caller, 'move an order forward; customers may only cancel');
    const unchanged =
      move.kind === 'unchanged' &&
      next.note === order.note &&
      next.couponCode === order.couponCode &&
      sameAddress(next.shippingAddress, order.shippingAddress);
    if (unchanged) return order;

    const change: OrderChange = { orderId: order.id, version: order.version, ...next };
    if (move.kind === 'forward') {
      const status = shipmentStatusOf[next.status];
      if (status) change.shipment = { status, create: !isPaid(order.status) };
      if (next.status === 'SHIPPED' || next.status === 'DELIVERED') change.reservations = 'consume';
    }
    if (move.kind === 'cancel') {
      change.cancellation = { reason, refundAmount: isPaid(order.status) ? order.amount : 0 };
      change.reservations = 'release';
    }
    const updated = await store.orders.change(change);
    if (updated === 'stale') throw stale(order.id);
    return updated;
  }
}

/** Restricts a customer to their own orders; `undefined` means "nothing can match". */
function scopeFilters(caller: Caller, filters: OrderFilters): OrderFilters | undefined {
  if (caller.role === 'admin') return filters;
  if (filters.userId !== undefined && filters.userId !== caller.userId) return undefined;
  return { ...filters, userId: caller.userId };
}

function orderKeys(order: OrderHead, sort: ReturnType<typeof parseSort>): Array<string | number> {
  return sort.map(({ field }) =>
    field === 'createdAt' ? order.createdAt.toISOString() : field === 'amount' ? order.amount : order.id,
  );
}

function stale(id: number): DomainError {
  return new DomainError('PRECONDITION_FAILED', `Order ${id} changed since it was read.`);
}

function sameAddress(a: Address, b: Address): boolean {
  return a.zipCode === b.zipCode && a.line1 === b.line1 && (a.line2 ?? null) === (b.line2 ?? null);
}
