import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdempotencyService, IDEMPOTENCY_WINDOW_MS } from '../../src/core/idempotency/idempotency.js';
import type { Caller } from '../../src/core/index.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { dyingStore, outageStore } from '../support/dying-store.js';
import { makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';

let database: TestDatabase;
let core: TestCore;
let admin: Caller;
let customer: Caller;

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store);
  admin = await makeAdmin(database.store);
  customer = await makeCustomer(core, admin);
});
afterAll(() => database?.close());

type Input = { items: Array<{ productId: number; quantity: number }> };

const placeWithKey = (key: string, input: Input, through: TestCore = core) =>
  through.orders.place(customer, input, { idempotencyKey: key });

/** A core whose claims' lease is 1 ms, reached after it ran out: every claim in progress has expired. */
async function leaseRunOut(): Promise<TestCore> {
  const later = await testCore(database.store, { idempotencyLeaseMs: 1 });
  await new Promise((resolve) => setTimeout(resolve, 5));
  return later;
}

const orderCount = async () => (await core.orders.list(customer, { withTotal: true })).totalCount;

describe('idempotency keys', () => {
  it('replays the first result for the same key and input, with dates intact', async () => {
    const product = await makeProduct(core, admin);
    const input = { items: [{ productId: product.id, quantity: 1 }] };
    const first = await placeWithKey('replay-1', input);
    const second = await placeWithKey('replay-1', input);
    expect(first.replayed).toBe(false);
    expect(second.replayed).toBe(true);
    expect(second.result).toEqual(first.result);
    expect(second.result.createdAt).toBeInstanceOf(Date);
  });

  it('refuses the same key with another input', async () => {
    const product = await makeProduct(core, admin);
    await placeWithKey('reuse-1', { items: [{ productId: product.id, quantity: 1 }] });
    await expect(placeWithKey('reuse-1', { items: [{ productId: product.id, quantity: 2 }] })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('scopes keys to the caller', async () => {
    const product = await makeProduct(core, admin);
    const input = { items: [{ productId: product.id, quantity: 1 }] };
    const answer = createIdempotencyService(database.store).useCase('orders.place', async (caller) => caller.userId);
    const mine = await answer({ userId: 900_001, role: 'customer', apiKeyId: null }, input, {
      idempotencyKey: 'shared',
    });
    const theirs = await answer({ userId: 900_002, role: 'customer', apiKeyId: null }, input, {
      idempotencyKey: 'shared',
    });
    expect([mine, theirs]).toEqual([
      { result: 900_001, replayed: false },
      { result: 900_002, replayed: false },
    ]);
  });

  it('frees the key when the first request fails, so a retry runs again', async () => {
    const product = await makeProduct(core, admin, 100, 1);
    const input = { items: [{ productId: product.id, quantity: 2 }] };
    await expect(placeWithKey('fail-1', input)).rejects.toMatchObject({ code: 'INSUFFICIENT_STOCK' });
    await core.inventory.adjust(product.sku, 5);
    expect((await placeWithKey('fail-1', input)).replayed).toBe(false);
  });

  it('forgets keys after 24 hours, so the key can be used again', async () => {
    const purger: Caller = { userId: 900_003, role: 'customer', apiKeyId: null };
    const create = createIdempotencyService(database.store).useCase(
      'users.create',
      async (_, { n }: { n: number }) => n,
    );
    await create(purger, { n: 1 }, { idempotencyKey: 'old-key' });
    const later = createIdempotencyService(database.store, () => new Date(Date.now() + IDEMPOTENCY_WINDOW_MS + 60_000));
    expect(await later.purgeExpired()).toBeGreaterThanOrEqual(1);
    const again = await create(purger, { n: 2 }, { idempotencyKey: 'old-key' });
    expect(again).toEqual({ result: 2, replayed: false });
  });

  it('creates exactly one order from ten concurrent requests with one key', async () => {
    const product = await makeProduct(core, admin, 100, 100);
    const input = { items: [{ productId: product.id, quantity: 1 }] };
    const before = await orderCount();
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => placeWithKey('burst-1', input)));
    expect((await orderCount()) ?? 0).toBe((before ?? 0) + 1);
    const created = outcomes.filter((o) => o.status === 'fulfilled' && !o.value.replayed);
    expect(created).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    }
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 1 });
  });

  it('answers IDEMPOTENCY_KEY_IN_USE to every request that arrives while the first is still running', async () => {
    const product = await makeProduct(core, admin, 100, 100);
    const input = { items: [{ productId: product.id, quantity: 1 }] };
    let finish = () => {};
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    // The first placement waits inside its reservation call until the test lets it go on.
    const waiting = await testCore(database.store, {
      inventory: {
        async reserveOrder(request) {
          started();
          await held;
          await core.inventory.reserveOrder(request.orderId, request.lines);
        },
        release: async () => undefined,
      },
    });
    const first = placeWithKey('held-1', input, waiting);
    await running;
    const during = await Promise.allSettled(Array.from({ length: 5 }, () => placeWithKey('held-1', input)));
    expect(during.map((outcome) => (outcome.status === 'rejected' ? outcome.reason.code : 'answered'))).toEqual(
      Array(5).fill('IDEMPOTENCY_KEY_IN_USE'),
    );
    finish();
    const done = await first;
    expect(done.replayed).toBe(false);
    const after = await placeWithKey('held-1', input);
    expect(after).toMatchObject({ replayed: true, result: { id: done.result.id } });
  });

  it('lets a retry take over a claim whose process died once its lease runs out, releasing the stock it held', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const input = { items: [{ productId: product.id, quantity: 3 }] };
    // The first attempt reserves and then "dies": the order is never written, nothing is given back.
    const dyingCore = await testCore(dyingStore(database.store, 'after-reserving'));
    await expect(placeWithKey('lease-1', input, dyingCore)).rejects.toThrow('process killed');
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 3 });
    // Within the lease the key is still in use.
    await expect(placeWithKey('lease-1', input)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    // Past it, the retry runs; the dead attempt's reservation goes back, only the new one holds stock.
    const retry = await placeWithKey('lease-1', input, await leaseRunOut());
    expect(retry.replayed).toBe(false);
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 3 });
  });

  // With `sweptFirst`, the race the database-restart fault test found: the order commits, the claim never
  // completes, and the periodic sweep runs after the lease and before the client's retry. Dropping the
  // claim there let the retry place a second order for the same key.
  it.each([
    { sweptFirst: false, key: 'lease-2' },
    { sweptFirst: true, key: 'lease-swept' },
  ])(
    'answers a retry with the order whose commit landed while its answer was lost (sweep first: $sweptFirst)',
    async ({ sweptFirst, key }) => {
      const product = await makeProduct(core, admin, 100, 10);
      const input = { items: [{ productId: product.id, quantity: 1 }] };
      const dyingCore = await testCore(dyingStore(database.store, 'after-committing'));
      const before = (await orderCount()) ?? 0;
      await expect(placeWithKey(key, input, dyingCore)).rejects.toThrow('connection lost');
      const later = await leaseRunOut();
      if (sweptFirst) await later.idempotency.purgeExpired();
      const retry = await placeWithKey(key, input, later);
      expect((await orderCount()) ?? 0).toBe(before + 1);
      expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 1 });
      // Completed now: the next retry is a replay of the same order.
      const replay = await placeWithKey(key, input);
      expect(replay).toMatchObject({ replayed: true, result: { id: retry.result.id } });
    },
  );

  it('says when to retry, and lets the instance whose request ended take its claim over at once', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const input = { items: [{ productId: product.id, quantity: 2 }] };
    // The database fails after the reservation: the order is not written, the stock not given back.
    const outage = outageStore(database.store, 'after-reserving');
    const instance = await testCore(outage.store);
    await expect(placeWithKey('outage-1', input, instance)).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    // Another instance knows nothing of it: in use, with the seconds left of the 30-second lease.
    const elsewhere = await placeWithKey('outage-1', input).catch((error: unknown) => error);
    expect(elsewhere).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    const retryAfter = (elsewhere as { retryAfterSeconds: number }).retryAfterSeconds;
    expect(retryAfter).toBeGreaterThanOrEqual(25);
    expect(retryAfter).toBeLessThanOrEqual(30);
    // The database is back: the instance whose request ended takes the claim over at once.
    outage.end();
    const retry = await placeWithKey('outage-1', input, instance);
    expect(retry.replayed).toBe(false);
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 2 });
    expect(await placeWithKey('outage-1', input)).toMatchObject({ replayed: true, result: { id: retry.result.id } });
  });

  it('marks an ended claim in the database once it is back, so a retry on any instance answers at once', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const input = { items: [{ productId: product.id, quantity: 1 }] };
    // The database fails after the reservation: the order is not written, the outcome unknown to the client.
    const outage = outageStore(database.store, 'after-reserving');
    const instance = await testCore(outage.store);
    const before = (await orderCount()) ?? 0;
    await expect(placeWithKey('outage-2', input, instance)).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    outage.end();
    await expect
      .poll(async () => (await database.db.query("SELECT ended_at FROM idempotency_keys WHERE key = 'outage-2'"))[0], {
        timeout: 3000,
      })
      .toMatchObject({ ended_at: expect.any(Date) });
    // Another instance, long before the lease ran out, takes the ended claim over and places the order.
    const retry = await placeWithKey('outage-2', input);
    expect(retry.replayed).toBe(false);
    expect((await orderCount()) ?? 0).toBe(before + 1);
    expect(await placeWithKey('outage-2', input)).toMatchObject({ replayed: true, result: { id: retry.result.id } });
  });

  it('completes the claim with the order in one statement: a lost answer after it is replayed anywhere at once', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const input = { items: [{ productId: product.id, quantity: 1 }] };
    const outage = outageStore(database.store, 'after-committing');
    const instance = await testCore(outage.store);
    const before = (await orderCount()) ?? 0;
    await expect(placeWithKey('outage-3', input, instance)).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    // No lease to wait out and nothing to mark: the key holds its outcome already.
    const retry = await placeWithKey('outage-3', input);
    expect(retry.replayed).toBe(true);
    expect((await orderCount()) ?? 0).toBe(before + 1);
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 1 });
  });

  it('sweeps claims past their lease and the stock they held', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const input = { items: [{ productId: product.id, quantity: 2 }] };
    const dyingCore = await testCore(dyingStore(database.store, 'after-reserving'));
    await expect(placeWithKey('lease-3', input, dyingCore)).rejects.toThrow('process killed');
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 2 });
    const later = await leaseRunOut();
    expect(await later.idempotency.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 0 });
  });
});
