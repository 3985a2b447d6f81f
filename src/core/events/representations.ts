/**
 * The v1 REST representation of the resources that events carry, built once here so that an event's
 * `data.object` and a REST answer cannot drift: src/rest/mappers.ts answers with these, typed against the
 * contract, and the event policy snapshots them inside the writing transaction.
 */
import { windowState } from '../lifecycle/brownouts/index.js';
import type { BrownoutWindow, WebhookEndpoint } from '../ports/index.js';
import type { Order, OrderItem, Stock, VatSplit } from '../shared/index.js';
import { fromMinor } from '../shared/index.js';

/** An order line as the contract's `OrderItem`. */
export const orderItemRepresentation = (item: OrderItem) => ({
  id: item.id,
  orderId: item.orderId,
  productId: item.productId,
  sku: item.sku,
  quantity: item.quantity,
  unitPrice: fromMinor(item.unitPrice),
  amount: fromMinor(item.amount),
});

/** An order as the contract's `Order`; `detail`, its amount split, when `amountDetail` is wanted. */
export function orderRepresentation(order: Order, detail?: VatSplit) {
  return {
    id: order.id,
    userId: order.userId,
    items: order.items.map(orderItemRepresentation),
    amount: fromMinor(order.amount),
    // Left undefined (so left out of the JSON) unless asked for: one object shape either way.
    amountDetail: detail
      ? { supply: fromMinor(detail.supply), vat: fromMinor(detail.vat), total: fromMinor(detail.total) }
      : undefined,
    status: order.status,
    shippingAddress: { ...order.shippingAddress, line2: order.shippingAddress.line2 ?? null },
    note: order.note,
    couponCode: order.couponCode,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}

/** The stock of a SKU as the contract's `StockLevel`. */
export const stockRepresentation = (stock: Stock) => ({
  sku: stock.sku,
  onHand: stock.onHand,
  reserved: stock.reserved,
  available: stock.onHand - stock.reserved,
});

/** A webhook endpoint as the contract's `WebhookEndpoint` (never its secret). */
export const webhookEndpointRepresentation = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  userId: endpoint.userId,
  url: endpoint.url,
  events: [...endpoint.events],
  description: endpoint.description,
  disabled: endpoint.disabledReason !== null,
  disabledReason: endpoint.disabledReason,
  previousSecretExpiresAt: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
  createdAt: endpoint.createdAt.toISOString(),
  updatedAt: endpoint.updatedAt.toISOString(),
});

/** A brownout window as published (REST `Brownout`, the `brownout.scheduled` event), in its state at `at`. */
export const brownoutRepresentation = (window: BrownoutWindow, at: Date = window.scheduledAt) => ({
  id: window.id,
  item: window.item,
  startsAt: window.startsAt.toISOString(),
  endsAt: window.endsAt.toISOString(),
  note: window.note,
  scheduledAt: window.scheduledAt.toISOString(),
  cancelledAt: window.cancelledAt ? window.cancelledAt.toISOString() : null,
  cancelNote: window.cancelNote,
  state: windowState(window, at),
});
