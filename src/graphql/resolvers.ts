/**
 * The resolvers of contracts/schema.graphql, typed by the generated code. Each maps arguments to one core
 * call and reads nested fields through the request's loaders; rules and authorization stay in the core.
 */
import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';
import type { OrderFilter, Resolvers } from '../../generated/graphql/resolvers.js';
import type { RequestShape } from '../core/lifecycle/shapes/request-shapes.js';
import { type OrderConditions, orderFilters } from '../core/orders/order-filters.js';
import { fromMinor } from '../core/shared/decimal-amounts.js';
import type { Product, User } from '../core/shared/model.js';
import type { Page } from '../core/shared/paging.js';
import { callerOf, given, idOf } from './arguments.js';
import { deprecatedUsageOf } from './deprecated-usage.js';
import { mutationResolvers } from './mutations.js';
import type { ConnectionParent, OrderParent } from './parents.js';
import { subscriptionResolvers } from './subscriptions.js';

/** Whether a field is selected under the current one (through fragments too), so `totalCount` is counted only when asked. */
function selects(info: GraphQLResolveInfo, name: string): boolean {
  const visit = (set: SelectionSetNode | undefined): boolean =>
    (set?.selections ?? []).some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === name;
      if (selection.kind === Kind.INLINE_FRAGMENT) return visit(selection.selectionSet);
      return visit(info.fragments[selection.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}

/** Runs a list call and wraps it as a connection whose total is counted lazily. */
async function connection<T>(
  info: GraphQLResolveInfo,
  args: { after?: string | null },
  list: (withTotal: boolean) => Promise<Page<T>>,
): Promise<ConnectionParent<T>> {
  const page = await list(selects(info, 'totalCount'));
  return { page, after: given(args.after), totalCount: async () => page.totalCount ?? 0 };
}

/** The cursor after an item; every page read through the core can make one. */
const cursorOf = <T>(page: Page<T>, item: T | undefined): string | null =>
  item === undefined || !page.cursorOf ? null : page.cursorOf(item);

const pageArgs = (args: { first?: number | null; after?: string | null; sort?: string | null }) => ({
  // Without `first`, the core's default page size applies (the same as REST's `size`).
  ...(given(args.first) ? { size: args.first } : {}),
  ...(given(args.after) ? { cursor: args.after } : {}),
  ...(given(args.sort) ? { sort: args.sort } : {}),
});

const connectionFields = <T>() => ({
  nodes: (parent: ConnectionParent<T>) => parent.page.items,
  // Relay's form of the same page: each item with the cursor that continues after it.
  edges: (parent: ConnectionParent<T>) =>
    parent.page.items.map((node) => ({ node, cursor: cursorOf(parent.page, node) ?? '' })),
  // The cursors are signed (an HMAC each), so they are made only when the document selects them.
  pageInfo: (parent: ConnectionParent<T>) => ({
    get endCursor() {
      return parent.page.nextCursor ?? cursorOf(parent.page, parent.page.items.at(-1));
    },
    hasNextPage: parent.page.hasNext,
    get startCursor() {
      return cursorOf(parent.page, parent.page.items[0]);
    },
    hasPreviousPage: parent.after,
  }),
  totalCount: (parent: ConnectionParent<T>) => parent.totalCount(),
});

export const resolvers: Resolvers = {
  Query: {
    order: (_, args, context) => context.core.orders.get(callerOf(context), idOf(args.id, 'ORDER_NOT_FOUND', 'order')),
    async orders(_, args, context) {
      const page = await context.core.orders.listHeads(callerOf(context), {
        ...pageArgs(args),
        filters: orderFilters(filterOf(args.filter)),
      });
      return page.items;
    },
    ordersConnection: (_, args, context, info) =>
      connection(info, args, (withTotal) =>
        context.core.orders.listHeads(callerOf(context), {
          ...pageArgs(args),
          withTotal,
          filters: orderFilters(filterOf(args.filter)),
        }),
      ),
    me: (_, __, context) => context.core.users.get(callerOf(context), callerOf(context).userId),
    user: (_, args, context) => context.core.users.get(callerOf(context), idOf(args.id, 'USER_NOT_FOUND', 'user')),
    users: (_, args, context, info) =>
      connection(info, args, (withTotal) =>
        context.core.users.list(callerOf(context), { ...pageArgs(args), withTotal }),
      ),
    product: (_, args, context) => context.core.products.get(idOf(args.id, 'PRODUCT_NOT_FOUND', 'product')),
    products: (_, args, context, info) =>
      connection(info, args, (withTotal) => context.core.products.list({ ...pageArgs(args), withTotal })),
    orderDraft: (_, args, context) =>
      context.core.drafts.get(callerOf(context), idOf(args.id, 'DRAFT_NOT_FOUND', 'order draft')),
  },

  Mutation: mutationResolvers,
  ...subscriptionResolvers,

  Order: {
    id: (order) => String(order.id),
    amount: (order) => fromMinor(order.amount),
    amountDetail: (order, _, context) => context.core.orders.amountDetail(order),
    user: (order, _, context) => context.loaders.user.load(order.userId),
    items: (order, _, context) => order.items ?? context.loaders.items.load(order),
    product: async (order, _, context) => {
      const first = (order.items ?? (await context.loaders.items.load(order)))[0];
      return first ? context.loaders.product.load(first.productId) : null;
    },
    shipment: (order, _, context) => context.loaders.shipment.load(order),
    cancellation: (order, _, context) => context.loaders.cancellation.load(order),
    hasCoupon: (order) => order.couponCode !== null,
    createdAt: (order) => order.createdAt.toISOString(),
    updatedAt: (order) => order.updatedAt.toISOString(),
  },
  AmountDetail: {
    supply: (split) => fromMinor(split.supply),
    vat: (split) => fromMinor(split.vat),
    total: (split) => fromMinor(split.total),
  },
  OrderItem: {
    id: (item) => String(item.id),
    unitPrice: (item) => fromMinor(item.unitPrice),
    amount: (item) => fromMinor(item.amount),
    product: (item, _, context) => context.loaders.product.load(item.productId),
  },
  Shipment: {
    id: (shipment) => String(shipment.id),
    shippedAt: (shipment) => shipment.shippedAt?.toISOString() ?? null,
    deliveredAt: (shipment) => shipment.deliveredAt?.toISOString() ?? null,
  },
  Cancellation: {
    id: (record) => String(record.id),
    refundAmount: (record) => fromMinor(record.refundAmount),
    createdAt: (record) => record.createdAt.toISOString(),
  },
  User: {
    id: (user) => String(user.id),
    createdAt: (user) => user.createdAt.toISOString(),
    lastLoginAt: (user) => user.lastLoginAt?.toISOString() ?? null,
    deprecatedUsage: async (user, _, context) =>
      deprecatedUsageOf(await context.core.deprecatedUsage.ownOnUser(callerOf(context), user.id)),
    requestShapes: (user, args, context, info) =>
      connection(info, args, (withTotal) =>
        context.core.requestShapes.ownOnUser(
          callerOf(context),
          user.id,
          { days: args.days ?? 30, protocol: args.protocol ?? undefined },
          { ...pageArgs(args), withTotal },
        ),
      ),
  },
  RequestShape: {
    firstSeen: (shape) => shape.firstSeen.toISOString(),
    lastSeen: (shape) => shape.lastSeen.toISOString(),
  },
  Product: {
    id: (product) => String(product.id),
    price: (product) => fromMinor(product.price),
  },
  MyRating: {
    product: (rating, _, context) => context.loaders.product.load(rating.productId),
    createdAt: (rating) => rating.createdAt.toISOString(),
    updatedAt: (rating) => rating.updatedAt.toISOString(),
  },
  OrderDraft: {
    id: (draft) => String(draft.id),
    amount: (draft) => fromMinor(draft.amount),
    order: (draft, _, context) => (draft.orderId === null ? null : context.loaders.order.load(draft.orderId)),
    createdAt: (draft) => draft.createdAt.toISOString(),
  },
  OrderDraftItem: {
    product: (item, _, context) => context.loaders.product.load(item.productId),
    unitPrice: (item) => fromMinor(item.unitPrice),
    amount: (item) => fromMinor(item.amount),
  },
  OrderConnection: connectionFields<OrderParent>(),
  UserConnection: connectionFields<User>(),
  ProductConnection: connectionFields<Product>(),
  RequestShapeConnection: connectionFields<RequestShape>(),
};

/** GraphQL's `OrderFilter` as the core's conditions: a member given as null is not a condition. */
function filterOf(filter: OrderFilter | null | undefined): OrderConditions {
  if (!filter) return {};
  const conditions: OrderConditions = {};
  if (filter.status) conditions.status = filter.status;
  if (filter.userId != null) conditions.userId = Number(filter.userId);
  if (filter.from != null) conditions.from = filter.from;
  if (filter.to != null) conditions.to = filter.to;
  if (filter.minAmount != null) conditions.minAmount = filter.minAmount;
  if (filter.hasCoupon != null) conditions.hasCoupon = filter.hasCoupon;
  if (filter.q != null) conditions.q = filter.q;
  if (filter.ids) conditions.ids = filter.ids.map(Number);
  return conditions;
}
