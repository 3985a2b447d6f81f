import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Caller } from '../../src/core/index.js';
import { minor } from '../../src/core/shared/money.js';
import { coreRules, openTestDatabase, type TestCore, type TestDatabase, testCore } from '../support/database.js';
import { codeOf, makeAdmin, makeCustomer, makeProduct } from '../support/fixtures.js';
import { until } from '../support/until.js';

let database: TestDatabase;
let core: TestCore;
let admin: Caller;
let alice: Caller;
let bob: Caller;

beforeAll(async () => {
  database = await openTestDatabase();
  core = await testCore(database.store);
  admin = await makeAdmin(database.store);
  alice = await makeCustomer(core, admin, 'Alice');
  bob = await makeCustomer(core, admin, 'Bob');
});
afterAll(() => database?.close());

const code = codeOf;

describe('placing orders', () => {
  it('prices lines, merges duplicate products and reserves their stock', async () => {
    const product = await makeProduct(core, admin, 1_250, 10);
    const order = (
      await core.orders.place(alice, {
        items: [
          { productId: product.id, quantity: 2 },
          { productId: product.id, quantity: 1 },
        ],
      })
    ).result;
    expect(order).toMatchObject({ userId: alice.userId, status: 'PENDING', amount: 3_750 });
    expect(order.items).toEqual([expect.objectContaining({ productId: product.id, quantity: 3, unitPrice: 1_250 })]);
    expect(await core.inventory.stock(product.sku)).toEqual({ sku: product.sku, onHand: 10, reserved: 3 });
  });

  // Each line is checked as sent (its contract's bounds, at the edge); the merged line must fit
  // an order item as the contract states it, OrderItem.quantity (derived by `npm run generate`).
  it('refuses lines of one product that merge past an order item, naming /items, and holds no stock', async () => {
    const product = await makeProduct(core, admin, 100, 100);
    const small = await testCore(database.store, { maxItemQuantity: 10 });
    const lines = [6, 5].map((quantity) => ({ productId: product.id, quantity }));
    const refused = await small.orders.place(alice, { items: lines }).catch((error) => error);
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', violations: [{ in: 'body', name: '/items' }] });
    expect(await code(small.drafts.create(alice, { items: lines }))).toBe('VALIDATION_FAILED');
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 0 });
    const atBound = [6, 4].map((quantity) => ({ productId: product.id, quantity }));
    expect((await small.orders.place(alice, { items: atBound })).result.items).toEqual([
      expect.objectContaining({ quantity: 10 }),
    ]);
  });

  it('checks merged lines against the bound the REST contract states for OrderItem.quantity', async () => {
    const contract = parse(readFileSync(path.resolve(import.meta.dirname, '../../contracts/openapi.yaml'), 'utf8'));
    expect(coreRules.orderItemQuantity).toEqual({
      minimum: contract.components.schemas.OrderItem.properties.quantity.minimum,
      maximum: contract.components.schemas.OrderItem.properties.quantity.maximum,
    });
  });

  it('writes nothing and releases every reservation when one line lacks stock', async () => {
    const plenty = await makeProduct(core, admin, 100, 50);
    const scarce = await makeProduct(core, admin, 100, 1);
    const before = await core.orders.list(admin, { withTotal: true });
    const failure = core.orders.place(alice, {
      items: [
        { productId: plenty.id, quantity: 5 },
        { productId: scarce.id, quantity: 2 },
      ],
    });
    expect(await code(failure)).toBe('INSUFFICIENT_STOCK');
    expect(await core.inventory.stock(plenty.sku)).toMatchObject({ reserved: 0 });
    expect(await core.inventory.stock(scarce.sku)).toMatchObject({ reserved: 0 });
    expect((await core.orders.list(admin, { withTotal: true })).totalCount).toBe(before.totalCount);
  });

  it('answers UPSTREAM_TIMEOUT, writes no order and releases what was reserved when the budget runs out', async () => {
    const fast = await makeProduct(core, admin, 100, 10);
    const slow = await makeProduct(core, admin, 100, 10);
    const service = core.inventory;
    // An inventory that holds the stock, then answers only after the budget has run out when the slow SKU
    // is among the lines: what it reserved must be released by the placement's compensation.
    const slowCore = await testCore(database.store, {
      requestTimeoutMs: 150,
      inventory: {
        async reserveOrder(request, options) {
          await service.reserveOrder(request.orderId, request.lines);
          if (request.lines.some((line) => line.sku === slow.sku)) {
            await new Promise((resolve, reject) => {
              const timer = setTimeout(resolve, 2_000);
              options.signal?.addEventListener('abort', () => {
                clearTimeout(timer);
                reject(options.signal?.reason);
              });
            });
          }
        },
        async release(request) {
          await service.release(request.orderId, request.sku).catch(() => undefined);
        },
      },
    });
    const before = (await core.orders.list(admin, { withTotal: true })).totalCount;
    const failure = slowCore.orders.place(alice, {
      items: [
        { productId: fast.id, quantity: 1 },
        { productId: slow.id, quantity: 1 },
      ],
    });
    expect(await code(failure)).toBe('UPSTREAM_TIMEOUT');
    // Answered at the deadline; the release follows at once (not left to the reservation's expiry).
    await until(async () => ((await core.inventory.stock(fast.sku)).reserved === 0 ? true : undefined), 2_000);
    expect((await core.orders.list(admin, { withTotal: true })).totalCount).toBe(before);
  });

  it('answers UPSTREAM_TIMEOUT when its budget runs out, not when a slow database answers', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    // The prices take 1.5 s to read, far past a budget of 150 ms.
    const products = database.store.products;
    const slowStore = {
      ...database.store,
      products: {
        ...products,
        getMany: async (...args: Parameters<typeof products.getMany>) => {
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          return products.getMany(...args);
        },
      },
    };
    const slowCore = await testCore(slowStore, { requestTimeoutMs: 150 });
    const started = Date.now();
    const failure = slowCore.orders.place(
      alice,
      { items: [{ productId: product.id, quantity: 1 }] },
      {
        idempotencyKey: `budget-${product.id}`,
      },
    );
    expect(await code(failure)).toBe('UPSTREAM_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1_000);
    // The key was given back: a retry runs (and, with the prices still slow, is out of budget again).
    await until(async () => {
      const retry = slowCore.orders.place(
        alice,
        { items: [{ productId: product.id, quantity: 1 }] },
        {
          idempotencyKey: `budget-${product.id}`,
        },
      );
      return (await code(retry)) === 'UPSTREAM_TIMEOUT' ? true : undefined;
    }, 3_000);
  });

  it('answers UPSTREAM_TIMEOUT within its budget when the claim itself is slow, and gives the key back once it lands', async () => {
    const product = await makeProduct(core, admin, 100, 10);
    // Taking the Idempotency-Key's claim takes 1 s, far past a budget of 150 ms.
    const idempotency = database.store.idempotency;
    let slowClaims = 1;
    const slowStore = {
      ...database.store,
      idempotency: {
        ...idempotency,
        claim: async (...args: Parameters<typeof idempotency.claim>) => {
          if (slowClaims-- > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
          return idempotency.claim(...args);
        },
      },
    };
    const slowCore = await testCore(slowStore, { requestTimeoutMs: 150 });
    const items = [{ productId: product.id, quantity: 1 }];
    const idempotencyKey = `slow-claim-${product.id}`;
    const started = Date.now();
    expect(await code(slowCore.orders.place(alice, { items }, { idempotencyKey }))).toBe('UPSTREAM_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(800);
    // The claim landed after the answer and gave its key back: the retry places the order, well before the
    // claim's lease (30 s) would have run out.
    const placed = await until(async () => {
      try {
        return await slowCore.orders.place(alice, { items }, { idempotencyKey });
      } catch {
        return undefined;
      }
    }, 5_000);
    expect(placed).toMatchObject({ replayed: false, result: { status: 'PENDING' } });
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 1 });
  });

  it('lets a customer order only as themself, and requires admins to name the user', async () => {
    const product = await makeProduct(core, admin);
    const items = [{ productId: product.id, quantity: 1 }];
    expect(await code(core.orders.place(alice, { items, userId: bob.userId }))).toBe('FORBIDDEN');
    expect(await code(core.orders.place(admin, { items }))).toBe('VALIDATION_FAILED');
    expect((await core.orders.place(admin, { items, userId: bob.userId })).result.userId).toBe(bob.userId);
  });

  it('refuses both or neither of items and draftId, and unknown products', async () => {
    const product = await makeProduct(core, admin);
    const draft = (await core.drafts.create(alice, { items: [{ productId: product.id, quantity: 1 }] })).result;
    expect(await code(core.orders.place(alice, {}))).toBe('VALIDATION_FAILED');
    expect(
      await code(core.orders.place(alice, { draftId: draft.id, items: [{ productId: product.id, quantity: 1 }] })),
    ).toBe('VALIDATION_FAILED');
    expect(await code(core.orders.place(alice, { items: [{ productId: 999_999, quantity: 1 }] }))).toBe(
      'PRODUCT_NOT_FOUND',
    );
  });

  it('places a draft once, at the price it was drafted', async () => {
    const product = await makeProduct(core, admin, 700, 10);
    const draft = (await core.drafts.create(alice, { items: [{ productId: product.id, quantity: 2 }] })).result;
    expect(draft).toMatchObject({ status: 'OPEN', amount: 1_400, orderId: null });
    const order = (await core.orders.place(alice, { draftId: draft.id })).result;
    expect(order.amount).toBe(1_400);
    expect(await core.drafts.get(alice, draft.id)).toMatchObject({ status: 'ORDERED', orderId: order.id });
    expect(await code(core.orders.place(alice, { draftId: draft.id }))).toBe('DRAFT_ALREADY_ORDERED');
    expect(await code(core.drafts.get(bob, draft.id))).toBe('DRAFT_NOT_FOUND');
  });
});

