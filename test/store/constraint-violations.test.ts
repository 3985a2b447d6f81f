import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/shared/errors.js';
import { INPUT_CONSTRAINTS } from '../../src/store/constraint-violations.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

// Every constraint of the schema that input can reach answers as the contracts would
// (VALIDATION_FAILED naming the member, or the conflict's code), never INTERNAL. Each is provoked here
// through the database layer the store uses; a constraint on what the server derives is a fault.

/** Constraints the server alone writes (derived values, states, ids): a violation is a bug, INTERNAL. */
const DERIVED: Record<string, string> = {
  api_keys_key_hash_key: 'the hash of a secret the server draws (256 random bits)',
  api_keys_replaced_by_fkey: 'set by a rotation to the key it issued in the same transaction',
  cancellations_order_id_fkey: 'written by a change of an order read in the same transaction',
  cancellations_refund_minor_check: "the order's amount or 0",
  deprecation_usage_count_check: 'counts the server adds',
  deprecation_usage_dropped_count_check: 'counts the server adds',
  request_shapes_count_check: 'counts the server adds',
  request_shapes_dropped_count_check: 'counts the server adds',
  events_id_key: 'event ids the server makes',
  evidence_signing_key_id_check: 'the one row of the signing key',
  idempotency_keys_state_check: "the claim's states",
  notice_mails_event_id_fkey: 'written with its event, in one transaction',
  order_drafts_order_id_fkey: 'the order placed from the draft, in one transaction',
  order_drafts_status_check: "the draft's states",
  order_items_amount_minor_check: 'unit price × quantity, both checked',
  order_items_order_id_fkey: 'written with its order',
  order_items_unit_price_minor_check: "the product's price",
  orders_amount_minor_check: 'the sum of the items',
  reservations_state_check: "the reservation's states",
  shipments_order_id_fkey: 'written with its order',
  shipments_order_id_key: 'one per order, made by a status change',
  shipments_status_check: "follows the order's states",
  stock_check: 'reservations and adjustments check availability in the statement that writes',
  stock_on_hand_check: 'implied by stock_check and stock_reserved_check, which PostgreSQL checks first',
  stock_reserved_check: 'reservations released at most once',
  webhook_attempts_endpoint_id_fkey: 'attempts of an existing delivery',
  webhook_deliveries_endpoint_id_fkey: 'deliveries queued for existing endpoints',
  webhook_deliveries_event_id_fkey: 'deliveries of existing events',
  webhook_endpoints_api_key_id_fkey: "the calling key's id",
};
/** Constraints whose store looks for them and answers itself. */
const ANSWERED_BY_STORE: Record<string, string> = { products_sku_key: 'SKU_TAKEN (product store)' };

let database: TestDatabase;
let userId: number;
let orderId: number;
const SKU = 'CONSTRAINT-1';

beforeAll(async () => {
  database = await openTestDatabase();
  const { db } = database;
  [{ id: userId }] = (await db.query<{ id: number }>(
    "INSERT INTO users (name, email) VALUES ('C', 'constraints@example.com') RETURNING id",
  )) as [{ id: number }];
  await db.query("INSERT INTO products (name, sku, price_minor) VALUES ('P', $1, 100)", [SKU]);
  await db.query('INSERT INTO stock (sku, on_hand) VALUES ($1, 5)', [SKU]);
  [{ id: orderId }] = (await db.query<{ id: number }>(
    `INSERT INTO orders (user_id, amount_minor, status, shipping_address)
     VALUES ($1, 0, 'CANCELED', '{"zipCode":"1","line1":"x"}') RETURNING id`,
    [userId],
  )) as [{ id: number }];
  await db.query('INSERT INTO cancellations (order_id, refund_minor) VALUES ($1, 0)', [orderId]);
});
afterAll(() => database?.close());

