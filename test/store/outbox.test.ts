/** The outbox: an event is written in the transaction of its change, so neither commits without the other. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minor } from '../../src/core/money.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.close());

const newOrder = (id: number, userId: number) => ({
  id,
  userId,
  items: [],
  amount: minor(1000),
  shippingAddress: { zipCode: '1', line1: 'x', line2: null },
  note: null,
  couponCode: null,
});

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
    const placed = await store.orders.insert(newOrder(await store.orders.allocateId(), user.id));
    expect(placed).toMatchObject({ userId: user.id });
    const events = await db.query<{ type: string; subject: string }>('SELECT type, subject FROM events');
    expect(events).toEqual([{ type: 'order.created', subject: `order:${(placed as { id: number }).id}` }]);

    await db.exec(`CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'outbox down'; END $$ LANGUAGE plpgsql;
                   CREATE TRIGGER refuse BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse();`);
    const id = await store.orders.allocateId();
    await expect(store.orders.insert(newOrder(id, user.id))).rejects.toThrow(/outbox down/);
    expect(await store.orders.get(id)).toBeUndefined();
    await db.exec('DROP TRIGGER refuse ON events');
  });
});
