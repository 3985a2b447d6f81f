import type { ClaimCompletion, Store } from '../../src/core/ports/index.js';
import type { Order } from '../../src/core/shared/model.js';
import { type Minor, sumMinor, timesMinor } from '../../src/core/shared/money.js';

/** A line to write: a product and what it costs. */
export interface StoreLine {
  productId: number;
  sku: string;
  quantity: number;
  unitPrice: Minor;
}

/**
 * Writes an order through the store as placement does (ids allocated, every line reserved, then the order
 * in one statement), for tests of the store below the core; `completes` is its idempotency claim, and
 * `beforeWriting` runs between the reservation and the order. Answers the order, or fails with the refusal.
 */
export async function writeOrder(
  store: Store,
  userId: number,
  lines: readonly StoreLine[],
  completes?: Omit<ClaimCompletion, 'result'>,
  beforeWriting?: (orderId: number) => Promise<unknown>,
) {
  const { id, itemIds, at } = await store.orders.allocate(lines.length);
  const expiresAt = new Date(Date.now() + 600_000);
  const reserved = await store.inventory.reserve(id, lines, expiresAt);
  if (reserved.kind !== 'reserved') throw new Error(`could not reserve: ${reserved.kind}`);
  const items = lines.map((line, index) => ({
    ...line,
    id: itemIds[index] as number,
    orderId: id,
    amount: timesMinor(line.unitPrice, line.quantity),
  }));
  const order: Order = {
    id,
    userId,
    items,
    amount: sumMinor(items.map((item) => item.amount)),
    status: 'PENDING',
    shippingAddress: { zipCode: '04524', line1: '1 Road', line2: null },
    note: null,
    couponCode: null,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  await beforeWriting?.(id);
  const outcome = await store.orders.insert({ order }, completes && { ...completes, result: order });
  if (outcome !== 'placed') throw new Error(`order not written: ${outcome}`);
  return order;
}
