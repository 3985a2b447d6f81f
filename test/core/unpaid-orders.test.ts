/**
 * Stock cannot be held hostage: an order still PENDING UNPAID_ORDER_MINUTES after it was
 * placed is canceled by the server, which releases its stock and writes `order.canceled`; an order placed
 * before the rule existed keeps the rule it was placed under. Runs on PGlite, and on PostgreSQL 15 with
 * TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import { UNPAID_REASON } from '../../src/core/orders/orders.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';

let database: TestDatabase;
let core: TestCore;
let admin: Caller;
let hoarder: Caller;
let other: Caller;

/** Moves an order's placement back by `hours`, as if it had been waiting that long. */
const age = (orderId: number, hours: number) =>
  database.db.query(`UPDATE orders SET created_at = created_at - make_interval(hours => $2) WHERE id = $1`, [
    orderId,
    hours,
  ]);

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store, { unpaidOrderMinutes: 24 * 60 });
  admin = await makeAdmin(database.store);
  hoarder = await makeCustomer(core, admin, 'Hoarder');
  other = await makeCustomer(core, admin, 'Other');
});
afterAll(() => database?.close());

describe('unpaid orders', () => {
  it('are canceled after UNPAID_ORDER_MINUTES, releasing the stock another customer then buys', async () => {
    const product = await makeProduct(core, admin, 500, 40);
    const hostage = (await core.orders.place(hoarder, { items: [{ productId: product.id, quantity: 40 }] })).result;
    const refused = (await core.orders
      .place(other, { items: [{ productId: product.id, quantity: 1 }] })
      .catch((error: { code: string }) => error)) as { code: string };
    expect(refused.code).toBe('INSUFFICIENT_STOCK');

    await age(hostage.id, 23);
    expect(await core.orders.expireUnpaid()).toBe(0);
    await age(hostage.id, 2);
    expect(await core.orders.expireUnpaid()).toBe(1);

    expect((await core.orders.get(admin, hostage.id)).status).toBe('CANCELED');
    expect(await database.store.orders.cancellation(hostage.id)).toMatchObject({ reason: UNPAID_REASON });
    expect(await core.inventory.stock(product.sku)).toMatchObject({ onHand: 40, reserved: 0 });
    const events = await database.store.events.list({ types: ['order.canceled'] }, { since: new Date(0), limit: 100 });
    expect(events.map((event) => event.subject)).toContain(`order:${hostage.id}`);
    const bought = (await core.orders.place(other, { items: [{ productId: product.id, quantity: 40 }] })).result;
    expect(bought.status).toBe('PENDING');
    expect(await core.orders.expireUnpaid()).toBe(0);
  });

  it('leaves paid orders, and orders placed before the rule existed, as they are', async () => {
    const product = await makeProduct(core, admin, 500, 10);
    const placed = (await core.orders.place(hoarder, { items: [{ productId: product.id, quantity: 2 }] })).result;
    await core.orders.update(admin, placed.id, { status: 'PAID' });
    const before = (await core.orders.place(hoarder, { items: [{ productId: product.id, quantity: 3 }] })).result;
    await database.db.query('UPDATE orders SET unpaid_expiry = false WHERE id = $1', [before.id]);
    await age(placed.id, 48);
    await age(before.id, 48);
    expect(await core.orders.expireUnpaid()).toBe(0);
    expect((await core.orders.get(admin, placed.id)).status).toBe('PAID');
    expect((await core.orders.get(admin, before.id)).status).toBe('PENDING');
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 5 });
  });

  it('does not cancel an order paid after the sweep found it unpaid', async () => {
    const product = await makeProduct(core, admin, 500, 10);
    const placed = (await core.orders.place(hoarder, { items: [{ productId: product.id, quantity: 2 }] })).result;
    await core.orders.update(admin, placed.id, { status: 'PAID' });
    // The race: the sweep's query saw the order PENDING; it was paid before the cancellation was written.
    const racing = await testCore(
      { ...database.store, orders: { ...database.store.orders, unpaidOlderThan: async () => [placed.id] } },
      { unpaidOrderMinutes: 24 * 60 },
    );
    expect(await racing.orders.expireUnpaid()).toBe(0);
    expect((await core.orders.get(admin, placed.id)).status).toBe('PAID');
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 2 });
  });
});
