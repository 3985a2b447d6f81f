import { describe, expect, it } from 'vitest';
import type { Store } from '../ports/index.js';
import type { Caller, OrderDraft, Product, User } from '../shared/index.js';
import { DomainError, minor } from '../shared/index.js';
import { draftLines, newOrder, priceLines, shippingAddressOf } from './order-lines.js';

const alice: Caller = { userId: 7, role: 'customer', apiKeyId: 1 };
const bob: Caller = { userId: 8, role: 'customer', apiKeyId: 2 };
const admin: Caller = { userId: 1, role: 'admin', apiKeyId: 3 };
const address = { zipCode: '100-0001', line1: 'Main St 1', line2: null };

/** The code and detail a rule throws. */
async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, detail: error.detail, name: error.violations?.[0]?.name };
  }
  throw new Error('expected a refusal');
}

const draft = (fields: Partial<OrderDraft> = {}): OrderDraft => ({
  id: 5,
  userId: 7,
  items: [{ productId: 2, sku: 'KETTLE-1', quantity: 3, unitPrice: minor(1_250), amount: minor(3_750) }],
  amount: minor(3_750),
  status: 'OPEN',
  orderId: null,
  createdAt: new Date('2026-11-29T00:00:00Z'),
  ...fields,
});
const draftsOf = (...drafts: OrderDraft[]) =>
  ({ drafts: { get: async (id: number) => drafts.find((d) => d.id === id) } }) as unknown as Pick<Store, 'drafts'>;

const product = (id: number, price: number): Product => ({
  id,
  name: `Product ${id}`,
  imageUrl: null,
  sku: `SKU-${id}`,
  price: minor(price),
  rating: null,
  ratingCount: 0,
  createdAt: new Date('2026-11-29T00:00:00Z'),
});
const catalog = (...products: Product[]) =>
  ({
    products: { getMany: async (ids: number[]) => products.filter((p) => ids.includes(p.id)) },
  }) as unknown as Pick<Store, 'products'>;

describe('draftLines', () => {
  it('gives the lines of the user’s open draft to its owner and to an admin placing for the owner', async () => {
    const lines = [{ productId: 2, sku: 'KETTLE-1', quantity: 3, unitPrice: 1_250, amount: 3_750 }];
    expect(await draftLines(draftsOf(draft()), alice, 5, 7)).toEqual(lines);
    expect(await draftLines(draftsOf(draft()), admin, 5, 7)).toEqual(lines);
  });

  it('finds no draft that is missing, another’s, or not the user’s the order is for', async () => {
    const notFound = { code: 'DRAFT_NOT_FOUND', detail: 'There is no order draft 5.' };
    expect(await refusal(() => draftLines(draftsOf(), alice, 5, 7))).toMatchObject(notFound);
    expect(await refusal(() => draftLines(draftsOf(draft()), bob, 5, 8))).toMatchObject(notFound);
    // An admin placing for user 8 cannot take user 7's draft.
    expect(await refusal(() => draftLines(draftsOf(draft()), admin, 5, 8))).toMatchObject(notFound);
  });

  it('refuses a draft already placed, naming its order', async () => {
    expect(await refusal(() => draftLines(draftsOf(draft({ status: 'ORDERED', orderId: 77 })), alice, 5, 7))).toEqual({
      code: 'DRAFT_ALREADY_ORDERED',
      detail: 'Draft 5 was already placed as order 77.',
      name: undefined,
    });
  });
});

describe('shippingAddressOf', () => {
  const user = (fields: Partial<User>): User => ({
    id: 7,
    name: 'Alice',
    email: 'alice@example.com',
    phone: null,
    address: null,
    nickname: null,
    marketingAgreed: false,
    createdAt: new Date('2026-11-29T00:00:00Z'),
    lastLoginAt: null,
    version: 1,
    ...fields,
  });
  const usersOf = (...users: User[]) =>
    ({ users: { get: async (id: number) => users.find((u) => u.id === id) } }) as unknown as Pick<Store, 'users'>;
  const other = { zipCode: '200-0002', line1: 'Side St 2', line2: 'Flat 3' };

  it('takes the address given, else the one on file', async () => {
    expect(await shippingAddressOf(usersOf(user({ address })), 7, other)).toEqual(other);
    expect(await shippingAddressOf(usersOf(user({ address })), 7, undefined)).toEqual(address);
  });

  it('refuses a missing user and an order with no address anywhere', async () => {
    expect(await refusal(() => shippingAddressOf(usersOf(), 7, address))).toMatchObject({ code: 'USER_NOT_FOUND' });
    expect(await refusal(() => shippingAddressOf(usersOf(user({})), 7, undefined))).toEqual({
      code: 'VALIDATION_FAILED',
      detail: 'shippingAddress is required: the user has no address on file.',
      name: 'shippingAddress',
    });
  });
});

describe('priceLines', () => {
  it('merges the lines of one product and prices them at today’s price', async () => {
    const lines = [
      { productId: 2, quantity: 2 },
      { productId: 3, quantity: 1 },
      { productId: 2, quantity: 1 },
    ];
    expect(await priceLines(catalog(product(2, 1_250), product(3, 99)), lines, 1000)).toEqual([
      { productId: 2, sku: 'SKU-2', quantity: 3, unitPrice: 1_250, amount: 3_750 },
      { productId: 3, sku: 'SKU-3', quantity: 1, unitPrice: 99, amount: 99 },
    ]);
  });

  it('takes a merged line at the most units of an order item, and refuses one past it', async () => {
    const half = { productId: 2, quantity: 500 };
    expect((await priceLines(catalog(product(2, 1)), [half, half], 1000))[0]?.quantity).toBe(1000);
    expect(
      await refusal(() => priceLines(catalog(product(2, 1)), [half, { productId: 2, quantity: 501 }], 1000)),
    ).toEqual({
      code: 'VALIDATION_FAILED',
      detail: '/items must hold at most 1000 units of one product (product 2: 1001).',
      name: '/items',
    });
  });

  it('refuses no lines and a product that does not exist', async () => {
    expect(await refusal(() => priceLines(catalog(), [], 1000))).toMatchObject({
      detail: '/items must hold at least one line.',
      name: '/items',
    });
    expect(await refusal(() => priceLines(catalog(product(2, 1)), [{ productId: 9, quantity: 1 }], 1000))).toEqual({
      code: 'PRODUCT_NOT_FOUND',
      detail: 'There is no product 9.',
      name: undefined,
    });
  });
});

describe('newOrder', () => {
  const allocation = { id: 70, itemIds: [700, 701], at: new Date('2026-11-29T10:00:00Z') };
  const lines = [
    { productId: 2, sku: 'SKU-2', quantity: 3, unitPrice: minor(1_250), amount: minor(3_750) },
    { productId: 3, sku: 'SKU-3', quantity: 1, unitPrice: minor(99), amount: minor(99) },
  ];

  it('writes a pending order of the lines, totalled, with its note and coupon or null', () => {
    expect(newOrder(allocation, 7, lines, address, { note: 'ring twice', couponCode: 'WINTER' })).toMatchObject({
      id: 70,
      userId: 7,
      items: [
        { id: 700, orderId: 70, productId: 2, quantity: 3 },
        { id: 701, orderId: 70, productId: 3, quantity: 1 },
      ],
      amount: 3_849,
      status: 'PENDING',
      note: 'ring twice',
      couponCode: 'WINTER',
      version: 1,
    });
    expect(newOrder(allocation, 7, lines, address, {})).toMatchObject({ note: null, couponCode: null });
  });
});