describe('order status', () => {
  const newOrder = async (owner: Caller = alice) => {
    const product = await makeProduct(core, admin, 1_000, 10);
    return {
      product,
      order: (await core.orders.place(owner, { items: [{ productId: product.id, quantity: 2 }] })).result,
    };
  };

  it('moves forward for admins, creating and advancing the shipment, and consumes stock when shipped', async () => {
    const { product, order } = await newOrder();
    expect(await code(core.orders.shipment(alice, order.id))).toBe('SHIPMENT_NOT_FOUND');
    const paid = await core.orders.update(admin, order.id, { status: 'PAID' });
    expect(paid.version).toBe(order.version + 1);
    expect(await core.orders.shipment(alice, order.id)).toMatchObject({ status: 'PREPARING', shippedAt: null });
    await core.orders.update(admin, order.id, { status: 'DELIVERED' });
    expect(await core.orders.shipment(alice, order.id)).toMatchObject({
      status: 'DELIVERED',
      shippedAt: expect.any(Date),
      deliveredAt: expect.any(Date),
    });
    expect(await core.inventory.stock(product.sku)).toEqual({ sku: product.sku, onHand: 8, reserved: 0 });
  });

  it('lets customers cancel but not move forward; backwards and out of CANCELED are invalid', async () => {
    const { order } = await newOrder();
    expect(await code(core.orders.update(alice, order.id, { status: 'PAID' }))).toBe('FORBIDDEN');
    await core.orders.update(admin, order.id, { status: 'SHIPPED' });
    expect(await code(core.orders.update(admin, order.id, { status: 'PAID' }))).toBe('INVALID_TRANSITION');
    await core.orders.update(alice, order.id, { status: 'CANCELED' });
    expect(await code(core.orders.update(admin, order.id, { status: 'DELIVERED' }))).toBe('INVALID_TRANSITION');
  });

  it('treats a repeated PATCH to CANCELED as a no-op but a second cancellation record as a conflict', async () => {
    const { product, order } = await newOrder();
    const canceled = await core.orders.update(alice, order.id, { status: 'CANCELED' });
    const again = await core.orders.update(alice, order.id, { status: 'CANCELED' });
    expect(again.version).toBe(canceled.version);
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 0 });
    expect(await core.orders.cancellation(alice, order.id)).toMatchObject({ orderId: order.id, refundAmount: 0 });
    expect(await code(core.orders.cancel(alice, { orderId: order.id, reason: 'twice' }))).toBe('ALREADY_CANCELED');
  });

  it('refunds the amount of a paid order and records the reason', async () => {
    const { order } = await newOrder();
    await core.orders.update(admin, order.id, { status: 'PAID' });
    const { result: record } = await core.orders.cancel(alice, { orderId: order.id, reason: 'Changed my mind' });
    expect(record).toMatchObject({ reason: 'Changed my mind', refundAmount: order.amount });
  });

  it('hides other customers’ orders as not found', async () => {
    const { order } = await newOrder(alice);
    expect(await code(core.orders.get(bob, order.id))).toBe('ORDER_NOT_FOUND');
    expect(await code(core.orders.update(bob, order.id, { status: 'CANCELED' }))).toBe('ORDER_NOT_FOUND');
    expect(await code(core.orders.items(bob, order.id))).toBe('ORDER_NOT_FOUND');
  });

  it('checks versions: a stale If-Match is PRECONDITION_FAILED', async () => {
    const { order } = await newOrder();
    await core.orders.update(alice, order.id, { note: 'first' });
    expect(await code(core.orders.update(alice, order.id, { note: 'second' }, { ifMatchVersion: order.version }))).toBe(
      'PRECONDITION_FAILED',
    );
  });

  it('replaces: note and coupon are cleared when absent', async () => {
    const { order } = await newOrder();
    await core.orders.update(alice, order.id, { note: 'n', couponCode: 'C10' });
    const replaced = await core.orders.replace(alice, order.id, {
      status: 'PENDING',
      shippingAddress: order.shippingAddress,
    });
    expect(replaced).toMatchObject({ note: null, couponCode: null });
  });

  it('deletes only PENDING or CANCELED orders, as an admin, and releases stock', async () => {
    const { product, order } = await newOrder();
    expect(await code(core.orders.remove(alice, order.id))).toBe('FORBIDDEN');
    await core.orders.remove(admin, order.id);
    expect(await code(core.orders.get(admin, order.id))).toBe('ORDER_NOT_FOUND');
    expect(await core.inventory.stock(product.sku)).toMatchObject({ reserved: 0 });
    const paid = (await newOrder()).order;
    await core.orders.update(admin, paid.id, { status: 'PAID' });
    expect(await code(core.orders.remove(admin, paid.id))).toBe('INVALID_TRANSITION');
  });
});

