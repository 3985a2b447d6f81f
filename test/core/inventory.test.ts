import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/index.js';
import { createInventoryService, RESERVATION_TTL_MS } from '../../src/core/inventory/inventory.js';
import { openTestDatabase, type TestCore, type TestDatabase, testCore, testDatabaseUrl } from '../support/database.js';
import { codeOf, makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';
import { requires } from '../support/requires.js';

let database: TestDatabase;
let core: TestCore;
let admin: Caller;

beforeAll(async () => {
  database = await openTestDatabase({ poolSize: 20 });
  core = await testCore(database.store);
  admin = await makeAdmin(database.store);
});
afterAll(() => database?.close());

const code = codeOf;

describe('inventory', () => {
  it('reserves idempotently per (order, SKU) and refuses a retry with another quantity', async () => {
    const { sku } = await makeProduct(core, admin, 100, 10);
    const first = await core.inventory.reserve('900001', sku, 3);
    const retry = await core.inventory.reserve('900001', sku, 3);
    expect(first).toMatchObject({ replayed: false, stock: { onHand: 10, reserved: 3 } });
    expect(retry).toMatchObject({ replayed: true, reservation: first.reservation });
    expect(await code(core.inventory.reserve('900001', sku, 4))).toBe('RESERVATION_MISMATCH');
    expect(await core.inventory.stock(sku)).toMatchObject({ reserved: 3 });
  });

  it('releases idempotently and reports unknown reservations', async () => {
    const { sku } = await makeProduct(core, admin, 100, 10);
    await core.inventory.reserve('900002', sku, 2);
    expect(await core.inventory.release('900002', sku)).toEqual([expect.objectContaining({ state: 'RELEASED' })]);
    expect(await core.inventory.release('900002', sku)).toEqual([expect.objectContaining({ state: 'RELEASED' })]);
    expect(await core.inventory.stock(sku)).toMatchObject({ reserved: 0 });
    expect(await code(core.inventory.release('900003', sku))).toBe('RESERVATION_NOT_FOUND');
  });

  // The input rules (ids, quantity, SKU form) are the proto's, checked by the gRPC service before the core.
  it('reports unknown SKUs', async () => {
    expect(await code(core.inventory.reserve('12', 'NO-SUCH-SKU', 1))).toBe('SKU_NOT_FOUND');
    expect(await code(core.inventory.stock('NO-SUCH-SKU'))).toBe('SKU_NOT_FOUND');
  });

  it('adjusts on-hand stock but never below what is reserved', async () => {
    const { sku } = await makeProduct(core, admin, 100, 5);
    await core.inventory.reserve('900004', sku, 4);
    expect(await core.inventory.adjust(sku, 3)).toEqual({ sku, onHand: 8, reserved: 4 });
    expect(await code(core.inventory.adjust(sku, -5))).toBe('STOCK_BELOW_RESERVED');
    expect(await core.inventory.adjust(sku, -4)).toEqual({ sku, onHand: 4, reserved: 4 });
    expect(await core.inventory.adjust(sku, 0)).toEqual({ sku, onHand: 4, reserved: 4 });
    expect(await code(core.inventory.adjust('NO-SUCH-SKU', 0))).toBe('SKU_NOT_FOUND');
  });

  it('expires reservations whose order never appeared', async () => {
    const { sku } = await makeProduct(core, admin, 100, 5);
    await core.inventory.reserve('900005', sku, 2);
    const later = createInventoryService(database.store, () => new Date(Date.now() + RESERVATION_TTL_MS + 1_000));
    expect(await later.expireStale()).toBeGreaterThanOrEqual(1);
    expect(await core.inventory.stock(sku)).toMatchObject({ reserved: 0 });
  });

  it('keeps reservations of placed orders from expiring', async () => {
    const customer = await makeCustomer(core, admin);
    const product = await makeProduct(core, admin, 100, 5);
    await core.orders.place(customer, { items: [{ productId: product.id, quantity: 2 }] });
    const later = createInventoryService(database.store, () => new Date(Date.now() + RESERVATION_TTL_MS + 1_000));
    await later.expireStale();
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 2 });
  });
});

describe.runIf(
  requires(testDatabaseUrl, '50 simultaneous orders on a real PostgreSQL server', 'set TEST_DATABASE_URL'),
)('concurrent orders on a real PostgreSQL server', () => {
  it('never reserves more than is on hand: 50 simultaneous orders for 10 units', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    const customers = await Promise.all(Array.from({ length: 5 }, () => makeCustomer(core, admin)));
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        code(
          core.orders.place(customers[index % 5] as Caller, {
            items: [{ productId: product.id, quantity: 1 }],
          }),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'resolved')).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome === 'INSUFFICIENT_STOCK')).toHaveLength(40);
    expect(await core.inventory.stock(product.sku)).toEqual({ sku: product.sku, onHand: 10, reserved: 10 });
  });
});
