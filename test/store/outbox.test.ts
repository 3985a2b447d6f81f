/** The outbox: an event is written in the transaction of its change, so neither commits without the other. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minor } from '../../src/core/shared/money.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { writeOrder } from '../support/store-orders.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.close());

describe('the outbox', () => {
  it('writes order.created with the order, and no order when its event cannot be written', async () => {
    const { db, store } = database;
    const user = await store.users.insert({
      name: 'Otto',
      email: 'otto@outbox.example.com',
      phone: null,
      address: null,
      nickname: null,
      marketingAgreed: false,
    });
    if (user === 'email-taken') throw new Error('fresh database');
    const product = await store.products.insert(
      { name: 'Box', imageUrl: null, sku: 'OUTBOX-1', price: minor(1000) },
      5,
    );
    if (product === 'sku-taken') throw new Error('fresh database');
    const line = { productId: product.id, sku: product.sku, quantity: 1, unitPrice: product.price };
    const placed = await writeOrder(store, user.id, [line]);
    expect(await store.orders.get(placed.id)).toMatchObject({ userId: user.id });
    const events = await db.query<{ type: string; subject: string }>(
      `SELECT type, subject FROM events WHERE type LIKE 'order.%'`,
    );
    expect(events).toEqual([{ type: 'order.created', subject: `order:${placed.id}` }]);

    await db.exec(`CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN IF NEW.type LIKE 'order.%' THEN RAISE EXCEPTION 'outbox down'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql;
                   CREATE TRIGGER refuse BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse();`);
    await expect(writeOrder(store, user.id, [line])).rejects.toThrow(/outbox down/);
    // The stock was reserved (its events are not refused), but the order's write failed whole: no second
    // order, and its reservation is still waiting for an order (it expires).
    const orders = await db.query('SELECT id FROM orders');
    expect(orders.map((row) => Number(row.id))).toEqual([placed.id]);
    const waiting = await db.query(`SELECT 1 FROM reservations WHERE state = 'HELD' AND expires_at IS NOT NULL`);
    expect(waiting).toHaveLength(1);
    await db.exec('DROP TRIGGER refuse ON events');
  });
});
