/**
 * How many round trips to the database an order placement makes one after another: what a placement costs
 * when every trip is slow (a database across a network, +20 ms each way; docs/benchmarks.md). Counted at
 * the `Database` the store uses: each statement, BEGIN and COMMIT is a trip, and trips that travel at once
 * count once. A trip's depth is one more than the deepest trip that had finished when it began; the
 * placement's count is the deepest trip of all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/shared/caller.js';
import type { Database, Transaction } from '../../src/store/database.js';
import { createSqlStore } from '../../src/store/sql-store.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';

/** A database that counts the depth of its trips (see above) from `reset()` on. */
function countingDatabase(db: Database) {
  let deepest = 0;
  let statements = 0;
  const begin = () => {
    statements += 1;
    return deepest + 1;
  };
  const end = (depth: number) => {
    deepest = Math.max(deepest, depth);
  };
  const trip = async <T>(run: () => Promise<T>): Promise<T> => {
    const depth = begin();
    try {
      return await run();
    } finally {
      end(depth);
    }
  };
  const counted: Database = {
    ...db,
    query: (sql, params) => trip(() => db.query(sql, params)),
    transaction(work) {
      end(begin()); // BEGIN: the first statement of the work starts after it
      let commit = 0;
      return db
        .transaction(async (tx) => {
          const inner: Transaction = {
            query: (sql, params) => trip(() => tx.query(sql, params)),
            afterCommit: tx.afterCommit,
          };
          const result = await work(inner);
          commit = begin();
          return result;
        })
        .finally(() => end(commit));
    },
  };
  return {
    db: counted,
    reset: () => {
      deepest = 0;
      statements = 0;
    },
    counts: () => ({ roundTrips: deepest, statements }),
  };
}

let database: TestDatabase;
let counting: ReturnType<typeof countingDatabase>;
let core: TestCore;
let customer: Caller;
let products: Array<{ id: number }>;

beforeAll(async () => {
  database = await openTestDatabase();
  counting = countingDatabase(database.db);
  core = await testCore(createSqlStore(counting.db));
  const admin = await makeAdmin(database.store);
  customer = await makeCustomer(core, admin);
  products = [await makeProduct(core, admin), await makeProduct(core, admin), await makeProduct(core, admin)];
});
afterAll(() => database?.close());

async function placement(lines: number, key: string | undefined) {
  const items = products.slice(0, lines).map((product) => ({ productId: product.id, quantity: 1 }));
  counting.reset();
  const placed = await core.orders.place(customer, { items }, key === undefined ? {} : { idempotencyKey: key });
  return { placed, ...counting.counts() };
}

describe('an order placement', () => {
  it.each([
    { lines: 1, key: 'trips-1' },
    { lines: 3, key: 'trips-3' },
    { lines: 1, key: undefined },
  ])('makes at most 7 round trips one after another with $lines line(s) (key: $key)', async ({ lines, key }) => {
    const { placed, roundTrips } = await placement(lines, key);
    expect(placed.result.items).toHaveLength(lines);
    expect(roundTrips).toBeLessThanOrEqual(7);
  });

  it('answers a replay of its key in one round trip', async () => {
    const first = await placement(3, 'trips-replay');
    const replay = await placement(3, 'trips-replay');
    expect(replay.placed).toMatchObject({ replayed: true, result: { id: first.placed.result.id } });
    expect(replay.roundTrips).toBe(1);
  });
});
