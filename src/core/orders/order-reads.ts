import type { KeysetQuery, OrderFilters, OrderStore } from '../ports/index.js';
import type { Cancellation, CursorCodec, Order, OrderHead, OrderItem, Shipment } from '../shared/index.js';
import {
  type Caller,
  canSee,
  DomainError,
  type ListInput,
  type Page,
  pageInMemory,
  pageSize,
  parseSort,
  readPage,
} from '../shared/index.js';

/** A list request of orders. */
export interface OrderListInput extends ListInput {
  filters?: OrderFilters;
}

/** Sort keys of the order list and the columns' values they page on. */
export const ORDER_SORT_FIELDS = ['createdAt', 'amount', 'id'] as const;

/** What reading orders needs. */
export interface OrderReadDeps {
  orders: OrderStore;
  cursors: CursorCodec;
}

/** Reading orders and what hangs off them, always within what the caller may see. */
export function createOrderReads(deps: OrderReadDeps) {
  const { orders } = deps;
  return {
    /** One order of the caller (any order for an admin). */
    get: (caller: Caller, id: number): Promise<Order> => visibleOrder(orders, caller, id),

    /** Several orders by id, for batched reads; invisible ones are left out. */
    getMany: async (caller: Caller, ids: readonly number[]): Promise<Order[]> =>
      (await orders.getMany(ids)).filter((order) => canSee(caller, order.userId)),

    /** A page of orders, keyset-paged over a whitelisted sort. */
    list: (caller: Caller, input: OrderListInput = {}): Promise<Page<Order>> =>
      listPage(deps, caller, input, (query) => orders.list(query)),

    /** The same page without the items, for readers that load them only when asked (`itemsOf`). */
    listHeads: (caller: Caller, input: OrderListInput = {}): Promise<Page<OrderHead>> =>
      listPage(deps, caller, input, (query) => orders.listHeads(query)),

    /** The items of orders the caller already holds (batched reads). */
    itemsOf: (held: readonly OrderHead[]): Promise<OrderItem[]> => orders.items(held.map((o) => o.id)),

    /** The shipments of orders the caller already holds (batched reads). */
    shipmentsOf: (held: readonly OrderHead[]): Promise<Shipment[]> => orders.shipments(held.map((o) => o.id)),

    /** The cancellation records of orders the caller already holds (batched reads). */
    cancellationsOf: (held: readonly OrderHead[]): Promise<Cancellation[]> =>
      orders.cancellations(held.map((o) => o.id)),

    /** The items of an order. */
    items: async (caller: Caller, orderId: number): Promise<OrderItem[]> =>
      (await visibleOrder(orders, caller, orderId)).items,

    /** A page of an order's items (sorted by `id` or `sku`). */
    itemPage: (caller: Caller, orderId: number, input: ListInput = {}): Promise<Page<OrderItem>> =>
      itemPage(deps, caller, orderId, input),

    /** One order item, wherever it is, if its order is visible. */
    item: (caller: Caller, itemId: number): Promise<OrderItem> => item(orders, caller, itemId),

    /** The shipment of an order; not found while PENDING or when canceled before payment. */
    async shipment(caller: Caller, orderId: number): Promise<Shipment> {
      await visibleOrder(orders, caller, orderId);
      return shipmentOf(orders, orderId);
    },

    /** The cancellation record of an order. */
    async cancellation(caller: Caller, orderId: number): Promise<Cancellation> {
      await visibleOrder(orders, caller, orderId);
      const record = await orders.cancellation(orderId);
      if (!record) throw new DomainError('CANCELLATION_NOT_FOUND', `Order ${orderId} was not canceled.`);
      return record;
    },
  };
}

/**
 * An order the caller may see; another user's order is "not found", so that ids cannot be probed
 * (docs/decisions.md §4).
 */
export async function visibleOrder(orders: OrderStore, caller: Caller, id: number): Promise<Order> {
  const order = await orders.get(id);
  if (!order || !canSee(caller, order.userId)) throw new DomainError('ORDER_NOT_FOUND', `There is no order ${id}.`);
  return order;
}

/** The shipment of an order, or SHIPMENT_NOT_FOUND. */
export async function shipmentOf(orders: OrderStore, orderId: number): Promise<Shipment> {
  const shipment = await orders.shipment(orderId);
  if (!shipment) throw new DomainError('SHIPMENT_NOT_FOUND', `Order ${orderId} has no shipment yet.`);
  return shipment;
}

/** A page of orders (or heads), keyset-paged over a whitelisted sort, within what the caller may see. */
async function listPage<T extends OrderHead>(
  { orders, cursors }: OrderReadDeps,
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
    version: input.cursorVersion,
    fetch: (after, limit) => fetch({ filters, sort, limit, ...(after ? { after } : {}) }),
    count: () => orders.count(filters),
    keys: orderKeys,
  });
}

async function itemPage(
  { orders, cursors }: OrderReadDeps,
  caller: Caller,
  orderId: number,
  input: ListInput,
): Promise<Page<OrderItem>> {
  const order = await visibleOrder(orders, caller, orderId);
  return pageInMemory(order.items as unknown as Record<string, unknown>[], {
    cursors,
    sort: parseSort(input.sort, ['id', 'sku'], 'id'),
    size: input.size,
    cursor: input.cursor,
    filters: { orderId },
    withTotal: input.withTotal,
  }) as unknown as Promise<Page<OrderItem>>;
}

async function item(orders: OrderStore, caller: Caller, itemId: number): Promise<OrderItem> {
  const orderId = await orders.orderOfItem(itemId);
  const order = orderId === undefined ? undefined : await orders.get(orderId);
  const found = order && canSee(caller, order.userId) ? order.items.find((line) => line.id === itemId) : undefined;
  if (!found) throw new DomainError('ORDER_ITEM_NOT_FOUND', `There is no order item ${itemId}.`);
  return found;
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