describe('listing orders', () => {
  let carol: Caller;
  beforeAll(async () => {
    carol = await makeCustomer(core, admin, 'Carol');
    const product = await makeProduct(core, admin, 100, 1_000, 'Listing lamp');
    for (let quantity = 1; quantity <= 25; quantity++) {
      await core.orders.place(carol, {
        items: [{ productId: product.id, quantity }],
        ...(quantity % 5 === 0 ? { couponCode: 'TEN' } : {}),
      });
    }
  });

  it('pages with cursors through every order exactly once, in sort order', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await core.orders.list(carol, { sort: '-amount', size: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((order) => order.amount));
      cursor = page.nextCursor;
      pages++;
      expect(page.hasNext).toBe(cursor !== undefined);
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, index) => (25 - index) * 100));
  });

  it('scopes customers to their own orders and counts only when asked', async () => {
    const page = await core.orders.list(carol, { withTotal: true });
    expect(page.totalCount).toBe(25);
    expect(page.items).toHaveLength(20);
    expect((await core.orders.list(carol, {})).totalCount).toBeUndefined();
    expect((await core.orders.list(carol, { filters: { userId: alice.userId }, withTotal: true })).totalCount).toBe(0);
  });

  it('filters by coupon, amount and status', async () => {
    const withCoupon = await core.orders.list(carol, { filters: { hasCoupon: true }, withTotal: true });
    expect(withCoupon.totalCount).toBe(5);
    const large = await core.orders.list(carol, { filters: { minAmount: minor(2_000) }, withTotal: true });
    expect(large.totalCount).toBe(6);
    const paid = await core.orders.list(carol, { filters: { status: ['PAID'] }, withTotal: true });
    expect(paid.totalCount).toBe(0);
    const text = await core.orders.list(carol, { filters: { q: 'LISTING lamp' }, withTotal: true });
    expect(text.totalCount).toBe(25);
  });

  it('searches text in product names and notes, case-insensitively, with % and _ taken literally', async () => {
    const [first] = (await core.orders.list(carol, { sort: 'amount', size: 1 })).items;
    await core.orders.update(carol, first?.id as number, { note: 'Gift wrap, 100% paper' });
    const search = async (q: string) =>
      (await core.orders.list(carol, { filters: { q }, size: 100, withTotal: true })).items.map((order) => order.id);
    expect(await search('gift WRAP')).toEqual([first?.id]);
    // The whole term decides, its words in order and with its signs: not each word on its own.
    expect(await search('ift wrap, 10')).toEqual([first?.id]);
    expect(await search('wrap gift')).toEqual([]);
    expect(await search('gift  wrap')).toEqual([]);
    expect(await search('wrap 100')).toEqual([]);
    expect(await search('100%')).toEqual([first?.id]);
    expect(await search('no such words')).toEqual([]);
    // `%` and `_` are not wildcards: '1_0' would match '100' if they were.
    expect(await search('1_0')).toEqual([]);
    expect(await search('%')).toEqual([first?.id]);
    expect(await search('lamp')).toHaveLength(25);
    // The search follows the note as it changes, and keeps the order's product names.
    await core.orders.update(carol, first?.id as number, { note: 'Ring the bell' });
    expect(await search('gift wrap')).toEqual([]);
    expect(await search('RING the')).toEqual([first?.id]);
    // A term never spans the note and a product name (the search column holds them one per line), but it
    // may span the lines of a note.
    expect(await search('bell\nListing')).toEqual([]);
    await core.orders.update(carol, first?.id as number, { note: 'Ring\nthe bell' });
    expect(await search('ring\nTHE')).toEqual([first?.id]);
    await core.orders.update(carol, first?.id as number, { note: null });
    expect(await search('ring the')).toEqual([]);
    expect(await search('lamp')).toHaveLength(25);
  });

  it('cuts the size to 100 and refuses sizes below 1 and unknown sort keys', async () => {
    const dave = await makeCustomer(core, admin, 'Dave');
    const product = await makeProduct(core, admin, 100, 1_000);
    for (let index = 0; index < 101; index++) {
      await core.orders.place(dave, { items: [{ productId: product.id, quantity: 1 }] });
    }
    const page = await core.orders.list(dave, { size: 1_000, withTotal: true });
    expect(page).toMatchObject({ hasNext: true, totalCount: 101 });
    expect(page.items).toHaveLength(100);
    expect(await code(core.orders.list(admin, { size: 0 }))).toBe('VALIDATION_FAILED');
    expect(await code(core.orders.list(admin, { sort: 'note' }))).toBe('VALIDATION_FAILED');
  });

  it('refuses a cursor with other filters, another sort, or altered bytes', async () => {
    const first = await core.orders.list(carol, { size: 5 });
    const cursor = first.nextCursor as string;
    expect(await code(core.orders.list(carol, { size: 5, cursor, filters: { hasCoupon: true } }))).toBe(
      'INVALID_CURSOR',
    );
    expect(await code(core.orders.list(carol, { size: 5, cursor, sort: 'amount' }))).toBe('INVALID_CURSOR');
    const tampered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    expect(await code(core.orders.list(carol, { size: 5, cursor: tampered }))).toBe('INVALID_CURSOR');
    expect(await code(core.orders.list(carol, { size: 5, cursor: 'garbage' }))).toBe('INVALID_CURSOR');
  });

  it('pages an order’s items with the same cursors', async () => {
    const products = [];
    for (let index = 0; index < 3; index++) products.push(await makeProduct(core, admin, 100, 10));
    const order = (await core.orders.place(alice, { items: products.map((p) => ({ productId: p.id, quantity: 1 })) }))
      .result;
    const first = await core.orders.itemPage(alice, order.id, { size: 2 });
    expect(first.items).toHaveLength(2);
    const second = await core.orders.itemPage(alice, order.id, { size: 2, cursor: first.nextCursor as string });
    expect(second).toMatchObject({ hasNext: false });
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual(order.items.map((item) => item.id));
    expect(await core.orders.item(alice, order.items[0]?.id as number)).toEqual(order.items[0]);
    expect(await code(core.orders.item(bob, order.items[0]?.id as number))).toBe('ORDER_ITEM_NOT_FOUND');
  });
});
