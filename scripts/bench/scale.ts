/**
 * Scale benchmark: the cost of every list and search shape of the order list at a small and a
 * large number of orders, side by side. It loads 100,000 orders into one schema and `ORDERS` (default
 * 10,000,000) into another on a PostgreSQL server, times each shape through the core (no HTTP, so no
 * request overhead) as the median of `ROUNDS` sequential calls, and prints both medians and their ratio.
 * A shape whose ratio is above 3 gets its plan at the large size printed below the table.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:scale
 *   ORDERS=1000000 ROUNDS=20 DATABASE_URL=… npm run bench:scale
 *
 * The loaded schemas (`scale_<orders>`) are kept, so a second run measures at once; `FRESH=1` loads again,
 * `DROP=1` drops them at the end. The loader takes about 35 s per million orders (docs/benchmarks.md).
 */
import pg from 'pg';
import type { Caller } from '../../src/core/index.js';
import type { OrderFilters } from '../../src/core/ports/index.js';
import { filterDigest } from '../../src/core/shared/cursor.js';
import { formatSort, parseSort } from '../../src/core/shared/paging.js';
import { createPgDatabase, type Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { orderListSql } from '../../src/store/order-store.js';
import { benchCore } from './bench-core.js';
import { loadDataset } from './dataset.js';
import { type Shape, scaleShapes } from './scale-shapes.js';

const url = process.env.DATABASE_URL;
if (!url?.startsWith('postgres')) {
  console.error('bench:scale needs a PostgreSQL server: DATABASE_URL=postgres://… npm run bench:scale');
  process.exit(2);
}
const SMALL = 100_000;
const LARGE = Number(process.env.ORDERS ?? 10_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 30);

/** A migrated schema holding `orders` orders, loaded unless it already holds them. */
async function loaded(orders: number): Promise<Database> {
  const schema = `scale_${orders}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  if (process.env.FRESH) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  const db = await createPgDatabase(url as string, { schema, statementTimeoutMs: 0 });
  await migrate(db);
  const [held] = await db.query<{ count: number }>('SELECT count(*) AS count FROM orders');
  if (Number(held?.count) !== orders) {
    if (Number(held?.count) > 0) throw new Error(`${schema} holds ${held?.count} orders: run with FRESH=1`);
    const started = performance.now();
    await loadDataset(db, { orders });
    console.log(
      `loaded ${orders.toLocaleString()} orders into ${schema} in ${Math.round((performance.now() - started) / 1000)} s`,
    );
  }
  return db;
}

/** The core over one schema, and a function that times one shape there (median, ms). */
async function measurer(db: Database, orders: number) {
  const core = await benchCore(db, { requestTimeoutMs: 60_000 });
  const admin: Caller = { userId: 1, role: 'admin', apiKeyId: null };
  /** The cursor of the row halfway through the sort (5 million rows deep at 10 million). */
  const deepCursor = async (sort: string, filters: OrderFilters) => {
    const keys = parseSort(sort, ['createdAt', 'amount', 'id'], '-createdAt');
    const column = { createdAt: 'created_at', amount: 'amount_minor', id: 'id' } as Record<string, string>;
    const orderBy = keys.map((key) => `${column[key.field]} ${key.descending ? 'DESC' : 'ASC'}`).join(', ');
    const [row] = await db.query<Record<string, unknown>>(
      `SELECT id, created_at, amount_minor FROM orders ORDER BY ${orderBy} OFFSET ${Math.floor(orders / 2)} LIMIT 1`,
    );
    if (!row) throw new Error('the data set is too small');
    const value = (field: string) =>
      field === 'createdAt' ? (row.created_at as Date).toISOString() : Number(row[column[field] as string]);
    return core.cursors.encode(
      formatSort(keys),
      filterDigest(filters as Record<string, unknown>),
      keys.map((key) => value(key.field)),
    );
  };
  return async (shape: Shape): Promise<number> => {
    const cursor = shape.deep ? await deepCursor(shape.sort, shape.filters) : undefined;
    const input = {
      filters: shape.filters,
      sort: shape.sort,
      size: 20,
      ...(shape.withTotal ? { withTotal: true } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS + 3; round++) {
      const started = performance.now();
      await core.orders.listHeads(admin, input);
      if (round >= 3) samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    return samples[Math.floor(samples.length / 2)] as number;
  };
}

const small = await loaded(SMALL);
const large = await loaded(LARGE);
try {
  const timeSmall = await measurer(small, SMALL);
  const timeLarge = await measurer(large, LARGE);
  const rows: Array<{ shape: Shape; small: number; large: number }> = [];
  for (const shape of scaleShapes()) rows.push({ shape, small: await timeSmall(shape), large: await timeLarge(shape) });
  const width = Math.max(...rows.map(({ shape }) => shape.name.length));
  console.log(`\n| shape${' '.repeat(width - 5)} | ${SMALL.toLocaleString()} | ${LARGE.toLocaleString()} | ratio |`);
  console.log(`|${'-'.repeat(width + 2)}|---:|---:|---:|`);
  for (const { shape, small: a, large: b } of rows) {
    console.log(`| ${shape.name.padEnd(width)} | ${a.toFixed(2)} ms | ${b.toFixed(2)} ms | ${(b / a).toFixed(2)} |`);
  }
  const over = rows.filter(({ small: a, large: b }) => b / a > 3);
  for (const { shape } of over) {
    const [sql, params] = orderListSql({
      filters: shape.filters,
      sort: parseSort(shape.sort, ['createdAt', 'amount', 'id'], '-createdAt'),
      limit: 21,
    });
    const plan = await large.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, params);
    console.log(`\nplan of "${shape.name}" at ${LARGE.toLocaleString()} (page 1):`);
    for (const line of plan) console.log(`  ${line['QUERY PLAN']}`);
  }
  console.log(
    over.length === 0
      ? '\nevery shape within 3× of its cost at 100k'
      : `\n${over.length} shape(s) above 3× of their cost at 100k`,
  );
} finally {
  await small.close();
  await large.close();
  if (process.env.DROP) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const orders of [SMALL, LARGE]) await admin.query(`DROP SCHEMA IF EXISTS scale_${orders} CASCADE`);
    await admin.end();
  }
}
