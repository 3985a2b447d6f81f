/**
 * What each GraphQL object type resolves from: the core's values, so that resolvers map and never
 * re-implement a rule. Wired into the generated resolver types through codegen's `mappers`.
 */
import type { OrderHead, OrderItem } from '../core/shared/model.js';
import type { Page } from '../core/shared/paging.js';

/** An order as read alone (with its items) or in a page (without them: `Order.items` loads them if asked). */
export type OrderParent = OrderHead & { items?: OrderItem[] };

export type { RequestShape as RequestShapeParent } from '../core/lifecycle/shapes/request-shapes.js';
export type { AmountDetail as AmountDetailParent } from '../core/orders/orders.js';
export type {
  Address as AddressParent,
  Cancellation as CancellationParent,
  DraftItem as OrderDraftItemParent,
  OrderDraft as OrderDraftParent,
  OrderItem as OrderItemParent,
  Product as ProductParent,
  Rating as MyRatingParent,
  Shipment as ShipmentParent,
  User as UserParent,
} from '../core/shared/model.js';

/** A page of a connection, with its total counted only if the field is selected. */
export interface ConnectionParent<T> {
  page: Page<T>;
  /** Whether the page was asked for with `after` (Relay's `hasPreviousPage` for forward paging). */
  after: boolean;
  totalCount(): Promise<number>;
}
