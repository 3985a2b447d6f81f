import type { KeysetQuery, OrderChange, OrderFilters, Store } from '../core/ports/index.js';
import type { Order } from '../core/shared/model.js';
import type { Database, Queryable, Transaction } from './database.js';
import { releaseWithEvents, writeStockEvents } from './inventory-store.js';
import { orderBy, pageSql } from './keyset.js';
import { keptCount } from './order-counts.js';
import { insertOrder } from './order-insert.js';
import { orderColumns, orderConditions } from './order-query.js';
import {
  itemsOf,
  type OrderRow,
  orderRowColumns,
  toCancellation,
  toOrderHead,
  toShipment,
  withItems,
} from './order-rows.js';
import { type Outbox, writeEvents } from './outbox.js';
import { toDraft } from './rows.js';

async function loadOrder(db: Queryable, id: number) {
  const rows = await db.query<OrderRow>(`SELECT ${orderRowColumns()} FROM orders WHERE id = $1`, [id]);
  return (await withItems(db, rows))[0];
}

/**
 * One page of orders in keyset order, as SQL and its parameters. Several statuses are read one index scan
 * each (`status = ANY (…)` gives no index the order to read in), a page's worth per status, then merged.
 */
export function orderListSql({ filters, sort, after, limit }: KeysetQuery<OrderFilters>): [string, unknown[]] {
  const statuses = filters.status ?? [];
  const several = statuses.length > 1;
  const where = orderConditions(several ? { ...filters, status: undefined } : filters);
  const query = pageSql({
    from: 'orders o',
    select: orderRowColumns('o'),
    columns: orderColumns,
    where: several
      ? { sql: [where.sql, 'o.status = wanted.status'].filter(Boolean).join(' AND '), params: where.params }
      : where,
    sort,
    limit,
    ...(after ? { after } : {}),
  });
  if (!several) return [query.sql, query.params];
  const limitParam = `$${query.params.length}`;
  return [
    `SELECT o.* FROM unnest($${query.params.length + 1}::text[]) AS wanted(status)
       CROSS JOIN LATERAL (${query.sql}) o ORDER BY ${orderBy(orderColumns, sort)} LIMIT ${limitParam}`,
    [...query.params, statuses],
  ];
}

/** Orders with their items, shipments and cancellations in PostgreSQL; every multi-row change is one transaction. */
export function orderStore(db: Database, events: Outbox): Store['orders'] {
  return {
    async allocate(lineCount) {
      const rows = await db.query<{ id: number; item_ids: number[]; at: Date }>(
        `SELECT nextval('orders_id_seq') AS id, date_trunc('milliseconds', now()) AS at,
                ARRAY(SELECT nextval('order_items_id_seq') FROM generate_series(1, $1)) AS item_ids`,
        [lineCount],
      );
      const row = rows[0] as { id: number; item_ids: unknown[]; at: Date };
      return { id: row.id, itemIds: row.item_ids.map(Number), at: row.at };
    },
    get: (id) => loadOrder(db, id),
    async unpaidOlderThan(ageMs, limit) {
      const rows = await db.query<{ id: number }>(
        `SELECT id FROM orders
          WHERE status = 'PENDING' AND unpaid_expiry AND created_at < now() - make_interval(secs => $1::double precision / 1000)
          ORDER BY created_at LIMIT $2`,
        [ageMs, limit],
      );
      return rows.map((row) => Number(row.id));
    },
    async getMany(ids) {
      if (ids.length === 0) return [];
      return withItems(
        db,
        await db.query<OrderRow>(`SELECT ${orderRowColumns()} FROM orders WHERE id = ANY($1::bigint[])`, [ids]),
      );
    },
    async orderOfItem(itemId) {
      const rows = await db.query<{ order_id: number }>('SELECT order_id FROM order_items WHERE id = $1', [itemId]);
      return rows[0]?.order_id;
    },
    async list(query) {
      return withItems(db, await db.query<OrderRow>(...orderListSql(query)));
    },
    async listHeads(query) {
      return (await db.query<OrderRow>(...orderListSql(query))).map(toOrderHead);
    },
    items: (orderIds) => itemsOf(db, orderIds),
    async count(filters) {
      const kept = keptCount(filters);
      if (kept) return Number((await db.query<{ count: number }>(...kept))[0]?.count ?? 0);
      const where = orderConditions(filters);
      const rows = await db.query<{ count: number }>(
        `SELECT count(*) AS count FROM orders o ${where.sql ? `WHERE ${where.sql}` : ''}`,
        where.params,
      );
      return rows[0]?.count ?? 0;
    },
    insert: (order, completes) => insertOrder(db, events, order, completes),
    change: (change) => db.transaction((tx) => changeOrder(tx, events, change)),
    delete(id, version) {
      return db.transaction(async (tx) => {
        const deleted = await tx.query('DELETE FROM orders WHERE id = $1 AND version = $2 RETURNING id', [id, version]);
        if (deleted.length === 0) return 'stale' as const;
        await releaseWithEvents(tx, events, id);
        return 'deleted' as const;
      });
    },
    async shipment(orderId) {
      const rows = await db.query('SELECT * FROM shipments WHERE order_id = $1', [orderId]);
      return rows[0] && toShipment(rows[0]);
    },
    async shipments(orderIds) {
      if (orderIds.length === 0) return [];
      return (await db.query('SELECT * FROM shipments WHERE order_id = ANY($1::bigint[])', [orderIds])).map(toShipment);
    },
    updateShipment: (orderId, fields) => db.transaction((tx) => updateShipment(tx, events, orderId, fields)),
    async cancellations(orderIds) {
      if (orderIds.length === 0) return [];
      const rows = await db.query('SELECT * FROM cancellations WHERE order_id = ANY($1::bigint[])', [orderIds]);
      return rows.map(toCancellation);
    },
    async cancellation(orderId) {
      const rows = await db.query('SELECT * FROM cancellations WHERE order_id = $1', [orderId]);
      return rows[0] && toCancellation(rows[0]);
    },
  };
}

