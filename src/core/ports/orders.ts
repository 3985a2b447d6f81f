import type {
  Address,
  Cancellation,
  DraftItem,
  Order,
  OrderDraft,
  OrderHead,
  OrderItem,
  Shipment,
  ShipmentStatus,
} from '../model.js';
import type { Minor } from '../money.js';
import type { OrderStatus } from '../order-state.js';
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

/** A new order as the store writes it (the id was allocated before stock was reserved). */
export interface NewOrder {
  id: number;
  userId: number;
  items: Array<Omit<OrderItem, 'id' | 'orderId'>>;
  amount: Minor;
  shippingAddress: Address;
  note: string | null;
  couponCode: string | null;
  draftId?: number;
}

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
  allocateId(): Promise<number>;
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
  /** Writes the order and its items, confirms its reservations, and consumes the draft if any. */
  insert(order: NewOrder): Promise<Order | 'draft-already-ordered'>;
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
