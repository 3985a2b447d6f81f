import { changedMembers } from '../events/index.js';
import type { OrderChange, OrderStore } from '../ports/index.js';
import type { Address, Cancellation, Order, Shipment, ShipmentStatus } from '../shared/index.js';
import {
  type Caller,
  checkVersion,
  DomainError,
  isPaid,
  mergePatch,
  minor,
  ORDER_READ_ONLY,
  type OrderStatus,
  refuseReadOnlyChanges,
  requireAdmin,
  retryStale,
  transition,
  type WriteConditions,
} from '../shared/index.js';
import { shipmentOf, visibleOrder } from './order-reads.js';

/** A merge patch of an order: absent = unchanged, `null` clears. */
export interface OrderPatch {
  status?: OrderStatus;
  shippingAddress?: Address;
  note?: string | null;
  couponCode?: string | null;
}

/** The full writable state of an order (PUT). */
export interface OrderReplacement {
  status: OrderStatus;
  shippingAddress: Address;
  note?: string | null;
  couponCode?: string | null;
}

/** A merge patch of a shipment's carrier data: absent = unchanged, `null` clears. */
export interface ShipmentPatch {
  carrier?: string | null;
  trackingNumber?: string | null;
}

type WritableState = Pick<Order, 'status' | 'shippingAddress' | 'note' | 'couponCode'>;

const shipmentStatusOf: Partial<Record<OrderStatus, ShipmentStatus>> = {
  PAID: 'PREPARING',
  SHIPPED: 'SHIPPED',
  DELIVERED: 'DELIVERED',
};

/** Changing orders: patch, replace, cancel, delete and shipment data; status moves follow the state machine. */
export function createOrderChanges(orders: OrderStore) {
  /**
   * Reads the order, checks what the body echoed of its read-only members, builds its next state and
   * applies it; a concurrent write retries (without If-Match).
   */
  const change = (
    caller: Caller,
    id: number,
    next: (order: Order) => WritableState,
    { ifMatchVersion, echo }: WriteConditions<Order> = {},
  ) =>
    retryStale(ifMatchVersion, async () => {
      const order = await visibleOrder(orders, caller, id);
      refuseReadOnlyChanges(ORDER_READ_ONLY, echo, order);
      return applyChange(orders, caller, order, next(order), ifMatchVersion);
    });

  return {
    /** Changes an order (merge patch). */
    update: (caller: Caller, id: number, patch: OrderPatch, conditions?: WriteConditions<Order>): Promise<Order> =>
      change(caller, id, (order) => merged(order, patch), conditions),

    /** Replaces the writable state of an order; `note` and `couponCode` are cleared when absent. */
    replace: (
      caller: Caller,
      id: number,
      replacement: OrderReplacement,
      conditions?: WriteConditions<Order>,
    ): Promise<Order> =>
      change(
        caller,
        id,
        () => ({
          status: replacement.status,
          shippingAddress: replacement.shippingAddress,
          note: replacement.note ?? null,
          couponCode: replacement.couponCode ?? null,
        }),
        conditions,
      ),

    /** Cancels an order with a record; see `requireCancellable` (`onlyIf`: the state it must still be in). */
    async cancel(caller: Caller, id: number, reason?: string, onlyIf?: Order['status']): Promise<Cancellation> {
      await retryStale(undefined, async () => {
        const order = await visibleOrder(orders, caller, id);
        requireCancellable(order, onlyIf);
        await applyChange(orders, caller, order, { ...order, status: 'CANCELED' }, undefined, reason ?? null);
      });
      const record = await orders.cancellation(id);
      if (!record) throw new Error(`order ${id} was canceled without a cancellation record`);
      return record;
    },

    /** Deletes a PENDING or CANCELED order (admins only) and releases its stock. */
    async remove(caller: Caller, id: number, ifMatchVersion?: number): Promise<void> {
      const order = await visibleOrder(orders, caller, id);
      requireAdmin(caller, 'delete orders');
      if (order.status !== 'PENDING' && order.status !== 'CANCELED') {
        throw new DomainError('INVALID_TRANSITION', `A ${order.status} order cannot be deleted; cancel it first.`);
      }
      checkVersion(order, ifMatchVersion, () => stale(order.id));
      if ((await orders.delete(id, order.version)) === 'stale') throw stale(id);
    },

    /** Sets a shipment's carrier data (admins only). */
    async updateShipment(caller: Caller, orderId: number, patch: ShipmentPatch): Promise<Shipment> {
      await visibleOrder(orders, caller, orderId);
      requireAdmin(caller, 'change shipments');
      const shipment = await shipmentOf(orders, orderId);
      const { carrier, trackingNumber } = shipment;
      const updated = await orders.updateShipment(orderId, mergePatch({ carrier, trackingNumber }, patch));
      if (!updated) throw new DomainError('SHIPMENT_NOT_FOUND', `Order ${orderId} has no shipment yet.`);
      return updated;
    },
  };
}

