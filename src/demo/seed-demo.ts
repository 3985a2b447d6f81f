/**
 * The demo data set of the embedded database (SEED_DEMO): written through the core's use cases, as any
 * client would, so it obeys every rule. Not part of the core; the composition root passes it to bootstrap.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Caller, Core } from '../core/index.js';
import { DomainError } from '../core/shared/errors.js';
import { minor } from '../core/shared/money.js';
import type { OrderStatus } from '../core/shared/order-state.js';

const address = (zipCode: string, line1: string, line2: string | null = null) => ({ zipCode, line1, line2 });

/** A small, realistic data set: customers, products with stock and ratings, orders in every state. */
export async function seedDemo(core: Core, admin: Caller): Promise<string> {
  const { result: kim } = await core.users.create(admin, {
    name: 'Kim Minji',
    email: 'minji.kim@example.com',
    phone: '+82-10-1234-5678',
    address: address('04524', '12 Harbor Road', 'Unit 3'),
    nickname: 'minji',
    marketingAgreed: true,
  });
  const { result: lee } = await core.users.create(admin, {
    name: 'Lee Jun',
    email: 'jun.lee@example.com',
    address: address('06236', '88 Teheran-ro'),
  });
  const products = [];
  for (const [name, sku, priceMinor, stock, imageUrl] of [
    ['Ceramic pour-over dripper', 'DRIP-CER-01', 2_900, 40, 'https://images.example.com/dripper.jpg'],
    ['Hand grinder, steel burr', 'GRND-STL-02', 8_900, 15, 'https://images.example.com/grinder.jpg'],
    ['Paper filters, 100 pack', 'FILT-100', 650, 500, null],
    ['Gooseneck kettle 1 l', 'KETL-GN-1L', 5_450, 8, 'https://images.example.com/kettle.jpg'],
    ['Single-origin beans 250 g', 'BEAN-SO-250', 1_799, 120, 'https://images.example.com/beans.jpg'],
    // The product of the contracts' examples (id 6, SKU KB-ERGO-01), so that they work against the demo.
    ['Ergonomic Keyboard', 'KB-ERGO-01', 4_950, 40, 'https://img.example.com/kb-ergo-01.png'],
  ] as const) {
    products.push((await core.products.create(admin, { name, sku, price: minor(priceMinor), stock, imageUrl })).result);
  }
  const [dripper, grinder, filters, kettle, beans, keyboard] = products as [
    (typeof products)[0],
    (typeof products)[0],
    (typeof products)[0],
    (typeof products)[0],
    (typeof products)[0],
    (typeof products)[0],
  ];

  let placed = 0;
  const place = async (userId: number, items: Array<[number, number]>, status: OrderStatus, note?: string) => {
    const lines = items.map(([productId, quantity]) => ({ productId, quantity }));
    const order = await placeAsAClientWould(core, admin, { userId, items: lines, ...(note ? { note } : {}) }, ++placed);
    if (status === 'CANCELED') {
      await core.orders.cancel(admin, { orderId: order.id, reason: 'Ordered by mistake' });
    } else if (status !== 'PENDING') {
      await core.orders.update(admin, order.id, { status });
    }
    return order;
  };
  await place(
    kim.id,
    [
      [dripper.id, 1],
      [filters.id, 2],
    ],
    'PENDING',
    'Please leave at the door',
  );
  await place(kim.id, [[beans.id, 2]], 'PAID');
  const shipped = await place(lee.id, [[grinder.id, 1]], 'SHIPPED');
  await core.orders.updateShipment(admin, shipped.id, { carrier: 'CJ Logistics', trackingNumber: '6892 1234 5678' });
  await place(
    lee.id,
    [
      [kettle.id, 1],
      [beans.id, 1],
    ],
    'DELIVERED',
  );
  await place(kim.id, [[filters.id, 1]], 'CANCELED');

  const kimCaller: Caller = { userId: kim.id, role: 'customer', apiKeyId: null };
  // Draft 1 of the contracts' examples: two keyboards, not yet ordered.
  await core.drafts.create(kimCaller, { items: [{ productId: keyboard.id, quantity: 2 }] });
  const leeCaller: Caller = { userId: lee.id, role: 'customer', apiKeyId: null };
  await core.products.rate(kimCaller, beans.id, { score: 5, comment: 'Bright and fruity.' });
  await core.products.rate(leeCaller, beans.id, { score: 4 });
  await core.products.rate(leeCaller, kettle.id, { score: 4, comment: 'Pours precisely.' });

  return core.apiKeys.issueForSeed(kim.id, 'customer');
}

/**
 * Places an order under an Idempotency-Key and, when it runs out of its budget (a busy machine at the first
 * start), retries with the same key after Retry-After, as the contract tells clients to: once placed, the
 * retry answers with the same order.
 */
async function placeAsAClientWould(
  core: Core,
  admin: Caller,
  input: Parameters<Core['orders']['place']>[1],
  nth: number,
) {
  const idempotencyKey = `demo-seed-order-${nth}`;
  for (let attempt = 1; ; attempt++) {
    try {
      return (await core.orders.place(admin, input, { idempotencyKey })).result;
    } catch (error) {
      const retryable =
        error instanceof DomainError && (error.code === 'UPSTREAM_TIMEOUT' || error.code === 'IDEMPOTENCY_KEY_IN_USE');
      if (!retryable || attempt === 5) throw error;
      await sleep((error.retryAfterSeconds ?? 1) * 1000);
    }
  }
}
