/**
 * Fencing: a holder whose lease was taken over changes nothing (docs/decisions.md, "Leases and fencing").
 * Each case stages the late writer by hand, in the order a slow request would produce: the claim of a
 * request outlives its lease, a retry takes the key over, then the first request writes. And an order
 * commits only while every reservation of it is still held; a release that looked before the order
 * committed leaves what the order kept alone (that interleaving needs two sessions: PostgreSQL only).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product, User } from '../../src/core/shared/model.js';
import { minor } from '../../src/core/shared/money.js';
import { releaseUnkept } from '../../src/store/inventory-store.js';
import { sqlOutbox } from '../../src/store/outbox.js';
import { openTestDatabase, type TestDatabase, testDatabaseUrl } from '../support/database.js';
import { writeOrder } from '../support/store-orders.js';

let database: TestDatabase;
let user: User;
let sequence = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  const inserted = await database.store.users.insert({
    name: 'Fence',
    email: 'fence@lease.example.com',
    phone: null,
    address: null,
    nickname: null,
    marketingAgreed: false,
  });
  if (inserted === 'email-taken') throw new Error('fresh database');
  user = inserted;
});
afterAll(() => database?.close());

async function product(stock: number): Promise<Product> {
  const made = await database.store.products.insert(
    { name: 'Fence', imageUrl: null, sku: `FENCE-${++sequence}`, price: minor(100) },
    stock,
  );
  if (made === 'sku-taken') throw new Error('sku taken');
  return made;
}

/** Claims `key` for a request; with `leaseStart` in the future, any claim before now counts as dead. */
async function claim(key: string, fingerprint = 'f', leaseStart = new Date(Date.now() - 30_000)) {
  const claimed = await database.store.idempotency.claim(
    'fence',
    key,
    'orders.place',
    fingerprint,
    new Date(0),
    leaseStart,
    undefined,
    randomUUID(),
  );
  if (claimed.kind !== 'claimed') throw new Error(`not claimed: ${claimed.kind}`);
  return claimed.token;
}

/** The first request's claim, then a retry's takeover once the lease ran out (as a later instant sees it). */
async function takenOver(key: string) {
  const first = await claim(key);
  await new Promise((resolve) => setTimeout(resolve, 5)); // a later millisecond: another token
  const retry = await claim(key, 'f', new Date(Date.now() + 1000));
  expect(retry).not.toBe(first);
  return { first, retry };
}

describe('an idempotency claim taken over', () => {
  it("is not freed by its first holder's late abandon, so a third request finds the key in use", async () => {
    const { first } = await takenOver('fence-abandon');
    expect(await database.store.idempotency.abandon('fence', 'fence-abandon', first)).toBe(false);
    const third = await database.store.idempotency.claim(
      'fence',
      'fence-abandon',
      'orders.place',
      'f',
      new Date(0),
      new Date(0),
      undefined,
      randomUUID(),
    );
    expect(third.kind).toBe('in-progress');
  });

  it("keeps the retry's result against its first holder's late complete and hold", async () => {
    const { first, retry } = await takenOver('fence-complete');
    expect(await database.store.idempotency.hold('fence', 'fence-complete', first, 77)).toBe(false);
    expect(await database.store.idempotency.complete('fence', 'fence-complete', first, { from: 'first' })).toBe(false);
    expect(await database.store.idempotency.complete('fence', 'fence-complete', retry, { from: 'retry' })).toBe(true);
    const replay = await database.store.idempotency.claim(
      'fence',
      'fence-complete',
      'orders.place',
      'f',
      new Date(0),
      new Date(0),
      undefined,
      randomUUID(),
    );
    expect(replay).toMatchObject({ kind: 'completed', result: { from: 'retry' } });
  });

  it('does not write an order whose claim a retry took over', async () => {
    const { sku, id: productId } = await product(5);
    const { first } = await takenOver('fence-order');
    const completes = { caller: 'fence', key: 'fence-order', token: first };
    await expect(
      writeOrder(database.store, user.id, [{ productId, sku, quantity: 1, unitPrice: minor(100) }], completes),
    ).rejects.toThrow('order not written: claim-lost');
    expect(
      await database.db.query('SELECT 1 FROM orders o JOIN order_items i ON i.order_id = o.id WHERE i.sku = $1', [sku]),
    ).toEqual([]);
  });
});

describe('an order and its reservations', () => {
  it('is not written when a reservation of it was released first (its expiry swept it)', async () => {
    const { sku, id: productId } = await product(3);
    const line = { productId, sku, quantity: 2, unitPrice: minor(100) };
    const sweepFirst = () => database.store.inventory.expire(new Date(Date.now() + 3_600_000));
    await expect(writeOrder(database.store, user.id, [line], undefined, sweepFirst)).rejects.toThrow(
      'order not written: reservation-lost',
    );
    expect(await database.store.inventory.stock(sku)).toMatchObject({ onHand: 3, reserved: 0 });
  });

  it('keeps what an order kept from the expiry sweep and from a dead claim', async () => {
    const { sku, id: productId } = await product(3);
    const order = await writeOrder(database.store, user.id, [{ productId, sku, quantity: 2, unitPrice: minor(100) }]);
    expect(await database.store.inventory.expire(new Date(Date.now() + 3_600_000))).toBe(0);
    await database.db.transaction((tx) => releaseUnkept(tx, sqlOutbox(database.db), order.id));
    expect(await database.store.inventory.stock(sku)).toMatchObject({ reserved: 2 });
  });

  it.runIf(testDatabaseUrl)(
    'leaves alone what an order kept while a release that looked before was waiting (PostgreSQL)',
    async () => {
      const { sku, id: productId } = await product(3);
      const line = { productId, sku, quantity: 2, unitPrice: minor(100) };
      let release: Promise<unknown> | undefined;
      // The release looks first (the order is not there), then the order commits, then the release writes.
      const order = await writeOrder(database.store, user.id, [line], undefined, async (orderId) => {
        let looked: () => void = () => undefined;
        const lookedFirst = new Promise<void>((resolve) => {
          looked = resolve;
        });
        release = database.db.transaction(async (tx) => {
          const seen = await tx.query('SELECT 1 FROM orders WHERE id = $1', [orderId]);
          expect(seen).toEqual([]);
          looked();
          await new Promise((resolve) => setTimeout(resolve, 300)); // the order commits meanwhile
          return releaseUnkept(tx, sqlOutbox(database.db), orderId);
        });
        await lookedFirst;
      });
      expect(await release).toEqual([]);
      expect(await database.store.orders.get(order.id)).toBeDefined();
      expect(await database.store.inventory.stock(sku)).toMatchObject({ onHand: 3, reserved: 2 });
    },
  );
});