/** Order drafts in PostgreSQL. */
export function draftStore(db: Database): Store['drafts'] {
  return {
    async get(id) {
      const rows = await db.query('SELECT * FROM order_drafts WHERE id = $1', [id]);
      return rows[0] && toDraft(rows[0]);
    },
    async insert(userId, items, amount) {
      const rows = await db.query(
        `INSERT INTO order_drafts (user_id, items, amount_minor, status) VALUES ($1, $2, $3, 'OPEN') RETURNING *`,
        [userId, JSON.stringify(items), amount],
      );
      return toDraft(rows[0] as Record<string, unknown>);
    },
  };
}

/** Applies a change: the order row (at its version), its shipment, its cancellation, its reservations. */
async function changeOrder(tx: Transaction, events: Outbox, change: OrderChange): Promise<Order | 'stale'> {
  const updated = await tx.query(
    `UPDATE orders SET status = $3, shipping_address = $4, note = $5, coupon_code = $6,
            updated_at = date_trunc('milliseconds', now()), version = version + 1,
            -- The search text (migration 0025) follows the note: the note, then the items' product names.
            search_text = CASE WHEN note IS NOT DISTINCT FROM $5 THEN search_text ELSE concat_ws(E'\n', $5::text,
              (SELECT string_agg(p.name, E'\n' ORDER BY i.id)
                 FROM order_items i JOIN products p ON p.id = i.product_id WHERE i.order_id = $1)) END
      WHERE id = $1 AND version = $2 RETURNING id`,
    [change.orderId, change.version, change.status, change.shippingAddress, change.note, change.couponCode],
  );
  if (updated.length === 0) return 'stale' as const;
  if (change.shipment) {
    const { status, create } = change.shipment;
    const stamps = `shipped_at = CASE WHEN $2 IN ('SHIPPED', 'DELIVERED') THEN COALESCE(shipped_at, date_trunc('milliseconds', now())) END,
                    delivered_at = CASE WHEN $2 = 'DELIVERED' THEN date_trunc('milliseconds', now()) END`;
    if (create) await tx.query(`INSERT INTO shipments (order_id, status) VALUES ($1, 'PREPARING')`, [change.orderId]);
    await tx.query(`UPDATE shipments SET status = $2, ${stamps} WHERE order_id = $1`, [change.orderId, status]);
  }
  if (change.cancellation) {
    await tx.query('INSERT INTO cancellations (order_id, reason, refund_minor) VALUES ($1, $2, $3)', [
      change.orderId,
      change.cancellation.reason,
      change.cancellation.refundAmount,
    ]);
  }
  if (change.reservations === 'release') await releaseWithEvents(tx, events, change.orderId);
  if (change.reservations === 'consume') {
    const consumed = await tx.query(
      `UPDATE reservations SET state = 'CONSUMED' WHERE order_id = $1 AND state = 'HELD' RETURNING sku, quantity`,
      [change.orderId],
    );
    for (const row of consumed) {
      await tx.query('UPDATE stock SET on_hand = on_hand - $2, reserved = reserved - $2 WHERE sku = $1', [
        row.sku,
        row.quantity,
      ]);
    }
    await writeStockEvents(
      tx,
      events,
      consumed.map((row) => row.sku as string),
    );
  }
  const order = (await loadOrder(tx, change.orderId)) as Order;
  await writeEvents(tx, events.wakeups, events.orderChanged(order, change));
  return order;
}

/** Sets a shipment's carrier data; the order's `order.updated` event names the shipment. */
async function updateShipment(
  tx: Transaction,
  events: Outbox,
  orderId: number,
  fields: { carrier: string | null; trackingNumber: string | null },
) {
  // The order's row lock first, as every writer of an order's events takes it: one order's events take
  // their `seq` in the order their transactions commit (event-feed.ts).
  await tx.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [orderId]);
  const rows = await tx.query(
    'UPDATE shipments SET carrier = $2, tracking_number = $3 WHERE order_id = $1 RETURNING *',
    [orderId, fields.carrier, fields.trackingNumber],
  );
  if (!rows[0]) return undefined;
  await writeEvents(tx, events.wakeups, events.shipmentChanged((await loadOrder(tx, orderId)) as Order));
  return toShipment(rows[0]);
}
