/**
 * The SQL store against a real database: in-memory PGlite by default, a PostgreSQL schema of its own with
 * TEST_DATABASE_URL. These are the promises the core relies on and cannot check itself: atomic
 * reservations that roll back, optimistic versions, keyset pages that neither skip nor repeat rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/core/ports/index.js';
import type { Address, Product, User } from '../../src/core/shared/model.js';
import { type Minor, minor } from '../../src/core/shared/money.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { writeOrder } from '../support/store-orders.js';

let database: TestDatabase;
let store: Store;
let user: User;
let sequence = 0;

const address: Address = { zipCode: '04524', line1: '1 Road', line2: null };
const unique = () => `${Date.now().toString(36)}-${++sequence}`;

async function newProduct(stock = 10, price = minor(1_000)): Promise<Product> {
  const product = await store.products.insert({ name: 'Lamp', imageUrl: null, sku: `SKU-${unique()}`, price }, stock);
  if (product === 'sku-taken') throw new Error('sku taken');
  return product;
}

const newOrder = (product: Product, amount: Minor) =>
  writeOrder(store, user.id, [{ productId: product.id, sku: product.sku, quantity: 1, unitPrice: amount }]);

beforeAll(async () => {
  database = await openTestDatabase();
  store = database.store;
  const inserted = await store.users.insert({
    name: 'Store',
    email: `store-${unique()}@example.com`,
    phone: null,
    address,
    nickname: null,
    marketingAgreed: false,
  });
  if (inserted === 'email-taken') throw new Error('email taken');
  user = inserted;
});
afterAll(() => database?.close());

describe('the SQL store', () => {
  it('refuses a second product with the same SKU and creates its stock record', async () => {
    const product = await newProduct(7);
    expect(await store.products.insert({ name: 'Other', imageUrl: null, sku: product.sku, price: minor(1) }, 1)).toBe(
      'sku-taken',
    );
    expect(await store.inventory.stock(product.sku)).toEqual({ sku: product.sku, onHand: 7, reserved: 0 });
  });

  it('refuses a second user with the same email, in any case', async () => {
    const taken = await store.users.insert({
      name: 'Again',
      email: user.email.toUpperCase(),
      phone: null,
      address: null,
      nickname: null,
      marketingAgreed: false,
    });
    expect(taken).toBe('email-taken');
  });

  it('reserves atomically: replays, mismatches, refuses beyond stock and unknown SKUs', async () => {
    const { sku } = await newProduct(5);
    const later = new Date(Date.now() + 600_000);
    const first = await store.inventory.reserve(9001, [{ sku, quantity: 3 }], later);
    expect(first).toMatchObject({ kind: 'reserved', replayed: false, stocks: [{ onHand: 5, reserved: 3 }] });
    const again = store.inventory.reserve(9001, [{ sku, quantity: 3 }], later);
    expect(await again).toMatchObject({ kind: 'reserved', replayed: true });
    expect(await store.inventory.reserve(9001, [{ sku, quantity: 2 }], later)).toMatchObject({ kind: 'mismatch' });
    expect(await store.inventory.reserve(9002, [{ sku, quantity: 3 }], later)).toMatchObject({
      kind: 'insufficient',
      stock: { onHand: 5, reserved: 3 },
    });
    const unknown = await store.inventory.reserve(9003, [{ sku: 'NO-SUCH-SKU', quantity: 1 }], later);
    expect(unknown).toEqual({ kind: 'unknown-sku', sku: 'NO-SUCH-SKU' });
    expect(await store.inventory.stock(sku)).toMatchObject({ onHand: 5, reserved: 3 });
  });

  it('reserves every line of an order or none, and a retry replays them all', async () => {
    const [a, b] = [await newProduct(5), await newProduct(1)];
    const later = new Date(Date.now() + 600_000);
    const lines = [
      { sku: b.sku, quantity: 2 },
      { sku: a.sku, quantity: 2 },
    ];
    // b has 1 unit: neither line is held, and a keeps all its stock.
    expect(await store.inventory.reserve(9201, lines, later)).toMatchObject({ kind: 'insufficient', quantity: 2 });
    expect(await store.inventory.stock(a.sku)).toMatchObject({ reserved: 0 });
    lines[0] = { sku: b.sku, quantity: 1 };
    const held = await store.inventory.reserve(9201, lines, later);
    expect(held).toMatchObject({ kind: 'reserved', replayed: false });
    // The answer is in SKU order, whatever the order of the lines.
    const skus = [a.sku, b.sku].sort();
    expect(held.kind === 'reserved' && held.reservations.map((reservation) => reservation.sku)).toEqual(skus);
    expect(await store.inventory.reserve(9201, lines, later)).toMatchObject({ kind: 'reserved', replayed: true });
    expect(await store.inventory.stock(a.sku)).toMatchObject({ reserved: 2 });
  });

  it('rolls a reservation back when the check before commit refuses it', async () => {
    const { sku } = await newProduct(5);
    const later = new Date(Date.now() + 600_000);
    await expect(
      store.inventory.reserve(9101, [{ sku, quantity: 2 }], later, () => {
        throw new Error('deadline passed');
      }),
    ).rejects.toThrow('deadline passed');
    expect(await store.inventory.stock(sku)).toMatchObject({ onHand: 5, reserved: 0 });
    // No reservation row was left behind either: the same order's reservation is new, not a replay.
    const retried = await store.inventory.reserve(9101, [{ sku, quantity: 2 }], later);
    expect(retried).toMatchObject({ kind: 'reserved', replayed: false });
  });

  it('writes an order only at the version it was read at', async () => {
    const product = await newProduct();
    const order = await newOrder(product, minor(500));
    const change = {
      orderId: order.id,
      status: order.status,
      shippingAddress: address,
      couponCode: null,
      changed: ['note'] as const,
    };
    const changed = await store.orders.change({ ...change, version: order.version, note: 'first' });
    expect(changed).toMatchObject({ note: 'first', version: order.version + 1 });
    expect(await store.orders.change({ ...change, version: order.version, note: 'stale write' })).toBe('stale');
    expect(await store.orders.get(order.id)).toMatchObject({ note: 'first' });
  });

  it('pages by keyset through equal sort values without skipping or repeating an order', async () => {
    const product = await newProduct(100);
    const placed: number[] = [];
    // Seven orders, amounts with ties: the id breaks them.
    for (const amount of [300, 100, 300, 200, 300, 100, 200]) placed.push((await newOrder(product, minor(amount))).id);
    const filters = { userId: user.id, ids: placed };
    // One direction throughout (a row comparison in SQL) and mixed directions (the OR expansion).
    for (const idDescending of [true, false]) {
      const sort = [
        { field: 'amount', descending: true },
        { field: 'id', descending: idDescending },
      ];
      const seen: Array<{ id: number; amount: number }> = [];
      let after: Array<string | number> | undefined;
      for (let page = 0; page < 10; page++) {
        const rows = await store.orders.list({ filters, sort, limit: 3, ...(after ? { after } : {}) });
        seen.push(...rows.map((order) => ({ id: order.id, amount: order.amount })));
        const last = rows.at(-1);
        if (rows.length < 3 || !last) break;
        after = [last.amount, last.id];
      }
      const expected = [...seen].sort((a, b) => b.amount - a.amount || (idDescending ? b.id - a.id : a.id - b.id));
      expect(seen.map((order) => order.id).sort()).toEqual([...placed].sort());
      expect(seen).toEqual(expected);
    }
    expect(await store.orders.count(filters)).toBe(7);
  });

  it('reads the items of several orders in one call, each under its own order', async () => {
    const product = await newProduct(100);
    const [a, b] = [await newOrder(product, minor(111)), await newOrder(product, minor(222))];
    const items = await store.orders.items([a.id, b.id]);
    expect(items.map((item) => [item.orderId, item.amount])).toEqual([
      [a.id, 111],
      [b.id, 222],
    ]);
  });
});
