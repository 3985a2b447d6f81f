import type { ApiKey, OrderDraft, Product, Rating, Reservation, Stock, User } from '../core/model.js';
import type { IdempotencyClaim, KeysetQuery, OrderFilters, ReserveOutcome, Store } from '../core/ports.js';
import type { Database, Queryable } from './database.js';
import { pageSql, type SortColumns } from './keyset.js';
import { orderColumns, orderConditions } from './order-query.js';
import { type OrderRow, toCancellation, toShipment, withItems } from './order-rows.js';

const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (error: unknown) => (error as { code?: string })?.code === UNIQUE_VIOLATION;

const toUser = (row: Record<string, unknown>): User => ({
  id: row.id as number,
  name: row.name as string,
  email: row.email as string,
  phone: row.phone as string | null,
  address: row.address as User['address'],
  nickname: row.nickname as string | null,
  marketingAgreed: row.marketing_agreed as boolean,
  createdAt: row.created_at as Date,
  lastLoginAt: row.last_login_at as Date | null,
  version: row.version as number,
});

const userColumns: SortColumns = {
  createdAt: { column: 'created_at', cast: 'timestamptz' },
  name: { column: 'name', cast: 'text' },
  id: { column: 'id', cast: 'bigint' },
};

const productColumns: SortColumns = {
  name: { column: 'p.name', cast: 'text' },
  id: { column: 'p.id', cast: 'bigint' },
};

const toApiKey = (row: Record<string, unknown>): ApiKey => ({
  id: row.id as number,
  userId: row.user_id as number,
  role: row.role as ApiKey['role'],
  createdAt: row.created_at as Date,
  revokedAt: row.revoked_at as Date | null,
});

const toRating = (row: Record<string, unknown>): Rating => ({
  productId: row.product_id as number,
  userId: row.user_id as number,
  score: row.score as number,
  comment: row.comment as string | null,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
});

const PRODUCT_COLUMNS = `p.*, r.average AS rating, COALESCE(r.count, 0) AS rating_count`;
const PRODUCT_RATINGS = `LEFT JOIN LATERAL (
  SELECT round(avg(score)::numeric, 2) AS average, count(*) AS count FROM ratings WHERE product_id = p.id
) r ON true`;

const toProduct = (row: Record<string, unknown>): Product => ({
  id: row.id as number,
  name: row.name as string,
  imageUrl: row.image_url as string | null,
  sku: row.sku as string,
  price: row.price_minor as number,
  rating: (row.rating as number | null) ?? null,
  ratingCount: row.rating_count as number,
  createdAt: row.created_at as Date,
});

const toStock = (row: Record<string, unknown>): Stock => ({
  sku: row.sku as string,
  onHand: row.on_hand as number,
  reserved: row.reserved as number,
});

const toReservation = (row: Record<string, unknown>): Reservation => ({
  orderId: row.order_id as number,
  sku: row.sku as string,
  quantity: row.quantity as number,
  state: row.state as Reservation['state'],
  createdAt: row.created_at as Date,
  expiresAt: row.expires_at as Date | null,
});

const toDraft = (row: Record<string, unknown>): OrderDraft => ({
  id: row.id as number,
  userId: row.user_id as number,
  items: row.items as OrderDraft['items'],
  amount: row.amount_minor as number,
  status: row.status as OrderDraft['status'],
  orderId: row.order_id as number | null,
  createdAt: row.created_at as Date,
});

async function loadOrder(db: Queryable, id: number) {
  const rows = await db.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [id]);
  return (await withItems(db, rows))[0];
}

/** Gives back every HELD reservation of an order (optionally of one SKU) to stock; returns them. */
async function releaseHeld(tx: Queryable, orderId: number, sku?: string): Promise<Reservation[]> {
  const rows = await tx.query(
    `UPDATE reservations SET state = 'RELEASED', expires_at = NULL
      WHERE order_id = $1 AND ($2::text IS NULL OR sku = $2) AND state = 'HELD'
      RETURNING *`,
    [orderId, sku ?? null],
  );
  for (const row of rows) {
    await tx.query('UPDATE stock SET reserved = reserved - $2 WHERE sku = $1', [row.sku, row.quantity]);
  }
  return rows.map(toReservation);
}

