import type { Minor } from './money.js';
import type { OrderStatus } from './order-state.js';
import type { Scope } from './scope-catalog.js';

/** A postal address. */
export interface Address {
  zipCode: string;
  line1: string;
  line2: string | null;
}

/** A user; `version` changes with every write and makes the ETag. */
export interface User {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  address: Address | null;
  nickname: string | null;
  marketingAgreed: boolean;
  createdAt: Date;
  lastLoginAt: Date | null;
  version: number;
}

/** A product of the catalog, with its aggregate rating. */
export interface Product {
  id: number;
  name: string;
  imageUrl: string | null;
  sku: string;
  price: Minor;
  rating: number | null;
  ratingCount: number;
  createdAt: Date;
}

/** One line of an order, priced when the order was placed. */
export interface OrderItem {
  id: number;
  orderId: number;
  productId: number;
  sku: string;
  quantity: number;
  unitPrice: Minor;
  amount: Minor;
}

/** An order; `amount` is the VAT-inclusive total in minor units. */
export interface Order {
  id: number;
  userId: number;
  items: OrderItem[];
  amount: Minor;
  status: OrderStatus;
  shippingAddress: Address;
  note: string | null;
  couponCode: string | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/** An order without its items: what a page of orders holds where the items are read only if asked for. */
export type OrderHead = Omit<Order, 'items'>;

/** The states of a shipment. */
export type ShipmentStatus = 'PREPARING' | 'SHIPPED' | 'DELIVERED';

/** The shipment of a paid order. */
export interface Shipment {
  id: number;
  orderId: number;
  status: ShipmentStatus;
  carrier: string | null;
  trackingNumber: string | null;
  shippedAt: Date | null;
  deliveredAt: Date | null;
}

/** The record of an order's cancellation. */
export interface Cancellation {
  id: number;
  orderId: number;
  reason: string | null;
  refundAmount: Minor;
  createdAt: Date;
}

/** Stock of one SKU. */
export interface Stock {
  sku: string;
  onHand: number;
  reserved: number;
}

/** The states of a reservation. */
export type ReservationState = 'HELD' | 'RELEASED' | 'CONSUMED';

/** Stock of one SKU held for one order. */
export interface Reservation {
  orderId: number;
  sku: string;
  quantity: number;
  state: ReservationState;
  createdAt: Date;
  expiresAt: Date | null;
}

/** A line of a draft. */
export interface DraftItem {
  productId: number;
  sku: string;
  quantity: number;
  unitPrice: Minor;
  amount: Minor;
}

/** A basket not yet ordered. */
export interface OrderDraft {
  id: number;
  userId: number;
  items: DraftItem[];
  amount: Minor;
  status: 'OPEN' | 'ORDERED';
  orderId: number | null;
  createdAt: Date;
}

/** The role an API key grants. */
export type Role = 'admin' | 'customer';

/** An API key, without its secret (only a hash of the secret is stored). */
export interface ApiKey {
  id: number;
  userId: number;
  role: Role;
  /** Who the key is for, as its owner named it (an integration, a machine); null when unnamed. */
  label: string | null;
  /** What the key may be used for (src/core/shared/scopes.ts). */
  scopes: readonly Scope[];
  createdAt: Date;
  revokedAt: Date | null;
  /** When the key stops working (its expiry, or the end of a rotation's overlap); null: never. */
  expiresAt: Date | null;
  /** The last use, written at most once a minute. */
  lastUsedAt: Date | null;
  /** The key that replaced this one by rotation. */
  replacedBy: number | null;
  /** The first key of its rotation chain (its own id unless it was rotated into): its streams and budget hold across the chain. */
  chainId: number;
  /** Its own rate budget in points per window, or null for its role's default. */
  rateLimit: number | null;
}

/** One user's rating of one product. */
export interface Rating {
  productId: number;
  userId: number;
  score: number;
  comment: string | null;
  createdAt: Date;
  updatedAt: Date;
}
