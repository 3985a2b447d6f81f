/**
 * The order list's cost does not grow with the data: every (filter, sort) combination the contract allows
 * is read by an index that supplies both, so a page reads about a page of rows, at any size. Checked by
 * `EXPLAIN ANALYZE` on PostgreSQL (the planner's choices are the server's) over 100,000 orders: a plan fails
 * when its scans read (or read and filter away) more rows than three pages of each status asked for would
 * span in the table (a page over the status's share): a bound that does not grow with the data, since the
 * planner may rightly read a status that is not rare through another index and filter it rather than fetch
 * one page at random. A plan whose cost grows with the data reads tens of thousands of rows here.
 * Excluded, as docs/api.md says: a range filter (`from`/`to`, `minAmount`) with a sort on another column,
 * and one user's orders sorted by anything but `createdAt` (a top-N sort over that user's orders).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderFilters } from '../../src/core/ports/index.js';
import type { Minor } from '../../src/core/shared/money.js';
import { parseSort, type SortKey } from '../../src/core/shared/paging.js';
import { orderColumns } from '../../src/store/order-query.js';
import { orderListSql } from '../../src/store/order-store.js';
import { insertOrdersInBulk } from '../support/bulk-orders.js';
import { openTestDatabase, type TestDatabase, testDatabaseUrl } from '../support/database.js';

const ORDERS = 100_000;
const PAGE = 21; // a page of 20 and the row that tells whether another follows

let database: TestDatabase;
let userId: number;
/** Each status's share of the orders. */
let shares: Map<string, number>;
beforeAll(async () => {
  if (!testDatabaseUrl) return;
  database = await openTestDatabase();
  const { db } = database;
  await db.query(
    `INSERT INTO users (name, email) SELECT 'plan ' || g, 'plan' || g || '@plans.example.com' FROM generate_series(1, 1000) g`,
  );
  // Skewed as real orders are: most delivered, a few paid, and the paid ones all of small amounts, so that
  // reading the amount index for them from the top would pass over nearly every order.
  // Without the count trigger's three upserts per row (38 s here), the counts recounted once after.
  await insertOrdersInBulk(
    db,
    `INSERT INTO orders (user_id, status, amount_minor, shipping_address, coupon_code, created_at, search_text)
     SELECT (SELECT min(id) FROM users) + g % 1000,
            CASE WHEN g % 50 = 0 THEN 'PAID' WHEN g % 10 = 1 THEN 'SHIPPED' WHEN g % 20 = 2 THEN 'PENDING'
                 WHEN g % 20 = 3 THEN 'CANCELED' ELSE 'DELIVERED' END,
            (g::bigint * 7919) % CASE WHEN g % 50 = 0 THEN 100000 ELSE 1000000 END,
            '{}'::jsonb, CASE WHEN g % 10 = 0 THEN 'SPRING' END,
            timestamptz '2026-01-01' + g * interval '1 second',
            -- Every order names one of 50 products; 20 orders carry a rare note.
            concat_ws(E'\n', CASE WHEN g % 5000 = 7 THEN 'rare parcel ' || g END, 'Product ' || (1 + g % 50))
       FROM generate_series(1, ${ORDERS}) g`,
  );
  await db.query('ANALYZE users');
  await db.query('ANALYZE orders');
  const counted = await db.query<{ status: string; share: number }>(
    'SELECT status, count(*)::float8 / $1 AS share FROM orders GROUP BY status',
    [ORDERS],
  );
  shares = new Map(counted.map((row) => [row.status, row.share]));
  userId = Number((await db.query<{ id: number }>('SELECT min(id) AS id FROM users'))[0]?.id) + 42;
}, 120_000);
afterAll(() => database?.close());

/** Every sort of one or two keys the list allows, as the core passes it on (with `id` last, to break ties). */
const SORTS: SortKey[][] = ['createdAt', '-createdAt', 'amount', '-amount', 'id', '-id', '-amount,createdAt'].map(
  (text) => parseSort(text, Object.keys(orderColumns), '-createdAt'),
);
const byCreatedAt = (sort: SortKey[]) => sort[0]?.field === 'createdAt';
const byAmount = (sort: SortKey[]) => sort[0]?.field === 'amount';
/**
 * The filters, each with the sorts it is checked with and, for a text term, the share of orders it matches
 * (a page along the sort's index then spans a page over that share).
 */
