import type {
  Address,
  Cancellation,
  DraftItem,
  Minor,
  Order,
  OrderDraft,
  OrderHead,
  OrderItem,
  OrderStatus,
  Shipment,
  ShipmentStatus,
} from '../shared/index.js';
import type { ClaimCompletion } from './idempotency.js';
import type { KeysetQuery } from './keyset-query.js';

/** Normalized order filters (REST query, search body and GraphQL filter all become this). */
export interface OrderFilters {
  status?: OrderStatus[];
  userId?: number;
  from?: Date;
  to?: Date;
  minAmount?: Minor;
  hasCoupon?: boolean;
  q?: string;
  ids?: number[];
}

/** What `allocate` hands out before stock is reserved: the order's id, ids for its items, and its time. */
export interface OrderAllocation {
  id: number;
  itemIds: number[];
  /** Now, by the database's clock (the one every other timestamp of the order uses). */
  at: Date;
}

/** A new order as the store writes it: ids and time allocated beforehand, its stock already reserved. */
export interface NewOrder {
  order: Order;
  /** The draft the order is placed from, consumed by the same write. */
  draftId?: number;
}

/**
 * Why an order's write changed nothing: its draft was placed already, one of its reservations is no
 * longer held (released by the expiry sweep or a takeover of its claim), or its idempotency claim was
 * taken over by a retry.
 */
export type OrderRefusal = 'draft-already-ordered' | 'reservation-lost' | 'claim-lost';

/** The writable state of an order after a change, with what else the change does. */
export interface OrderChange {
  orderId: number;
  /** The version the change was computed from; a concurrent write makes the store answer `stale`. */
  version: number;
  status: OrderStatus;
  shippingAddress: Address;
  note: string | null;
  couponCode: string | null;
  shipment?: { status: ShipmentStatus; create: boolean };
  cancellation?: { reason: string | null; refundAmount: Minor };
  /** SKUs whose HELD reservations leave stock (`consume`) or go back to it (`release`). */
  reservations?: 'consume' | 'release';
  /** The members the change touches (for its `order.updated` event). */
  changed: ReadonlyArray<'status' | 'shipment' | 'shippingAddress' | 'note' | 'couponCode'>;
}

/** Orders with their items, shipments and cancellations; every multi-row change is one transaction. */
export interface OrderStore {
  /** Allocates an order id and `lineCount` item ids, in one round trip. */
  allocate(lineCount: number): Promise<OrderAllocation>;
  /**
   * Up to `limit` PENDING orders placed under the unpaid-order expiry (from its migration on) more than
   * `ageMs` ago by the database's clock (the one that stamped `createdAt`), oldest first.
   */
  unpaidOlderThan(ageMs: number, limit: number): Promise<number[]>;
  get(id: number): Promise<Order | undefined>;
  getMany(ids: readonly number[]): Promise<Order[]>;
  orderOfItem(itemId: number): Promise<number | undefined>;
  list(query: KeysetQuery<OrderFilters>): Promise<Order[]>;
  /** The same page as `list`, without reading the items. */
  listHeads(query: KeysetQuery<OrderFilters>): Promise<OrderHead[]>;
  /** The items of several orders, in one statement. */
  items(orderIds: readonly number[]): Promise<OrderItem[]>;
  count(filters: OrderFilters): Promise<number>;
  /**
   * Writes the order and its items, keeps its reservations (every one must still be held), consumes the
   * draft if any and completes the idempotency claim if given (only while it is still that claim), in one
   * statement: all of it or none.
   */
  insert(order: NewOrder, completes?: ClaimCompletion): Promise<'placed' | OrderRefusal>;
  change(change: OrderChange): Promise<Order | 'stale'>;
  /** Deletes the order (with its items, shipment, cancellation) and releases its reservations. */
  delete(id: number, version: number): Promise<'deleted' | 'stale'>;
  shipment(orderId: number): Promise<Shipment | undefined>;
  shipments(orderIds: readonly number[]): Promise<Shipment[]>;
  /** Sets the carrier data of a shipment. */
  updateShipment(
    orderId: number,
    fields: { carrier: string | null; trackingNumber: string | null },
  ): Promise<Shipment | undefined>;
  cancellation(orderId: number): Promise<Cancellation | undefined>;
  cancellations(orderIds: readonly number[]): Promise<Cancellation[]>;
}

/** Order drafts. */
export interface DraftStore {
  get(id: number): Promise<OrderDraft | undefined>;
  insert(userId: number, items: DraftItem[], amount: Minor): Promise<OrderDraft>;
}
