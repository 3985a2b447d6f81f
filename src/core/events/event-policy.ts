/**
 * What becomes an event, decided once: the stores call this policy inside the transaction of each change
 * and write what it returns, so that no change commits without its events and no event without its change.
 */

import type { BrownoutWindow, OrderChange } from '../ports/index.js';
import type { NewEvent, Order, Stock } from '../shared/index.js';
import { splitVat } from '../shared/index.js';
import { brownoutRepresentation, orderRepresentation, stockRepresentation } from './representations.js';

/** The members of an order that an `order.updated` event can name. */
export type OrderMember = 'status' | 'shipment' | 'shippingAddress' | 'note' | 'couponCode';

/** The events of each kind of change, built from the state after it. */
export interface EventPolicy {
  orderPlaced(order: Order): NewEvent[];
  /** A change of the writable state (and what it does to the shipment, the cancellation). */
  orderChanged(order: Order, change: Pick<OrderChange, 'cancellation' | 'changed'>): NewEvent[];
  /** The carrier data of the order's shipment changed. */
  shipmentChanged(order: Order): NewEvent[];
  /** The on-hand or reserved units of a SKU changed. */
  stockChanged(stock: Stock): NewEvent[];
  /** A brownout window was scheduled: one event per user whose keys used the item in the last 30 days. */
  brownoutScheduled(window: BrownoutWindow, userIds: readonly number[]): NewEvent[];
  /** A deprecation notice was sent: one event per notified user, carrying the item's announcement. */
  deprecationAnnounced(item: string, announcement: Record<string, unknown>, userIds: readonly number[]): NewEvent[];
}

/** The event policy; `vatRate` splits the amount of the order snapshots (`amountDetail`). */
export function createEventPolicy({ vatRate }: { vatRate: number }): EventPolicy {
  const orderEvent = (type: NewEvent['type'], order: Order, changes?: OrderMember[]): NewEvent => ({
    type,
    ownerUserId: order.userId,
    subject: `order:${order.id}`,
    data: {
      object: orderRepresentation(order, splitVat(order.amount, vatRate)),
      ...(changes ? { changes } : {}),
    },
  });
  return {
    orderPlaced: (order) => [orderEvent('order.created', order)],
    // A cancellation is one `order.canceled`, not an `order.updated` of the status as well.
    orderChanged: (order, change) =>
      change.cancellation
        ? [orderEvent('order.canceled', order)]
        : change.changed.length > 0
          ? [orderEvent('order.updated', order, [...change.changed])]
          : [],
    shipmentChanged: (order) => [orderEvent('order.updated', order, ['shipment'])],
    stockChanged: (stock) => [
      {
        type: 'stock.changed',
        ownerUserId: null,
        subject: `sku:${stock.sku}`,
        data: { object: stockRepresentation(stock) },
      },
    ],
    brownoutScheduled: (window, userIds) =>
      userIds.map((ownerUserId) => ({
        type: 'brownout.scheduled',
        ownerUserId,
        subject: `brownout:${window.id}`,
        data: { object: brownoutRepresentation(window) },
      })),
    deprecationAnnounced: (item, announcement, userIds) =>
      userIds.map((ownerUserId) => ({
        type: 'deprecation.announced',
        ownerUserId,
        subject: `deprecation:${item}`,
        data: { object: announcement },
      })),
  };
}

/** The members a change touches, compared with the order before it. */
export function changedMembers(
  before: Order,
  next: Pick<Order, 'status' | 'shippingAddress' | 'note' | 'couponCode'>,
  shipmentMoves: boolean,
): OrderMember[] {
  const changed: OrderMember[] = [];
  if (next.status !== before.status) changed.push('status');
  if (shipmentMoves) changed.push('shipment');
  const [a, b] = [next.shippingAddress, before.shippingAddress];
  if (a.zipCode !== b.zipCode || a.line1 !== b.line1 || (a.line2 ?? null) !== (b.line2 ?? null)) {
    changed.push('shippingAddress');
  }
  if (next.note !== before.note) changed.push('note');
  if (next.couponCode !== before.couponCode) changed.push('couponCode');
  return changed;
}
