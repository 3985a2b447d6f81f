import type { ClaimCompletion, NewOrder, OrderRefusal } from '../core/ports/index.js';
import { commitHooks } from './commit-hooks.js';
import type { Database } from './database.js';
import { eventWriteSql } from './event-writes.js';
import type { Outbox } from './outbox.js';

/** The SQLSTATE of `statement_check` (migration 0020): a condition of a multi-table write failed. */
const STATEMENT_CHECK = 'OA001';

/**
 * Writes a new order in one statement, one round trip: the order (with its search text, migration 0025), its items, its reservations kept (no
 * longer expiring), its draft consumed, its idempotency claim completed, its `order.created` event with
 * the deliveries and wake-up it brings. It lands whole or not at all: `statement_check` fails it when a
 * reservation of the order is no longer held (expired, or released by a takeover of its claim), the draft
 * was placed already, or the claim was taken over.
 */
export async function insertOrder(
  db: Database,
  events: Outbox,
  { order, draftId }: NewOrder,
  completes: ClaimCompletion | undefined,
): Promise<'placed' | OrderRefusal> {
  const hooks = commitHooks();
  const written = eventWriteSql(events.orderPlaced(order), events.wakeups.notifyChannel, 14);
  const items = order.items.map((item) => ({
    id: item.id,
    product_id: item.productId,
    sku: item.sku,
    quantity: item.quantity,
    unit_price: item.unitPrice,
    amount: item.amount,
  }));
  try {
    await db.query(
      `WITH placed AS (
         INSERT INTO orders (id, user_id, status, amount_minor, shipping_address, note, coupon_code, created_at, updated_at,
                             search_text)
         VALUES ($1, $2, 'PENDING', $3, $4, $5, $6, $7, $7, concat_ws(E'\n', $5::text,
                   (SELECT string_agg(p.name, E'\n' ORDER BY line.id)
                      FROM jsonb_to_recordset($8::jsonb) AS line(id bigint, product_id bigint)
                      JOIN products p ON p.id = line.product_id)))
         RETURNING id),
       lines AS (
         INSERT INTO order_items (id, order_id, product_id, sku, quantity, unit_price_minor, amount_minor)
         SELECT line.id, $1, line.product_id, line.sku, line.quantity, line.unit_price, line.amount
           FROM jsonb_to_recordset($8::jsonb)
             AS line(id bigint, product_id bigint, sku text, quantity integer, unit_price bigint, amount bigint)
         RETURNING id),
       kept AS (
         UPDATE reservations SET expires_at = NULL
          WHERE order_id = $1 AND state = 'HELD' AND expires_at IS NOT NULL RETURNING sku),
       consumed AS (
         UPDATE order_drafts SET status = 'ORDERED', order_id = $1 WHERE id = $9 AND status = 'OPEN' RETURNING id),
       completed AS (
         UPDATE idempotency_keys SET state = 'COMPLETED', result = $13, held_order_id = NULL
          WHERE caller = $10 AND key = $11 AND state = 'IN_PROGRESS' AND COALESCE(token, created_at::text) = $12 RETURNING key)
       ${written.ctes.map((cte) => `, ${cte}`).join('')}
       SELECT statement_check((SELECT count(*) FROM kept) = (SELECT count(*) FROM lines), 'reservation-lost')
          AND statement_check($9::bigint IS NULL OR EXISTS (SELECT 1 FROM consumed), 'draft-already-ordered')
          AND statement_check($10::text IS NULL OR EXISTS (SELECT 1 FROM completed), 'claim-lost')
          AND ${written.touch} >= 0 AS placed`,
      [
        order.id,
        order.userId,
        order.amount,
        order.shippingAddress,
        order.note,
        order.couponCode,
        order.createdAt,
        JSON.stringify(items),
        draftId ?? null,
        completes?.caller ?? null,
        completes?.key ?? null,
        completes?.token ?? null,
        completes ? JSON.stringify(completes.result) : null,
        ...written.params,
      ],
    );
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === STATEMENT_CHECK) return message as OrderRefusal;
    throw error;
  }
  // One statement is its own transaction: it committed when it answered.
  await events.wakeups.announce({ afterCommit: hooks.add });
  hooks.committed();
  return 'placed';
}