function merged({ status, shippingAddress, note, couponCode }: Order, patch: OrderPatch): WritableState {
  return mergePatch<WritableState>({ status, shippingAddress, note, couponCode }, patch);
}

/** Moves an order to its next state: the version check, the state machine, and what the move does. */
/**
 * A second cancellation is ALREADY_CANCELED. With `onlyIf`, an order in another state is INVALID_TRANSITION,
 * decided on the version the change is written over: the server's expiry of an unpaid order does not cancel
 * one paid since the sweep found it.
 */
function requireCancellable(order: Order, onlyIf: Order['status'] | undefined): void {
  if (order.status === 'CANCELED') throw new DomainError('ALREADY_CANCELED', `Order ${order.id} is already canceled.`);
  if (onlyIf && order.status !== onlyIf) {
    throw new DomainError('INVALID_TRANSITION', `Order ${order.id} is ${order.status}, no longer ${onlyIf}.`);
  }
}

async function applyChange(
  orders: OrderStore,
  caller: Caller,
  order: Order,
  next: WritableState,
  ifMatchVersion: number | undefined,
  reason: string | null = null,
): Promise<Order> {
  checkVersion(order, ifMatchVersion, () => stale(order.id));
  const move = transition(order.status, next.status);
  if (move.kind === 'invalid') {
    throw new DomainError('INVALID_TRANSITION', `An order cannot move from ${order.status} to ${next.status}.`);
  }
  if (move.kind === 'forward') requireAdmin(caller, 'move an order forward; customers may only cancel');
  const unchanged =
    move.kind === 'unchanged' &&
    next.note === order.note &&
    next.couponCode === order.couponCode &&
    sameAddress(next.shippingAddress, order.shippingAddress);
  if (unchanged) return order;

  const shipmentStatus = move.kind === 'forward' ? shipmentStatusOf[next.status] : undefined;
  const changed = changedMembers(order, next, shipmentStatus !== undefined);
  const change: OrderChange = { orderId: order.id, version: order.version, ...next, changed };
  if (move.kind === 'forward') {
    if (shipmentStatus) change.shipment = { status: shipmentStatus, create: !isPaid(order.status) };
    if (next.status === 'SHIPPED' || next.status === 'DELIVERED') change.reservations = 'consume';
  }
  if (move.kind === 'cancel') {
    change.cancellation = { reason, refundAmount: isPaid(order.status) ? order.amount : minor(0) };
    change.reservations = 'release';
  }
  const updated = await orders.change(change);
  if (updated === 'stale') throw stale(order.id);
  return updated;
}

function stale(id: number): DomainError {
  return new DomainError('PRECONDITION_FAILED', `Order ${id} changed since it was read.`);
}

function sameAddress(a: Address, b: Address): boolean {
  return a.zipCode === b.zipCode && a.line1 === b.line1 && (a.line2 ?? null) === (b.line2 ?? null);
}
