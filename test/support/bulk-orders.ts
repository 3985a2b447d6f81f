import type { Database } from '../../src/store/database.js';

/**
 * Runs `insert` (statements that add many orders at once to a migrated database) with the trigger that
 * keeps the order counts (migration 0026) off, then recounts all three kept counts from the orders in one
 * pass each, as the migration fills them for the orders before it. The trigger runs three upserts per row:
 * 100,000 orders took 38 s with it and 2.6 s without it on the local PostgreSQL server.
 */
export async function insertOrdersInBulk(db: Pick<Database, 'exec'>, insert: string): Promise<void> {
  await db.exec(`
    ALTER TABLE orders DISABLE TRIGGER order_counts_on_insert_or_delete;
    ${insert};
    ALTER TABLE orders ENABLE TRIGGER order_counts_on_insert_or_delete;
    TRUNCATE order_counts, order_user_counts, order_day_counts;
    INSERT INTO order_counts (shard, status, count)
    SELECT (id % 16)::smallint, status, count(*) FROM orders GROUP BY 1, 2;
    INSERT INTO order_user_counts (user_id, status, count)
    SELECT user_id, status, count(*) FROM orders GROUP BY 1, 2;
    INSERT INTO order_day_counts (day, status, shard, count)
    SELECT (created_at AT TIME ZONE 'UTC')::date, status, (id % 16)::smallint, count(*) FROM orders GROUP BY 1, 2, 3;
  `);
}
