import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdempotencyService, IDEMPOTENCY_WINDOW_MS } from '../../src/core/idempotency.js';
import type { Caller, Core } from '../../src/core/index.js';
import type { Store } from '../../src/core/ports/index.js';
import { openTestDatabase, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';

let database: TestDatabase;
let core: Core;
let admin: Caller;
let customer: Caller;

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store);
  admin = await makeAdmin(database.store);
  customer = await makeCustomer(core, admin);
});
afterAll(() => database?.close());

const placeWithKey = (key: string, input: { items: Array<{ productId: number; quantity: number }> }) =>
  core.idempotency.run(customer, key, 'orders.place', input, () => core.orders.place(customer, input));

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
    const mine = await core.idempotency.run(
      { userId: 900_001, role: 'customer', apiKeyId: null },
      'shared',
      'orders.place',
      input,
      async () => 1,
    );
    const theirs = await core.idempotency.run(
      { userId: 900_002, role: 'customer', apiKeyId: null },
      'shared',
      'orders.place',
      input,
      async () => 2,
    );
    expect([mine, theirs]).toEqual([
      { result: 1, replayed: false },
      { result: 2, replayed: false },
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
    await core.idempotency.run(purger, 'old-key', 'users.create', { n: 1 }, async () => 1);
    const later = createIdempotencyService(database.store, () => new Date(Date.now() + IDEMPOTENCY_WINDOW_MS + 60_000));
    expect(await later.purgeExpired()).toBeGreaterThanOrEqual(1);
    const again = await core.idempotency.run(purger, 'old-key', 'users.create', { n: 2 }, async () => 2);
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
    const first = core.idempotency.run(customer, 'held-1', 'orders.place', input, async () => {
      started();
      await held;
      return core.orders.place(customer, input);
    });
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
    const dying: Store = {
      ...database.store,
      orders: { ...database.store.orders, insert: () => Promise.reject(new Error('process killed')) },
      inventory: { ...database.store.inventory, release: () => Promise.reject(new Error('process killed')) },
      idempotency: { ...database.store.idempotency, abandon: () => Promise.reject(new Error('process killed')) },
    };
    const dyingCore = await testCore(dying);
    await expect(
      dyingCore.idempotency.run(customer, 'lease-1', 'orders.place', input, () =>
        dyingCore.orders.place(customer, input),
      ),
    ).rejects.toThrow('process killed');
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 3 });
    // Within the lease the key is still in use.
    await expect(placeWithKey('lease-1', input)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    // Past it, the retry runs; the dead attempt's reservation goes back, only the new one holds stock.
    const later = createIdempotencyService(database.store, () => new Date(Date.now() + 60_000), 30_000);
    const retry = await later.run(customer, 'lease-1', 'orders.place', input, () => core.orders.place(customer, input));
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
    'answers a retry with the order a dead attempt wrote before it could complete its claim (sweep first: $sweptFirst)',
    async ({ sweptFirst, key }) => {
      const product = await makeProduct(core, admin, 100, 10);
      const input = { items: [{ productId: product.id, quantity: 1 }] };
      const dying: Store = {
        ...database.store,
        idempotency: { ...database.store.idempotency, complete: () => Promise.reject(new Error('connection lost')) },
      };
      const dyingCore = await testCore(dying);
      const before = (await orderCount()) ?? 0;
      await expect(
        dyingCore.idempotency.run(customer, key, 'orders.place', input, () => dyingCore.orders.place(customer, input)),
      ).rejects.toThrow('connection lost');
      const later = createIdempotencyService(database.store, () => new Date(Date.now() + 60_000), 30_000);
      if (sweptFirst) await later.purgeExpired();
      const retry = await later.run(customer, key, 'orders.place', input, () => core.orders.place(customer, input));
      expect((await orderCount()) ?? 0).toBe(before + 1);
      expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 1 });
      // Completed now: the next retry is a replay of the same order.
      const replay = await placeWithKey(key, input);
      expect(replay).toMatchObject({ replayed: true, result: { id: retry.result.id } });
    },
  );

  it('sweeps claims past their lease and the stock they held', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const input = { items: [{ productId: product.id, quantity: 2 }] };
    const dying: Store = {
      ...database.store,
      orders: { ...database.store.orders, insert: () => Promise.reject(new Error('process killed')) },
      inventory: { ...database.store.inventory, release: () => Promise.reject(new Error('process killed')) },
      idempotency: { ...database.store.idempotency, abandon: () => Promise.reject(new Error('process killed')) },
    };
    const dyingCore = await testCore(dying);
    await expect(
      dyingCore.idempotency.run(customer, 'lease-3', 'orders.place', input, () =>
        dyingCore.orders.place(customer, input),
      ),
    ).rejects.toThrow('process killed');
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 2 });
    const later = createIdempotencyService(database.store, () => new Date(Date.now() + 60_000), 30_000);
    expect(await later.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 0 });
  });
});
