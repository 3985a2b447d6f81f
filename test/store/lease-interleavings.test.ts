/**
 * The leases of order placement under interleavings explored by fast-check's scheduler, not hoped for: a
 * first placement with an Idempotency-Key, a retry with the same key whose lease view lets it take the
 * first one's claim over at once, a placement without a key, the sweep of dead claims and the reservation
 * expiry sweep, every one of
 * their statements a point where the scheduler picks who goes next (a `Database` whose statements and
 * transactions wait for it). Afterwards, with all quiet and both sweeps run: at most one order for the
 * key, the stock reserved exactly for the lines of the orders that exist, `on_hand ≥ reserved ≥ 0`, and a
 * placement that answered with an order left that order in place.
 *
 * PGlite runs one transaction at a time, so the interleavings here are of statements and whole
 * transactions (the claim, the hold, the order's one statement, the reservation, each sweep); races inside
 * two transactions at once are staged on PostgreSQL in lease-fencing.test.ts. Failing seeds found are kept
 * below as regression cases.
 */
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/shared/caller.js';
import type { Database } from '../../src/store/database.js';
import { createSqlStore } from '../../src/store/sql-store.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';

let database: TestDatabase;
let scheduler: fc.Scheduler | undefined;
let plain: TestCore;
let first: TestCore;
let retry: TestCore;
let admin: Caller;
let sweepingStore: ReturnType<typeof createSqlStore>;
let customer: Caller;

/** The database, each statement and transaction waiting for the scheduler while one is set. */
function scheduled(db: Database): Database {
  const turn = (label: string) => (scheduler ? scheduler.schedule(Promise.resolve(label), label) : Promise.resolve());
  return {
    ...db,
    query: (sql, params) => turn(sql.trim().split(/\s+/).slice(0, 3).join(' ')).then(() => db.query(sql, params)),
    transaction: (work) => turn('transaction').then(() => db.transaction(work)),
  };
}

beforeAll(async () => {
  database = await openTestDatabase();
  const store = createSqlStore(scheduled(database.db));
  sweepingStore = store;
  plain = await testCore(database.store);
  first = await testCore(store);
  // Its claims see every other claim as past its lease: it takes the first placement's key over at once.
  retry = await testCore(store, { idempotencyLeaseMs: 1 });
  admin = await makeAdmin(database.store);
  customer = await makeCustomer(plain, admin);
});
afterAll(() => database?.close());

let runs = 0;

async function repeat(times: number, sweep: () => Promise<unknown>) {
  for (let n = 0; n < times; n++) await sweep();
}

/** One interleaving: two placements of one key, one without a key, both sweeps; the invariants at quiet. */
async function interleaving(s: fc.Scheduler) {
  const product = await makeProduct(plain, admin, 1_000, 10, `Lease ${++runs}`);
  const key = `interleaving-${runs}`;
  const input = { items: [{ productId: product.id, quantity: 2 }] };
  const farFuture = () => new Date(Date.now() + 3_600_000);
  scheduler = s;
  const placements = [
    first.orders.place(customer, input, { idempotencyKey: key }),
    retry.orders.place(customer, input, { idempotencyKey: key }),
  ];
  const all = Promise.allSettled([
    ...placements,
    // Without a key nothing but the reservation's own fence stands between its stock and the sweep.
    first.orders.place(customer, input),
    // Each sweep runs several times, so the scheduler can put one between any two steps of a placement.
    repeat(3, () => retry.idempotency.purgeExpired()),
    repeat(6, () => sweepingStore.inventory.expire(farFuture())),
  ]);
  const outcomes = await s.waitFor(all);
  scheduler = undefined;
  // Quiet: the sweeps once more, as an instance would run them.
  await retry.idempotency.purgeExpired();
  await database.store.inventory.expire(farFuture());
  const orders = await database.db.query<{ order_id: number; quantity: number }>(
    'SELECT order_id, quantity FROM order_items WHERE sku = $1',
    [product.sku],
  );
  const placed = (index: number) => {
    const outcome = outcomes[index];
    return outcome?.status === 'fulfilled' ? (outcome.value as { result: { id: number } }).result.id : undefined;
  };
  // One order for the key (both keyed placements that answered with an order answered with the same one),
  // and one more at most, the keyless placement's.
  const [keyedFirst, keyedRetry] = [placed(0), placed(1)];
  if (keyedFirst !== undefined && keyedRetry !== undefined) expect(keyedFirst).toBe(keyedRetry);
  const keyless = placed(2);
  const keyedOrders = new Set(orders.map((row) => row.order_id).filter((id) => id !== keyless));
  expect(keyedOrders.size).toBeLessThanOrEqual(1);
  const stock = await plain.inventory.stock(product.sku);
  expect(stock.reserved).toBe(orders.reduce((sum, row) => sum + row.quantity, 0));
  expect(stock.onHand).toBeGreaterThanOrEqual(stock.reserved);
  expect(stock.reserved).toBeGreaterThanOrEqual(0);
  for (const id of [keyedFirst, keyedRetry, keyless]) {
    if (id !== undefined) expect(orders.map((row) => row.order_id)).toContain(id);
  }
}

describe('order placement under explored interleavings', () => {
  it('keeps one order per key and the stock exact, whatever the order of its statements', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), (s) => interleaving(s)),
      { numRuns: 40, endOnFailure: true },
    );
  }, 60_000);

  // Seeds that found a race once, kept as regression cases. -1111557788: the reservation expiry sweep ran
  // between a placement's reservation and its order (found with the order's reservation check removed).
  it.each([{ seed: -1111557788, path: '0' }])('holds for the seed $seed that once failed', async ({ seed, path }) => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), (s) => interleaving(s)),
      { seed, path, numRuns: 1, endOnFailure: true },
    );
  });
});
