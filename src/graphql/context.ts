import DataLoader from 'dataloader';
import type { Caller, Core } from '../core/index.js';
import { unauthenticated } from '../core/shared/caller.js';
import type { Cancellation, Order, OrderHead, OrderItem, Product, Shipment, User } from '../core/shared/model.js';
import type { TimeBudget } from './use-time-budget.js';

/** Per-request state of a GraphQL operation: the caller, the batch loaders and the time budget. */
export interface GraphQLContext {
  core: Core;
  /** The authenticated caller, or null for an anonymous request (product fields only). */
  caller: Caller | null;
  loaders: Loaders;
  /** The operation's time budget; its `signal` is aborted when the budget runs out. */
  timeBudget: TimeBudget;
  /**
   * The registry items the deprecation policy decided this operation meets in a running brownout window
   * (withheld fields, refused arguments): their fields resolve to `null` with a `BROWNOUT` error.
   */
  brownedOut?: ReadonlySet<string>;
}

/** Batch loaders: every nested fetch of one request becomes one statement per kind. */
export interface Loaders {
  user: DataLoader<number, User | null>;
  product: DataLoader<number, Product | null>;
  shipment: DataLoader<OrderHead, Shipment | null, number>;
  cancellation: DataLoader<OrderHead, Cancellation | null, number>;
  items: DataLoader<OrderHead, OrderItem[], number>;
  order: DataLoader<number, Order | null>;
}

const byKey = <K, V>(keys: readonly K[], values: V[], keyOf: (value: V) => K): Array<V | null> => {
  const found = new Map(values.map((value) => [keyOf(value), value]));
  return keys.map((key) => found.get(key) ?? null);
};

/** Creates one request's loaders; they apply the same visibility rules as single reads. */
export function createLoaders(core: Core, caller: Caller | null): Loaders {
  const anonymous = () => {
    throw unauthenticated.missing();
  };
  return {
    user: new DataLoader(async (ids) => {
      if (!caller) return anonymous();
      return byKey(ids, await core.users.getMany(caller, ids), (user) => user.id);
    }),
    product: new DataLoader(async (ids) => byKey(ids, await core.products.getMany(ids), (product) => product.id)),
    // Keyed by orders the caller already holds, so these loaders cannot reveal anyone else's.
    shipment: new DataLoader(
      async (orders) =>
        byKey(
          orders.map((order) => order.id),
          await core.orders.shipmentsOf(orders),
          (shipment) => shipment.orderId,
        ),
      { cacheKeyFn: (order) => order.id },
    ),
    cancellation: new DataLoader(
      async (orders) =>
        byKey(
          orders.map((order) => order.id),
          await core.orders.cancellationsOf(orders),
          (record) => record.orderId,
        ),
      { cacheKeyFn: (order) => order.id },
    ),
    items: new DataLoader(
      async (orders) => {
        const byOrder = new Map<number, OrderItem[]>(orders.map((order) => [order.id, []]));
        for (const item of await core.orders.itemsOf(orders)) byOrder.get(item.orderId)?.push(item);
        return orders.map((order) => byOrder.get(order.id) ?? []);
      },
      { cacheKeyFn: (order) => order.id },
    ),
    order: new DataLoader(async (ids) => {
      if (!caller) return anonymous();
      return byKey(ids, await core.orders.getMany(caller, ids), (order) => order.id);
    }),
  };
}
