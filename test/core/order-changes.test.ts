/**
 * The rules of changing an order (src/core/orders/order-changes.ts) as a client meets them: what a change
 * writes, what it leaves alone (no new version), what each refusal says, and where the stock goes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import type { Order } from '../../src/core/shared/index.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { makeAdmin, makeCustomer, makeProduct, refusalOf } from '../support/fixtures.js';

let database: TestDatabase;
let core: TestCore;
let admin: Caller;
let alice: Caller;

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store);
  admin = await makeAdmin(database.store);
  alice = await makeCustomer(core, admin, 'Alice');
});
afterAll(() => database?.close());

const address = { zipCode: '100-0001', line1: 'Main St 1', line2: null };
async function placed(quantity = 2) {
  const product = await makeProduct(core, admin, 1_000, 10);
  const { result } = await core.orders.place(alice, {
    items: [{ productId: product.id, quantity }],
    shippingAddress: address,
  });
  return { product, order: result };
}

describe('a change that changes nothing', () => {
  it('writes no new version: the same note, coupon and address (a missing line2 is null)', async () => {
    const { order } = await placed();
    const noted = await core.orders.update(alice, order.id, { note: 'ring', couponCode: 'C10' });
    const same = await core.orders.update(alice, order.id, {
      note: 'ring',
      couponCode: 'C10',
      // As a transport may pass an address whose client left line2 out.
      shippingAddress: { zipCode: address.zipCode, line1: address.line1 } as typeof address,
    });
    expect(same.version).toBe(noted.version);
  });

  it('writes one when any member differs, a coupon or one line of the address', async () => {
    const { order } = await placed();
    const coupon = await core.orders.update(alice, order.id, { couponCode: 'C20' });
    expect(coupon.version).toBe(order.version + 1);
    for (const shippingAddress of [
      { ...address, zipCode: '100-0002' },
      { ...address, zipCode: '100-0002', line1: 'Side St 2' },
      { ...address, zipCode: '100-0002', line1: 'Side St 2', line2: 'Flat 3' },
    ]) {
      const before = await core.orders.get(alice, order.id);
      const after = await core.orders.update(alice, order.id, { shippingAddress });
      expect(after.version, JSON.stringify(shippingAddress)).toBe(before.version + 1);
      expect(after.shippingAddress).toEqual(shippingAddress);
    }
  });
});

describe('what a change writes', () => {
  it('replaces the note and coupon with those given', async () => {
    const { order } = await placed();
    const replaced = await core.orders.replace(alice, order.id, {
      status: 'PENDING',
      shippingAddress: address,
      note: 'leave at the door',
      couponCode: 'WINTER',
    });
    expect(replaced).toMatchObject({ note: 'leave at the door', couponCode: 'WINTER' });
  });

  it('refuses a read-only member sent with another value, and ignores it sent back unchanged', async () => {
    const { order } = await placed();
    const view = (current: Order) => ({ id: current.id, amount: current.amount });
    expect(
      await refusalOf(
        core.orders.update(alice, order.id, { note: 'x' }, { echo: { sent: { amount: order.amount + 1 }, view } }),
      ),
    ).toEqual({ code: 'READ_ONLY_FIELD', detail: 'Read-only members cannot be changed: /amount.' });
    const noted = await core.orders.update(
      alice,
      order.id,
      { note: 'x' },
      { echo: { sent: { amount: order.amount }, view } },
    );
    expect(noted.note).toBe('x');
  });

  it('consumes the reserved stock when the order ships', async () => {
    const { product, order } = await placed(3);
    await core.orders.update(admin, order.id, { status: 'PAID' });
    expect(await core.inventory.stock(product.sku)).toMatchObject({ onHand: 10, reserved: 3 });
    await core.orders.update(admin, order.id, { status: 'SHIPPED' });
    expect(await core.inventory.stock(product.sku)).toMatchObject({ onHand: 7, reserved: 0 });
  });

  it('names a stale version in its refusal', async () => {
    const { order } = await placed();
    await core.orders.update(alice, order.id, { note: 'first' });
    expect(
      await refusalOf(core.orders.update(alice, order.id, { note: 'x' }, { ifMatchVersion: order.version })),
    ).toEqual({ code: 'PRECONDITION_FAILED', detail: `Order ${order.id} changed since it was read.` });
  });
});

describe('the refusals of moves', () => {
  it('says which move an order cannot make, and that an order is already canceled', async () => {
    const { order } = await placed();
    await core.orders.update(admin, order.id, { status: 'SHIPPED' });
    expect(await refusalOf(core.orders.update(admin, order.id, { status: 'PAID' }))).toEqual({
      code: 'INVALID_TRANSITION',
      detail: 'An order cannot move from SHIPPED to PAID.',
    });
    const other = (await placed()).order;
    await core.orders.cancel(alice, { orderId: other.id });
    expect(await refusalOf(core.orders.cancel(alice, { orderId: other.id }))).toEqual({
      code: 'ALREADY_CANCELED',
      detail: `Order ${other.id} is already canceled.`,
    });
  });
});

describe('deleting an order', () => {
  it('deletes a canceled order, refuses a paid one saying why, and checks the version', async () => {
    const { order } = await placed();
    await core.orders.cancel(alice, { orderId: order.id });
    const canceled = await core.orders.get(admin, order.id);
    expect(await refusalOf(core.orders.remove(admin, order.id, canceled.version - 1))).toEqual({
      code: 'PRECONDITION_FAILED',
      detail: `Order ${order.id} changed since it was read.`,
    });
    await core.orders.remove(admin, order.id, canceled.version);
    expect((await refusalOf(core.orders.get(admin, order.id))).code).toBe('ORDER_NOT_FOUND');

    const paid = (await placed()).order;
    await core.orders.update(admin, paid.id, { status: 'PAID' });
    expect(await refusalOf(core.orders.remove(admin, paid.id))).toEqual({
      code: 'INVALID_TRANSITION',
      detail: 'A PAID order cannot be deleted; cancel it first.',
    });
  });
});

describe('a shipment’s carrier data', () => {
  it('is changed by admins only, once the order has a shipment, member by member', async () => {
    const { order } = await placed();
    expect((await refusalOf(core.orders.updateShipment(admin, order.id, { carrier: 'DHL' }))).code).toBe(
      'SHIPMENT_NOT_FOUND',
    );
    await core.orders.update(admin, order.id, { status: 'PAID' });
    expect((await refusalOf(core.orders.updateShipment(alice, order.id, { carrier: 'DHL' }))).code).toBe('FORBIDDEN');
    expect(await core.orders.updateShipment(admin, order.id, { carrier: 'DHL' })).toMatchObject({
      carrier: 'DHL',
      trackingNumber: null,
    });
    expect(await core.orders.updateShipment(admin, order.id, { trackingNumber: 'JD0001' })).toMatchObject({
      carrier: 'DHL',
      trackingNumber: 'JD0001',
    });
  });
});