/** A statement that breaks each constraint input can reach. */
const provokers: Record<string, () => [string, unknown[]]> = {
  api_keys_label_check: () => [keyInsert("label) VALUES ($1, 'customer', 'h1', ''"), [userId]],
  api_keys_rate_limit_check: () => [keyInsert("rate_limit) VALUES ($1, 'customer', 'h2', 0"), [userId]],
  api_keys_role_check: () => [keyInsert("label) VALUES ($1, 'root', 'h3', NULL"), [userId]],
  api_keys_user_id_fkey: () => [keyInsert("label) VALUES ($1, 'customer', 'h4', NULL"), [999_999]],
  brownouts_check: () => [
    `INSERT INTO brownouts (item, starts_at, ends_at, scheduled_at)
     VALUES ('rest.x', now(), now() - interval '1 minute', now())`,
    [],
  ],
  cancellations_order_id_key: () => ['INSERT INTO cancellations (order_id, refund_minor) VALUES ($1, 0)', [orderId]],
  order_drafts_user_id_fkey: () => [
    "INSERT INTO order_drafts (user_id, items, amount_minor, status) VALUES ($1, '[]', 0, 'OPEN')",
    [999_999],
  ],
  order_items_product_id_fkey: () => [itemInsert, [orderId, 999_999, 1]],
  order_items_quantity_check: () => [itemInsert, [orderId, null, 0]],
  orders_status_check: () => ["UPDATE orders SET status = 'LOST' WHERE id = $1", [orderId]],
  orders_user_id_fkey: () => [
    `INSERT INTO orders (user_id, amount_minor, status, shipping_address) VALUES ($1, 0, 'PENDING', '{}')`,
    [999_999],
  ],
  products_price_minor_check: () => ["INSERT INTO products (name, sku, price_minor) VALUES ('P', 'NEG', -1)", []],
  ratings_product_id_fkey: () => [
    'INSERT INTO ratings (product_id, user_id, score) VALUES ($1, $2, 3)',
    [999_999, userId],
  ],
  ratings_score_check: () => [
    'INSERT INTO ratings (product_id, user_id, score) VALUES ((SELECT id FROM products WHERE sku = $1), $2, 6)',
    [SKU, userId],
  ],
  ratings_user_id_fkey: () => [
    'INSERT INTO ratings (product_id, user_id, score) VALUES ((SELECT id FROM products WHERE sku = $1), $2, 3)',
    [SKU, 999_999],
  ],
  reservations_quantity_check: () => [
    "INSERT INTO reservations (order_id, sku, quantity, state) VALUES ($1, $2, 0, 'HELD')",
    [orderId, SKU],
  ],
  reservations_sku_fkey: () => [
    "INSERT INTO reservations (order_id, sku, quantity, state) VALUES ($1, 'NO-SUCH-SKU', 1, 'HELD')",
    [orderId],
  ],
  webhook_endpoints_user_id_fkey: () => [
    `INSERT INTO webhook_endpoints (user_id, all_owners, url, events, secret)
     VALUES ($1, false, 'https://h.example/x', '{}', 'whsec_x')`,
    [999_999],
  ],
};

function keyInsert(tail: string) {
  return `INSERT INTO api_keys (user_id, role, key_hash, ${tail})`;
}
const itemInsert = `INSERT INTO order_items (order_id, product_id, sku, quantity, unit_price_minor, amount_minor)
  VALUES ($1, COALESCE($2, (SELECT id FROM products WHERE sku = '${SKU}')), '${SKU}', $3, 100, 100)`;

describe('constraints of the schema', () => {
  it('classifies every constraint: input can reach it (answered as the contracts would), or the server derives it', async () => {
    const names = (
      await database.db.query<{ name: string }>(
        `SELECT c.conname AS name FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
           JOIN pg_namespace n ON n.oid = t.relnamespace
          WHERE n.nspname = current_schema() AND c.contype IN ('c', 'f', 'u') ORDER BY 1`,
        [],
      )
    ).map((row) => row.name);
    expect(names.length).toBeGreaterThan(40);
    const unclassified = names.filter((name) => !INPUT_CONSTRAINTS[name] && !DERIVED[name] && !ANSWERED_BY_STORE[name]);
    expect(unclassified).toEqual([]);
    expect(Object.keys(INPUT_CONSTRAINTS).sort()).toEqual(names.filter((name) => INPUT_CONSTRAINTS[name]).sort());
    expect(Object.keys(provokers).sort()).toEqual(Object.keys(INPUT_CONSTRAINTS).sort());
  });

  it.each(Object.keys(INPUT_CONSTRAINTS))('answers %s as the contracts would, never INTERNAL', async (name) => {
    const [sql, params] = (provokers[name] as () => [string, unknown[]])();
    const error = await database.db.query(sql, params).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error, `${name} was not provoked`).toBeInstanceOf(DomainError);
    const answer = INPUT_CONSTRAINTS[name];
    expect(error).toMatchObject({
      code: answer?.code,
      ...(answer?.violation ? { violations: [answer.violation] } : {}),
    });
    // The driver's error stays the cause, for the logs.
    expect(((error as DomainError).cause as { constraint?: string }).constraint).toBe(name);
  });

  it('answers inside a transaction alike, and rolls it back', async () => {
    const failure = await database.db
      .transaction(async (tx) => {
        await tx.query("UPDATE products SET name = 'changed' WHERE sku = $1", [SKU]);
        await tx.query("INSERT INTO products (name, sku, price_minor) VALUES ('P', 'NEG2', -1)", []);
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'VALIDATION_FAILED', violations: [{ name: '/price' }] });
    expect(await database.db.query('SELECT name FROM products WHERE sku = $1', [SKU])).toEqual([{ name: 'P' }]);
  });

  it('answers a missing required value and a number out of range as VALIDATION_FAILED', async () => {
    await expect(
      database.db.query("INSERT INTO products (name, sku) VALUES ('P', 'NO-PRICE')", []),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      violations: [{ in: 'body', name: '/priceMinor', message: 'is required' }],
    });
    await expect(
      database.db.query('UPDATE stock SET on_hand = on_hand + $1 WHERE sku = $2', [2_147_483_647, SKU]),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
