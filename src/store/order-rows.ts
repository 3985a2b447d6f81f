import type { Address, Cancellation, Order, OrderHead, OrderItem, Shipment } from '../core/shared/model.js';
import { minor } from '../core/shared/money.js';
import type { OrderStatus } from '../core/shared/order-state.js';
import type { Queryable } from './database.js';

/** Row shapes as PostgreSQL returns them. */
export interface OrderRow {
  id: number;
  user_id: number;
  status: OrderStatus;
  amount_minor: number;
  shipping_address: Address;
  note: string | null;
  coupon_code: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

/** The columns an `OrderRow` reads (not the search text), each prefixed with `alias.` when one is given. */
export function orderRowColumns(alias?: string): string {
  const columns = [
    'id',
    'user_id',
    'status',
    'amount_minor',
    'shipping_address',
    'note',
    'coupon_code',
    'created_at',
    'updated_at',
    'version',
  ];
  return columns.map((column) => (alias ? `${alias}.${column}` : column)).join(', ');
}

interface ItemRow {
  id: number;
  order_id: number;
  product_id: number;
  sku: string;
  quantity: number;
  unit_price_minor: number;
  amount_minor: number;
}

/** Maps an order row, without its items. */
export function toOrderHead(row: OrderRow): OrderHead {
  return {
    id: row.id,
    userId: row.user_id,
    amount: minor(row.amount_minor),
    status: row.status,
    shippingAddress: row.shipping_address,
    note: row.note,
    couponCode: row.coupon_code,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
  };
}

/** The items of several orders in one statement, by order and id. */
export async function itemsOf(db: Queryable, orderIds: readonly number[]): Promise<OrderItem[]> {
  if (orderIds.length === 0) return [];
  const rows = await db.query<ItemRow>(
    'SELECT * FROM order_items WHERE order_id = ANY($1::bigint[]) ORDER BY order_id, id',
    [orderIds],
  );
  return rows.map((item) => ({
    id: item.id,
    orderId: item.order_id,
    productId: item.product_id,
    sku: item.sku,
    quantity: item.quantity,
    unitPrice: minor(item.unit_price_minor),
    amount: minor(item.amount_minor),
  }));
}

/** Loads the items of several orders in one statement and assembles the orders. */
export async function withItems(db: Queryable, rows: OrderRow[]): Promise<Order[]> {
  if (rows.length === 0) return [];
  const byOrder = new Map<number, OrderItem[]>();
  for (const item of await itemsOf(
    db,
    rows.map((row) => row.id),
  )) {
    const list = byOrder.get(item.orderId) ?? [];
    list.push(item);
    byOrder.set(item.orderId, list);
  }
  // Object.assign adds the items to the fresh head; a spread would copy the head into another object.
  return rows.map((row) => Object.assign(toOrderHead(row), { items: byOrder.get(row.id) ?? [] }));
}

/** Maps a shipment row. */
export function toShipment(row: Record<string, unknown>): Shipment {
  return {
    id: row.id as number,
    orderId: row.order_id as number,
    status: row.status as Shipment['status'],
    carrier: row.carrier as string | null,
    trackingNumber: row.tracking_number as string | null,
    shippedAt: row.shipped_at as Date | null,
    deliveredAt: row.delivered_at as Date | null,
  };
}

/** Maps a cancellation row. */
export function toCancellation(row: Record<string, unknown>): Cancellation {
  return {
    id: row.id as number,
    orderId: row.order_id as number,
    reason: row.reason as string | null,
    refundAmount: minor(row.refund_minor as number),
    createdAt: row.created_at as Date,
  };
}