const FILTERS: Array<[string, () => OrderFilters, (sort: SortKey[]) => boolean, number?]> = [
  ['no filter', () => ({}), () => true],
  ['one status', () => ({ status: ['PAID'] }), () => true],
  ['two statuses', () => ({ status: ['PAID', 'SHIPPED'] }), () => true],
  ['a common status', () => ({ status: ['DELIVERED'] }), () => true],
  ['one user', () => ({ userId }), byCreatedAt],
  ["one user's orders in one status", () => ({ userId, status: ['DELIVERED'] }), byCreatedAt],
  [
    'a time range',
    () => ({ from: new Date('2026-01-01T05:00:00Z'), to: new Date('2026-01-01T20:00:00Z') }),
    byCreatedAt,
  ],
  ['a least amount', () => ({ minAmount: 900_000 as Minor }), byAmount],
  // Text: a term in every order is read along the sort's index; a rare or absent one by the trigram index.
  ['a common term', () => ({ q: 'product' }), () => true],
  ['a term in one order of 50', () => ({ q: 'Product 42' }), () => true, 1 / 50],
  ['a rare term', () => ({ q: 'rare parcel' }), () => true],
  ['an absent term', () => ({ q: 'no such parcel' }), () => true],
  ["a term within one user's orders", () => ({ userId, q: 'product' }), byCreatedAt],
];
/** Where a page deep in each sort continues (a row's own values: amount, createdAt, id). */
const DEEP = { amount: 500_000, createdAt: '2026-01-01T12:00:00.000Z', id: ORDERS / 2 };

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans produced or filtered away. */
function rowsRead(node: PlanNode): number {
  const own = node['Node Type'].includes('Scan')
    ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
      node['Actual Loops']
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

const cases = FILTERS.flatMap(([name, filters, sorts, share = 1]) =>
  SORTS.filter(sorts).flatMap((sort) =>
    [false, true].map((deep) => ({
      name: `${name}, sort ${sort.map((key) => (key.descending ? '-' : '') + key.field).join(',')}${deep ? ', deep' : ''}`,
      filters,
      sort,
      deep,
      share,
    })),
  ),
);

describe.runIf(testDatabaseUrl)('the order list at 100,000 orders', () => {
  it.each(cases)('reads about a page: $name', async ({ filters, sort, deep, share }) => {
    const after = deep ? sort.map((key) => DEEP[key.field as keyof typeof DEEP]) : undefined;
    const [sql, params] = orderListSql({ filters: filters(), sort, limit: PAGE, ...(after ? { after } : {}) });
    const [explained] = await database.db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
      params,
    );
    const plan = explained?.['QUERY PLAN'][0]?.Plan as PlanNode;
    const spans = (filters().status ?? []).map((status) => PAGE / (shares.get(status) ?? 1));
    const bound = (3 * (spans.length > 0 ? spans.reduce((sum, span) => sum + span, 0) : PAGE)) / share;
    expect(rowsRead(plan)).toBeLessThanOrEqual(bound);
  });
});

interface BufferNode extends PlanNode {
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: BufferNode[];
}

/** The pages the plan's scans of one index read. */
function indexPages(node: BufferNode, index: string): number {
  const own = node['Index Name'] === index ? node['Shared Hit Blocks'] + node['Shared Read Blocks'] : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + indexPages(child, index), 0);
}

describe.runIf(testDatabaseUrl)('a search right after many orders went in', () => {
  it('reads a few pages of the trigram index for an absent term, not a pending list of all of them', async () => {
    // 2,000 more orders: the trigram index takes them into its pending list, which every search reads whole
    // until it is merged (migration 0030 merges it at 64 kB; at GIN's default 4 MB it held them all).
    await database.db.query(
      `INSERT INTO orders (user_id, status, amount_minor, shipping_address, created_at, search_text)
       SELECT $1, 'DELIVERED', 1000, '{}'::jsonb, timestamptz '2026-03-01' + g * interval '1 second',
              concat_ws(E'\\n', 'leave it with a neighbour ' || g, 'Product ' || (1 + g % 50))
         FROM generate_series(1, 2000) g`,
      [userId],
    );
    const [sql, params] = orderListSql({
      filters: { q: 'no such parcel' },
      sort: parseSort('-createdAt', Object.keys(orderColumns), '-createdAt'),
      limit: PAGE,
    });
    const [explained] = await database.db.query<{ 'QUERY PLAN': Array<{ Plan: BufferNode }> }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
      params,
    );
    const plan = explained?.['QUERY PLAN'][0]?.Plan as BufferNode;
    // The trigram index's tree for the term's trigrams (27 pages at 100,000 orders, 28 at 10 million) and a
    // pending list of at most 8 pages.
    expect(indexPages(plan, 'orders_search_trgm')).toBeGreaterThan(0);
    expect(indexPages(plan, 'orders_search_trgm')).toBeLessThanOrEqual(48);
  });
});
