import type { Database } from '../../src/store/database.js';
import { insertOrdersInBulk } from '../../test/support/bulk-orders.js';

/**
 * Fills an empty, migrated database with a large data set in a few set-based statements: `users` users,
 * 50 products with stock, and `orders` orders of one item each, 315 ms apart up to now (a later order has
 * a higher id, as placed ones do), in every state; one order in 10 has a note, one in 100,000 a rare one
 * (`rare parcel`), and 20 orders whatever the size another (`lost parcel`). The three kept order counts
 * (migration 0026) are recounted after the orders, their trigger off while the rows go in
 * (`insertOrdersInBulk`).
 * Returns the ids of an admin user and a customer with orders.
 */
export async function loadDataset(db: Database, { users = 1_000, orders = 100_000 } = {}) {
  // The order's note, which its search text holds too.
  const note = `CASE WHEN g % 100000 = 7 THEN 'rare parcel' WHEN g % ${Math.max(12, Math.floor(orders / 20))} = 11
                     THEN 'lost parcel' WHEN g % 10 = 0 THEN 'leave at the door' END`;
  await db.exec(`
    INSERT INTO users (name, email, address)
    SELECT 'User ' || g, 'user' || g || '@bench.example', '{"zipCode":"04524","line1":"1 Bench Road","line2":null}'::jsonb
      FROM generate_series(1, ${users}) g;
    INSERT INTO products (name, sku, price_minor)
    SELECT 'Product ' || g, 'BENCH-' || g, 100 + g * 37 FROM generate_series(1, 50) g;
    INSERT INTO stock (sku, on_hand) SELECT sku, 1000000 FROM products;
  `);
  await insertOrdersInBulk(
    db,
    `INSERT INTO orders (id, user_id, status, amount_minor, shipping_address, note, coupon_code, created_at, updated_at,
                        search_text)
    SELECT g, 1 + (g % ${users}),
           (ARRAY['PENDING','PAID','SHIPPED','DELIVERED','CANCELED'])[1 + g % 5],
           (100 + (g % 50 + 1) * 37) * (1 + g % 3),
           '{"zipCode":"04524","line1":"1 Bench Road","line2":null}'::jsonb,
           ${note},
           CASE WHEN g % 7 = 0 THEN 'TEN' END,
           date_trunc('milliseconds', now() - ((${orders} - g) * interval '315 milliseconds')),
           date_trunc('milliseconds', now() - ((${orders} - g) * interval '315 milliseconds')),
           concat_ws(E'\n', ${note},
                     'Product ' || (1 + g % 50))
      FROM generate_series(1, ${orders}) g`,
  );
  await db.exec(`
    SELECT setval('orders_id_seq', ${orders});
    INSERT INTO order_items (order_id, product_id, sku, quantity, unit_price_minor, amount_minor)
    SELECT o.id, p.id, p.sku, 1 + o.id % 3, p.price_minor, p.price_minor * (1 + o.id % 3)
      FROM orders o JOIN products p ON p.id = 1 + o.id % 50; -- the product its search text names
    ANALYZE;
  `);
  return { adminUserId: 1, customerUserId: 2 };
}
