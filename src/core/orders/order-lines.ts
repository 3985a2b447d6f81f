/** The parts of an order placement: its lines priced or taken from a draft, its address, the order it writes. */

import type { OrderAllocation, Store } from '../ports/index.js';
import type { Address, Order, OrderItem } from '../shared/index.js';
import { type Caller, canSee, DomainError, invalidInput, sumMinor, timesMinor, userNotFound } from '../shared/index.js';

/** A line of an order as placed: a product at today's price. */
export type PricedLine = Omit<OrderItem, 'id' | 'orderId'>;

/** The order as it is written: its ids and time were allocated, its lines priced. */
export function newOrder(
  allocation: OrderAllocation,
  userId: number,
  lines: PricedLine[],
  shippingAddress: Address,
  input: { note?: string; couponCode?: string },
): Order {
  const { id, itemIds, at } = allocation;
  return {
    id,
    userId,
    items: lines.map((line, index) => ({ id: itemIds[index] as number, orderId: id, ...line })),
    amount: sumMinor(lines.map((line) => line.amount)),
    status: 'PENDING',
    shippingAddress,
    note: input.note ?? null,
    couponCode: input.couponCode ?? null,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
}

/** The lines of a draft of the user, not yet placed. */
export async function draftLines(
  store: Pick<Store, 'drafts'>,
  caller: Caller,
  draftId: number,
  userId: number,
): Promise<PricedLine[]> {
  const draft = await store.drafts.get(draftId);
  if (!draft || !canSee(caller, draft.userId) || draft.userId !== userId) {
    throw new DomainError('DRAFT_NOT_FOUND', `There is no order draft ${draftId}.`);
  }
  if (draft.status === 'ORDERED') {
    throw new DomainError('DRAFT_ALREADY_ORDERED', `Draft ${draft.id} was already placed as order ${draft.orderId}.`);
  }
  return draft.items.map(({ productId, sku, quantity, unitPrice, amount }) => ({
    productId,
    sku,
    quantity,
    unitPrice,
    amount,
  }));
}

/** The address given, or the user's address on file. */
export async function shippingAddressOf(store: Pick<Store, 'users'>, userId: number, given: Address | undefined) {
  const user = await store.users.get(userId);
  if (!user) throw userNotFound(userId);
  const shippingAddress = given ?? user.address;
  if (!shippingAddress) throw invalidInput('shippingAddress', 'is required: the user has no address on file');
  return shippingAddress;
}

/**
 * Prices lines at today's prices. Each line was checked as sent (its contract's bounds); lines of one
 * product are then merged, and a merged line must still fit an order item (`maxItemQuantity`).
 */
export async function priceLines(
  store: Pick<Store, 'products'>,
  lines: readonly { productId: number; quantity: number }[],
  maxItemQuantity: number,
) {
  if (lines.length === 0) throw invalidInput('/items', 'must hold at least one line');
  const merged = new Map<number, number>();
  for (const line of lines) merged.set(line.productId, (merged.get(line.productId) ?? 0) + line.quantity);
  for (const [productId, quantity] of merged) {
    if (quantity > maxItemQuantity) {
      throw invalidInput(
        '/items',
        `must hold at most ${maxItemQuantity} units of one product (product ${productId}: ${quantity})`,
      );
    }
  }
  const products = new Map((await store.products.getMany([...merged.keys()])).map((product) => [product.id, product]));
  return [...merged].map(([productId, quantity]) => {
    const product = products.get(productId);
    if (!product) throw new DomainError('PRODUCT_NOT_FOUND', `There is no product ${productId}.`);
    return {
      productId,
      sku: product.sku,
      quantity,
      unitPrice: product.price,
      amount: timesMinor(product.price, quantity),
    };
  });
}