/** The PostgreSQL implementation of the core's store port (PGlite or a server: same SQL). */
export function createSqlStore(db: Database): Store {
  return {
    settings: {
      async get(key) {
        const rows = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
        return rows[0]?.value;
      },
      async putIfAbsent(key, value) {
        await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
        const rows = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
        return rows[0]?.value ?? value;
      },
    },

    users: {
      async get(id) {
        const rows = await db.query('SELECT * FROM users WHERE id = $1', [id]);
        return rows[0] && toUser(rows[0]);
      },
      async getMany(ids) {
        if (ids.length === 0) return [];
        return (await db.query('SELECT * FROM users WHERE id = ANY($1::bigint[])', [ids])).map(toUser);
      },
      async list({ sort, after, limit }) {
        const query = pageSql({ from: 'users', columns: userColumns, sort, limit, ...(after ? { after } : {}) });
        return (await db.query(query.sql, query.params)).map(toUser);
      },
      async count() {
        const rows = await db.query<{ count: number }>('SELECT count(*) AS count FROM users');
        return rows[0]?.count ?? 0;
      },
      async insert(user) {
        try {
          const rows = await db.query(
            `INSERT INTO users (name, email, phone, address, nickname, marketing_agreed)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
            [user.name, user.email, user.phone, user.address, user.nickname, user.marketingAgreed],
          );
          return toUser(rows[0] as Record<string, unknown>);
        } catch (error) {
          if (isUniqueViolation(error)) return 'email-taken';
          throw error;
        }
      },
      async update(id, version, user) {
        try {
          const rows = await db.query(
            `UPDATE users SET name = $3, email = $4, phone = $5, address = $6, nickname = $7, marketing_agreed = $8,
                    version = version + 1
              WHERE id = $1 AND version = $2 RETURNING *`,
            [id, version, user.name, user.email, user.phone, user.address, user.nickname, user.marketingAgreed],
          );
          return rows[0] ? toUser(rows[0]) : 'stale';
        } catch (error) {
          if (isUniqueViolation(error)) return 'email-taken';
          throw error;
        }
      },
      delete(id, version) {
        return db.transaction(async (tx) => {
          const orders = await tx.query('SELECT 1 FROM orders WHERE user_id = $1 LIMIT 1', [id]);
          if (orders.length > 0) return 'has-orders' as const;
          await tx.query('DELETE FROM order_drafts WHERE user_id = $1', [id]);
          // api_keys and ratings go with the user (ON DELETE CASCADE).
          const deleted = await tx.query('DELETE FROM users WHERE id = $1 AND version = $2 RETURNING id', [
            id,
            version,
          ]);
          return deleted.length > 0 ? ('deleted' as const) : ('stale' as const);
        });
      },
      async touchLogin(id) {
        await db.query(
          `UPDATE users SET last_login_at = date_trunc('milliseconds', now())
            WHERE id = $1 AND (last_login_at IS NULL OR last_login_at < now() - interval '1 minute')`,
          [id],
        );
      },
    },

    products: {
      async get(id) {
        const rows = await db.query(`SELECT ${PRODUCT_COLUMNS} FROM products p ${PRODUCT_RATINGS} WHERE p.id = $1`, [
          id,
        ]);
        return rows[0] && toProduct(rows[0]);
      },
      async getMany(ids) {
        if (ids.length === 0) return [];
        const rows = await db.query(
          `SELECT ${PRODUCT_COLUMNS} FROM products p ${PRODUCT_RATINGS} WHERE p.id = ANY($1::bigint[])`,
          [ids],
        );
        return rows.map(toProduct);
      },
      async list({ sort, after, limit }) {
        const query = pageSql({
          from: `products p ${PRODUCT_RATINGS}`,
          select: PRODUCT_COLUMNS,
          columns: productColumns,
          sort,
          limit,
          ...(after ? { after } : {}),
        });
        return (await db.query(query.sql, query.params)).map(toProduct);
      },
      async count() {
        const rows = await db.query<{ count: number }>('SELECT count(*) AS count FROM products');
        return rows[0]?.count ?? 0;
      },
      async insert(product, stock) {
        try {
          return await db.transaction(async (tx) => {
            const rows = await tx.query(
              `INSERT INTO products (name, image_url, sku, price_minor) VALUES ($1, $2, $3, $4) RETURNING *, NULL::numeric AS rating, 0 AS rating_count`,
              [product.name, product.imageUrl, product.sku, product.price],
            );
            await tx.query('INSERT INTO stock (sku, on_hand) VALUES ($1, $2)', [product.sku, stock]);
            return toProduct(rows[0] as Record<string, unknown>);
          });
        } catch (error) {
          if (isUniqueViolation(error)) return 'sku-taken';
          throw error;
        }
      },
    },

    ratings: {
      async get(productId, userId) {
        const rows = await db.query('SELECT * FROM ratings WHERE product_id = $1 AND user_id = $2', [
          productId,
          userId,
        ]);
        return rows[0] && toRating(rows[0]);
      },
      async put(productId, userId, score, comment) {
        const rows = await db.query(
          `INSERT INTO ratings (product_id, user_id, score, comment) VALUES ($1, $2, $3, $4)
           ON CONFLICT (product_id, user_id)
           DO UPDATE SET score = EXCLUDED.score, comment = EXCLUDED.comment, updated_at = date_trunc('milliseconds', now())
           RETURNING *, (xmax = 0) AS created`,
          [productId, userId, score, comment],
        );
        const row = rows[0] as Record<string, unknown>;
        return { rating: toRating(row), created: row.created as boolean };
      },
    },

    apiKeys: {
      async insert(userId, role, keyHash) {
        const rows = await db.query('INSERT INTO api_keys (user_id, role, key_hash) VALUES ($1, $2, $3) RETURNING *', [
          userId,
          role,
          keyHash,
        ]);
        return toApiKey(rows[0] as Record<string, unknown>);
      },
      async ensure(userId, role, keyHash) {
        const rows = await db.query(
          'INSERT INTO api_keys (user_id, role, key_hash) VALUES ($1, $2, $3) ON CONFLICT (key_hash) DO NOTHING RETURNING id',
          [userId, role, keyHash],
        );
        return rows.length > 0;
      },
      async findActive(keyHash) {
        const rows = await db.query('SELECT * FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [keyHash]);
        return rows[0] && toApiKey(rows[0]);
      },
      async get(id) {
        const rows = await db.query('SELECT * FROM api_keys WHERE id = $1', [id]);
        return rows[0] && toApiKey(rows[0]);
      },
      async revoke(id) {
        const rows = await db.query(
          `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, date_trunc('milliseconds', now())) WHERE id = $1 RETURNING *`,
          [id],
        );
        return rows[0] && toApiKey(rows[0]);
      },
      async count() {
        const rows = await db.query<{ count: number }>('SELECT count(*) AS count FROM api_keys');
        return rows[0]?.count ?? 0;
      },
    },

    orders: {
      async allocateId() {
        const rows = await db.query<{ id: number }>(`SELECT nextval('orders_id_seq') AS id`);
        return (rows[0] as { id: number }).id;
      },
      get: (id) => loadOrder(db, id),
      async getMany(ids) {
        if (ids.length === 0) return [];
        return withItems(db, await db.query<OrderRow>('SELECT * FROM orders WHERE id = ANY($1::bigint[])', [ids]));
      },
      async orderOfItem(itemId) {
        const rows = await db.query<{ order_id: number }>('SELECT order_id FROM order_items WHERE id = $1', [itemId]);
        return rows[0]?.order_id;
      },
      async list({ filters, sort, after, limit }: KeysetQuery<OrderFilters>) {
        const query = pageSql({
          from: 'orders o',
          select: 'o.*',
          columns: orderColumns,
          where: orderConditions(filters),
          sort,
          limit,
          ...(after ? { after } : {}),
        });
        return withItems(db, await db.query<OrderRow>(query.sql, query.params));
      },
      async count(filters) {
        const where = orderConditions(filters);
        const rows = await db.query<{ count: number }>(
          `SELECT count(*) AS count FROM orders o ${where.sql ? `WHERE ${where.sql}` : ''}`,
          where.params,
        );
        return rows[0]?.count ?? 0;
      },
      insert(order) {
        return db
          .transaction(async (tx) => {
            await tx.query(
              `INSERT INTO orders (id, user_id, status, amount_minor, shipping_address, note, coupon_code)
             VALUES ($1, $2, 'PENDING', $3, $4, $5, $6)`,
              [order.id, order.userId, order.amount, order.shippingAddress, order.note, order.couponCode],
            );
            for (const item of order.items) {
              await tx.query(
                `INSERT INTO order_items (order_id, product_id, sku, quantity, unit_price_minor, amount_minor)
               VALUES ($1, $2, $3, $4, $5, $6)`,
                [order.id, item.productId, item.sku, item.quantity, item.unitPrice, item.amount],
              );
            }
            if (order.draftId !== undefined) {
              const consumed = await tx.query(
                `UPDATE order_drafts SET status = 'ORDERED', order_id = $2 WHERE id = $1 AND status = 'OPEN' RETURNING id`,
                [order.draftId, order.id],
              );
              // The draft is consumed in the order's own transaction, so two placements of one draft cannot both win.
              if (consumed.length === 0) throw new DraftTaken();
            }
            // The order exists now: its reservations no longer expire.
            await tx.query(`UPDATE reservations SET expires_at = NULL WHERE order_id = $1 AND state = 'HELD'`, [
              order.id,
            ]);
            return (await loadOrder(tx, order.id)) as NonNullable<Awaited<ReturnType<typeof loadOrder>>>;
          })
          .catch((error: unknown) => {
            if (error instanceof DraftTaken) return 'draft-already-ordered' as const;
            throw error;
          });
      },
      change(change) {
        return db.transaction(async (tx) => {
          const updated = await tx.query(
            `UPDATE orders SET status = $3, shipping_address = $4, note = $5, coupon_code = $6,
                    updated_at = date_trunc('milliseconds', now()), version = version + 1
              WHERE id = $1 AND version = $2 RETURNING id`,
            [change.orderId, change.version, change.status, change.shippingAddress, change.note, change.couponCode],
          );
          if (updated.length === 0) return 'stale' as const;
          if (change.shipment) {
            const { status, create } = change.shipment;
            const stamps = `shipped_at = CASE WHEN $2 IN ('SHIPPED', 'DELIVERED') THEN COALESCE(shipped_at, date_trunc('milliseconds', now())) END,
                            delivered_at = CASE WHEN $2 = 'DELIVERED' THEN date_trunc('milliseconds', now()) END`;
            if (create)
              await tx.query(`INSERT INTO shipments (order_id, status) VALUES ($1, 'PREPARING')`, [change.orderId]);
            await tx.query(`UPDATE shipments SET status = $2, ${stamps} WHERE order_id = $1`, [change.orderId, status]);
          }
          if (change.cancellation) {
            await tx.query('INSERT INTO cancellations (order_id, reason, refund_minor) VALUES ($1, $2, $3)', [
              change.orderId,
              change.cancellation.reason,
              change.cancellation.refundAmount,
            ]);
          }
          if (change.reservations === 'release') await releaseHeld(tx, change.orderId);
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
          }
          return (await loadOrder(tx, change.orderId)) as NonNullable<Awaited<ReturnType<typeof loadOrder>>>;
        });
      },
      delete(id, version) {
        return db.transaction(async (tx) => {
          const deleted = await tx.query('DELETE FROM orders WHERE id = $1 AND version = $2 RETURNING id', [
            id,
            version,
          ]);
          if (deleted.length === 0) return 'stale' as const;
          await releaseHeld(tx, id);
          return 'deleted' as const;
        });
      },
      async shipment(orderId) {
        const rows = await db.query('SELECT * FROM shipments WHERE order_id = $1', [orderId]);
        return rows[0] && toShipment(rows[0]);
      },
      async shipments(orderIds) {
        if (orderIds.length === 0) return [];
        return (await db.query('SELECT * FROM shipments WHERE order_id = ANY($1::bigint[])', [orderIds])).map(
          toShipment,
        );
      },
      async updateShipment(orderId, fields) {
        const rows = await db.query(
          'UPDATE shipments SET carrier = $2, tracking_number = $3 WHERE order_id = $1 RETURNING *',
          [orderId, fields.carrier, fields.trackingNumber],
        );
        return rows[0] && toShipment(rows[0]);
      },
      async cancellations(orderIds) {
        if (orderIds.length === 0) return [];
        const rows = await db.query('SELECT * FROM cancellations WHERE order_id = ANY($1::bigint[])', [orderIds]);
        return rows.map(toCancellation);
      },
      async cancellation(orderId) {
        const rows = await db.query('SELECT * FROM cancellations WHERE order_id = $1', [orderId]);
        return rows[0] && toCancellation(rows[0]);
      },
    },

    drafts: {
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
    },

    inventory: {
      async stock(sku) {
        const rows = await db.query('SELECT * FROM stock WHERE sku = $1', [sku]);
        return rows[0] && toStock(rows[0]);
      },
      reserve(orderId, sku, quantity, expiresAt): Promise<ReserveOutcome> {
        return db.transaction(async (tx) => {
          // Lock the stock row first: concurrent reservations of one SKU queue here, so the check below
          // and the increment are one atomic step on a server that truly runs them in parallel.
          const stockRows = await tx.query('SELECT * FROM stock WHERE sku = $1 FOR UPDATE', [sku]);
          const stockRow = stockRows[0];
          if (!stockRow) return { kind: 'unknown-sku' };
          const existing = await tx.query('SELECT * FROM reservations WHERE order_id = $1 AND sku = $2', [
            orderId,
            sku,
          ]);
          const previous = existing[0] && toReservation(existing[0]);
          if (previous && previous.state === 'HELD') {
            return previous.quantity === quantity
              ? { kind: 'reserved', reservation: previous, stock: toStock(stockRow), replayed: true }
              : { kind: 'mismatch', reservation: previous };
          }
          if (previous) return { kind: 'mismatch', reservation: previous };
          const updated = await tx.query(
            'UPDATE stock SET reserved = reserved + $2 WHERE sku = $1 AND on_hand - reserved >= $2 RETURNING *',
            [sku, quantity],
          );
          if (updated.length === 0) return { kind: 'insufficient', stock: toStock(stockRow) };
          const rows = await tx.query(
            `INSERT INTO reservations (order_id, sku, quantity, state, expires_at) VALUES ($1, $2, $3, 'HELD', $4) RETURNING *`,
            [orderId, sku, quantity, expiresAt],
          );
          return {
            kind: 'reserved',
            reservation: toReservation(rows[0] as Record<string, unknown>),
            stock: toStock(updated[0] as Record<string, unknown>),
            replayed: false,
          };
        });
      },
      release(orderId, sku) {
        return db.transaction(async (tx) => {
          const released = await releaseHeld(tx, orderId, sku);
          if (released.length > 0) return released;
          // Releasing again is not an error: report what exists in its released state.
          const rows = await tx.query(
            'SELECT * FROM reservations WHERE order_id = $1 AND ($2::text IS NULL OR sku = $2) ORDER BY sku',
            [orderId, sku ?? null],
          );
          return rows.map(toReservation);
        });
      },
      async adjust(sku, delta) {
        return db.transaction(async (tx) => {
          const current = await tx.query('SELECT * FROM stock WHERE sku = $1 FOR UPDATE', [sku]);
          if (current.length === 0) return 'unknown-sku' as const;
          const rows = await tx.query(
            'UPDATE stock SET on_hand = on_hand + $2 WHERE sku = $1 AND on_hand + $2 >= reserved RETURNING *',
            [sku, delta],
          );
          return rows[0] ? toStock(rows[0]) : ('below-reserved' as const);
        });
      },
      expire(now) {
        return db.transaction(async (tx) => {
          const stale = await tx.query(
            `SELECT DISTINCT order_id FROM reservations WHERE state = 'HELD' AND expires_at IS NOT NULL AND expires_at < $1`,
            [now],
          );
          let released = 0;
          for (const row of stale) released += (await releaseHeld(tx, row.order_id as number)).length;
          return released;
        });
      },
    },

    idempotency: {
      async claim(caller, key, operation, fingerprint, since): Promise<IdempotencyClaim> {
        // A key older than 24 hours no longer counts: the first request of a new window takes it over.
        await db.query('DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND created_at < $3', [
          caller,
          key,
          since,
        ]);
        const claimed = await db.query(
          `INSERT INTO idempotency_keys (caller, key, operation, fingerprint, state) VALUES ($1, $2, $3, $4, 'IN_PROGRESS')
           ON CONFLICT (caller, key) DO NOTHING RETURNING key`,
          [caller, key, operation, fingerprint],
        );
        if (claimed.length > 0) return { kind: 'claimed' };
        const rows = await db.query('SELECT * FROM idempotency_keys WHERE caller = $1 AND key = $2', [caller, key]);
        const row = rows[0];
        if (!row) return this.claim(caller, key, operation, fingerprint, since);
        return row.state === 'COMPLETED'
          ? { kind: 'completed', fingerprint: row.fingerprint as string, result: row.result }
          : { kind: 'in-progress', fingerprint: row.fingerprint as string };
      },
      async complete(caller, key, result) {
        await db.query(`UPDATE idempotency_keys SET state = 'COMPLETED', result = $3 WHERE caller = $1 AND key = $2`, [
          caller,
          key,
          JSON.stringify(result),
        ]);
      },
      async abandon(caller, key) {
        await db.query(`DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND state = 'IN_PROGRESS'`, [
          caller,
          key,
        ]);
      },
    },
  };
}

class DraftTaken extends Error {}
