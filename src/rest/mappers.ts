/** Maps core values to the wire shapes of contracts/openapi.yaml (money in units, times as ISO strings). */

import type { components } from '../../generated/openapi/schema.js';
import { orderItemRepresentation, orderRepresentation } from '../core/events/representations.js';
import type { AmountDetail } from '../core/orders/orders.js';
import { fromMinor } from '../core/shared/decimal-amounts.js';
import type {
  ApiKey,
  Cancellation,
  Order,
  OrderDraft,
  OrderItem,
  Product,
  Rating,
  Shipment,
  User,
} from '../core/shared/model.js';
import type { Page } from '../core/shared/paging.js';

type Schemas = components['schemas'];

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** An order item (src/core/events/representations.ts, typed here against the contract). */
export const orderItemJson = (item: OrderItem): Schemas['OrderItem'] => orderItemRepresentation(item);

/** An order; `detail`, the core's split of its amount, when the request asked for `amountDetail`. */
export const orderJson = (order: Order, detail?: AmountDetail): Schemas['Order'] => orderRepresentation(order, detail);

export const shipmentJson = (shipment: Shipment): Schemas['Shipment'] => ({
  id: shipment.id,
  orderId: shipment.orderId,
  status: shipment.status,
  carrier: shipment.carrier,
  trackingNumber: shipment.trackingNumber,
  shippedAt: iso(shipment.shippedAt),
  deliveredAt: iso(shipment.deliveredAt),
});

export const cancellationJson = (record: Cancellation): Schemas['Cancellation'] => ({
  id: record.id,
  orderId: record.orderId,
  reason: record.reason,
  refundAmount: fromMinor(record.refundAmount),
  createdAt: record.createdAt.toISOString(),
});

export const draftJson = (draft: OrderDraft): Schemas['OrderDraft'] => ({
  id: draft.id,
  userId: draft.userId,
  items: draft.items.map((item) => ({
    productId: item.productId,
    sku: item.sku,
    quantity: item.quantity,
    unitPrice: fromMinor(item.unitPrice),
    amount: fromMinor(item.amount),
  })),
  amount: fromMinor(draft.amount),
  status: draft.status,
  orderId: draft.orderId,
  createdAt: draft.createdAt.toISOString(),
});

export const userJson = (user: User): Schemas['User'] => ({
  id: user.id,
  name: user.name,
  email: user.email,
  phone: user.phone,
  address: user.address ? { ...user.address, line2: user.address.line2 ?? null } : null,
  nickname: user.nickname,
  marketingAgreed: user.marketingAgreed,
  createdAt: user.createdAt.toISOString(),
  lastLoginAt: iso(user.lastLoginAt),
});

export const productJson = (product: Product): Schemas['Product'] => ({
  id: product.id,
  name: product.name,
  imageUrl: product.imageUrl,
  sku: product.sku,
  price: fromMinor(product.price),
  rating: product.rating,
  createdAt: product.createdAt.toISOString(),
});

export const ratingJson = (rating: Rating): Schemas['MyRating'] => ({
  productId: rating.productId,
  userId: rating.userId,
  score: rating.score,
  comment: rating.comment,
  createdAt: rating.createdAt.toISOString(),
  updatedAt: rating.updatedAt.toISOString(),
});

export const apiKeyJson = (key: ApiKey): Schemas['ApiKey'] => ({
  id: key.id,
  userId: key.userId,
  role: key.role,
  label: key.label,
  scopes: [...key.scopes],
  createdAt: key.createdAt.toISOString(),
  revokedAt: iso(key.revokedAt),
  expiresAt: iso(key.expiresAt),
  lastUsedAt: iso(key.lastUsedAt),
  replacedBy: key.replacedBy,
  rateLimit: key.rateLimit,
});

/** The list envelope: `nextCursor` only when there is a next page, `totalCount` only when asked. */
export function pageJson<T, W>(page: Page<T>, map: (item: T) => W) {
  return {
    items: page.items.map(map),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    hasNext: page.hasNext,
    ...(page.totalCount === undefined ? {} : { totalCount: page.totalCount }),
  };
}

/** The strong ETag of a versioned resource. */
/**
 * The ETag of a resource's version; an answer a brownout trimmed (a withheld property left out) has its
 * own, so that no cache takes one representation for the other.
 */
export const etagOf = (version: number, trimmed = false): string => `"${version}${trimmed ? '-withheld' : ''}"`;
