import type { KeyValues } from './cursor.js';
import type {
  Address,
  ApiKey,
  Cancellation,
  DraftItem,
  Order,
  OrderDraft,
  OrderHead,
  OrderItem,
  Product,
  Rating,
  Reservation,
  Role,
  Shipment,
  ShipmentStatus,
  Stock,
  User,
} from './model.js';
import type { Minor } from './money.js';
import type { OrderStatus } from './order-state.js';
import type { SortKey } from './paging.js';
import type { UsagePort } from './usage-port.js';

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

/** A keyset page request: rows strictly after `after` in `sort` order, at most `limit`. */
export interface KeysetQuery<Filters> {
  filters: Filters;
  sort: SortKey[];
  after?: KeyValues;
  limit: number;
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
}

/** The writable fields of a user. */
export type UserFields = Omit<User, 'id' | 'createdAt' | 'lastLoginAt' | 'version'>;

/** The outcome of a reservation attempt, decided atomically by the store. */
export type ReserveOutcome =
  | { kind: 'reserved'; reservation: Reservation; stock: Stock; replayed: boolean }
  | { kind: 'unknown-sku' }
  | { kind: 'insufficient'; stock: Stock }
  | { kind: 'mismatch'; reservation: Reservation };

/** The outcome of claiming an idempotency key. */
export type IdempotencyClaim =
  /** `heldOrderId`: a dead claim of the same request was taken over, and the order it wrote exists. */
  | { kind: 'claimed'; heldOrderId?: number }
  | { kind: 'in-progress'; fingerprint: string }
  | { kind: 'completed'; fingerprint: string; result: unknown };

/** The storage the core needs: every multi-row change is one store call, done in one transaction. */
export interface Store {
  settings: {
    get(key: string): Promise<string | undefined>;
    /** Stores the value unless the key exists; returns the value that is stored now. */
    putIfAbsent(key: string, value: string): Promise<string>;
  };
  users: {
    get(id: number): Promise<User | undefined>;
    getMany(ids: readonly number[]): Promise<User[]>;
    list(query: KeysetQuery<Record<string, never>>): Promise<User[]>;
    count(): Promise<number>;
    insert(user: UserFields): Promise<User | 'email-taken'>;
    /** Writes the fields if the user is still at `version`. */
    update(id: number, version: number, user: UserFields): Promise<User | 'stale' | 'email-taken'>;
    /** Deletes the user and revokes their keys, unless they have orders. */
    delete(id: number, version: number): Promise<'deleted' | 'stale' | 'has-orders'>;
    /** Records a use of one of the user's keys (at most once a minute; not a version change). */
    touchLogin(id: number): Promise<void>;
  };
  products: {
    get(id: number): Promise<Product | undefined>;
    getMany(ids: readonly number[]): Promise<Product[]>;
    list(query: KeysetQuery<Record<string, never>>): Promise<Product[]>;
    count(): Promise<number>;
    insert(
      product: Omit<Product, 'id' | 'createdAt' | 'rating' | 'ratingCount'>,
      stock: number,
    ): Promise<Product | 'sku-taken'>;
  };
  ratings: {
    get(productId: number, userId: number): Promise<Rating | undefined>;
    /** Creates or replaces the user's rating of the product. */
    put(
      productId: number,
      userId: number,
      score: number,
      comment: string | null,
    ): Promise<{ rating: Rating; created: boolean }>;
  };
  apiKeys: {
    insert(userId: number, role: Role, keyHash: Buffer, rateLimit?: number | null): Promise<ApiKey>;
    setRateLimit(id: number, rateLimit: number | null): Promise<ApiKey | undefined>;
    /** Adds a key with a known hash unless one exists (the bootstrap key); returns whether it was added. */
    ensure(userId: number, role: Role, keyHash: Buffer): Promise<boolean>;
    findActive(keyHash: Buffer): Promise<ApiKey | undefined>;
    get(id: number): Promise<ApiKey | undefined>;
    revoke(id: number): Promise<ApiKey | undefined>;
    count(): Promise<number>;
  };
  orders: {
    allocateId(): Promise<number>;
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
  };
  drafts: {
    get(id: number): Promise<OrderDraft | undefined>;
    insert(userId: number, items: DraftItem[], amount: Minor): Promise<OrderDraft>;
  };
  inventory: {
    stock(sku: string): Promise<Stock | undefined>;
    /** `beforeCommit` may throw to roll the reservation back (a caller whose deadline passed). */
    reserve(
      orderId: number,
      sku: string,
      quantity: number,
      expiresAt: Date,
      beforeCommit?: () => void,
    ): Promise<ReserveOutcome>;
    /** Releases HELD reservations of the order (one SKU or all); returns the reservations touched. */
    release(orderId: number, sku?: string): Promise<Reservation[]>;
    /** Changes on-hand stock; refused below what is reserved, or above MAX_STOCK. */
    adjust(
      sku: string,
      delta: number,
      beforeCommit?: () => void,
    ): Promise<Stock | 'unknown-sku' | 'below-reserved' | 'above-maximum'>;
    /** Releases HELD reservations whose order never appeared before `now`. */
    expire(now: Date): Promise<number>;
  };
  /** Per-caller uses of deprecated and watched items, and the notices sent. */
  usage: UsagePort;
  idempotency: {
    /**
     * Claims a key; a row older than `since`, or still in progress since before `leaseStart`, is taken
     * over (releasing the stock its claim held for an order that was never written).
     */
    claim(
      caller: string,
      key: string,
      operation: string,
      fingerprint: string,
      since: Date,
      leaseStart: Date,
    ): Promise<IdempotencyClaim>;
    /** Records that the claim holds stock reserved for `orderId`. */
    hold(caller: string, key: string, orderId: number): Promise<void>;
    complete(caller: string, key: string, result: unknown): Promise<void>;
    abandon(caller: string, key: string): Promise<void>;
    /** Forgets keys claimed before `before`; returns how many. */
    purge(before: Date): Promise<number>;
    /** Drops claims still in progress since before `leaseStart` and releases their stock; returns how many. */
    expireLeases(leaseStart: Date): Promise<number>;
  };
}

/** Per-call options of an outbound call: the caller's abort signal and the time left. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * The inventory service as order placement sees it. In-process by default; the gRPC client of
 * `inventory.v1.Inventory` implements the same port, so deadlines and errors behave the same either way.
 */
export interface InventoryPort {
  reserve(request: { orderId: string; sku: string; quantity: number }, options: CallOptions): Promise<void>;
  release(request: { orderId: string; sku?: string }, options: CallOptions): Promise<void>;
}
