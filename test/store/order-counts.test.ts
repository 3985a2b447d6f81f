/**
 * `withTotal=true` stays exact when it is answered from the counts the writes keep (migration 0026): after
 * orders are placed, moved between states, handed to another user and deleted, in one transaction and in
 * many, every shape the kept counts answer (all orders, statuses, one user, one user's statuses, whole
 * days by status) equals a count over the orders themselves. Runs on the embedded database and, with TEST_DATABASE_URL, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderFilters } from '../../src/core/ports/index.js';
import type { OrderStatus } from '../../src/core/shared/order-state.js';
import { keptCount } from '../../src/store/order-counts.js';
import { orderConditions } from '../../src/store/order-query.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

const STATUSES: OrderStatus[] = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELED'];

let database: TestDatabase;
let users: number[];
beforeAll(async () => {
  database = await openTestDatabase();
  const rows = await database.db.query<{ id: number }>(
    `INSERT INTO users (name, email) SELECT 'Count ' || g, 'count' || g || '@counts.example.com'
       FROM generate_series(1, 3) g RETURNING id`,
  );
  users = rows.map((row) => Number(row.id));
});
afterAll(() => database?.close());

const day = (date: string) => new Date(`${date}T00:00:00.000Z`);
const endOf = (date: string) => new Date(`${date}T23:59:59.999Z`);
/** Whole UTC days, as a date in `from` and `to` gives them. */
const DAYS: OrderFilters[] = [
  { from: day('2026-11-03') },
  { to: endOf('2026-11-09') },
  { from: day('2026-11-04'), to: endOf('2026-11-04') },
  { from: day('2026-11-02'), to: endOf('2026-11-12') },
];

/** Every shape the kept counts answer, over these users and days. */
function shapes(): OrderFilters[] {
  const byStatus: OrderFilters[] = [
    {},
    ...STATUSES.map((status) => ({ status: [status] })),
    { status: ['PAID', 'SHIPPED'] },
  ];
  return [
    ...byStatus,
    ...users.flatMap((userId) => byStatus.map((filters) => ({ ...filters, userId }))),
    ...DAYS.flatMap((days) => byStatus.map((filters) => ({ ...filters, ...days }))),
  ];
}

/** Each shape's kept count beside its count over the orders. */
async function bothCounts() {
  return Promise.all(
    shapes().map(async (filters) => {
      const kept = keptCount(filters);
      if (!kept) throw new Error(`no kept count for ${JSON.stringify(filters)}`);
      const where = orderConditions(filters);
      const [scanned] = await database.db.query<{ count: number }>(
        `SELECT count(*) AS count FROM orders o ${where.sql ? `WHERE ${where.sql}` : ''}`,
        where.params,
      );
      const [read] = await database.db.query<{ count: number }>(...kept);
      return { filters, kept: Number(read?.count), scanned: Number(scanned?.count) };
    }),
  );
}

describe('the order counts kept by the writes', () => {
  it('equal a count over the orders after placements, moves, a change of owner and deletions', async () => {
    const { db } = database;
    const [alice, bob, carol] = users as [number, number, number];
    await db.query(
      `INSERT INTO orders (user_id, status, amount_minor, shipping_address, created_at)
       SELECT ($1::bigint[])[1 + g % 3], ($2::text[])[1 + g % 5], g, '{}', timestamptz '2026-11-01' + g * interval '5 hours'
         FROM generate_series(1, 60) g`,
      [users, STATUSES],
    );
    const placed = await bothCounts();
    expect(placed.find(({ filters }) => Object.keys(filters).length === 0)?.kept).toBe(60);

    // Moves: several in one statement, one in a transaction with a deletion, one back and forth.
    await db.query(`UPDATE orders SET status = 'PAID' WHERE status = 'PENDING' AND user_id = $1`, [alice]);
    await db.transaction(async (tx) => {
      await tx.query(
        `UPDATE orders SET status = 'CANCELED' WHERE id = (SELECT min(id) FROM orders WHERE user_id = $1)`,
        [bob],
      );
      await tx.query('DELETE FROM orders WHERE id = (SELECT max(id) FROM orders WHERE user_id = $1)', [carol]);
    });
    await db.query(`UPDATE orders SET user_id = $2 WHERE id = (SELECT min(id) FROM orders WHERE user_id = $1)`, [
      carol,
      alice,
    ]);
    // An order moved to another day (no writer of the product does, but the counts follow any writer).
    await db.query(
      `UPDATE orders SET created_at = created_at - interval '3 days' WHERE id = (SELECT max(id) FROM orders)`,
    );
    // A change that does not move the order (the note) leaves the counts as they are.
    await db.query(`UPDATE orders SET note = 'n', status = status WHERE user_id = $1`, [bob]);
    // A transaction that rolls back leaves them too.
    await db
      .transaction(async (tx) => {
        await tx.query('DELETE FROM orders WHERE user_id = $1', [alice]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);

    const after = await bothCounts();
    for (const { filters, kept, scanned } of after) expect({ filters, kept }).toEqual({ filters, kept: scanned });
    expect(after.find(({ filters }) => Object.keys(filters).length === 0)?.kept).toBe(59);
    // The moves did change what is counted where.
    expect(after.map(({ kept }) => kept)).not.toEqual(placed.map(({ kept }) => kept));
  });

  it('answer only the shapes they hold: any other filter is counted over the orders', () => {
    expect(keptCount({ status: ['PAID'], userId: 1 })).toBeDefined();
    expect(keptCount({ status: ['PAID'], from: day('2026-11-03'), to: endOf('2026-11-04') })).toBeDefined();
    // A range that cuts a day, or one user's orders within days, is counted over the orders.
    expect(keptCount({ from: new Date('2026-11-03T12:00:00Z') })).toBeUndefined();
    expect(keptCount({ to: day('2026-11-04') })).toBeUndefined();
    expect(keptCount({ userId: 1, from: day('2026-11-03') })).toBeUndefined();
    for (const other of [
      { q: 'lamp' },
      { minAmount: 1 },
      { from: new Date() },
      { to: new Date() },
      { hasCoupon: false },
      { ids: [1] },
    ] as OrderFilters[]) {
      expect(keptCount({ status: ['PAID'], ...other })).toBeUndefined();
    }
  });
});
