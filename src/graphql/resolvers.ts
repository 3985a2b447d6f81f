/**
 * The resolvers of contracts/schema.graphql, typed by the generated code. Each maps arguments to one core
 * call and reads nested fields through the request's loaders; rules and authorization stay in the core.
 */
import { GraphQLError, type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';
import type { Resolvers } from '../../generated/graphql/resolvers.js';
import type { Caller } from '../core/caller.js';
import type { ErrorCode } from '../core/errors.js';
import { DomainError } from '../core/errors.js';
import type { Address, Order, Product, User } from '../core/model.js';
import { fromMinor, splitVat, toMinor } from '../core/money.js';
import { orderFilters } from '../core/order-filters.js';
import type { OrderStatus } from '../core/order-state.js';
import type { Page } from '../core/paging.js';
import type { GraphQLContext } from './context.js';
import type { ConnectionParent } from './parents.js';

/** The caller, or UNAUTHENTICATED for an anonymous request. */
function callerOf(context: GraphQLContext): Caller {
  if (!context.caller) {
    throw new GraphQLError('This field needs an API key: send `Authorization: Bearer <key>`.', {
      extensions: { code: 'UNAUTHENTICATED' },
    });
  }
  return context.caller;
}

/** A GraphQL `ID` as the service's positive integer id; anything else names nothing. */
function idOf(value: string | number, notFound: ErrorCode, what: string): number {
  const text = String(value);
  if (!/^[1-9]\d{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new DomainError(notFound, `There is no ${what} ${text}.`);
  }
  return Number(text);
}

/** Optional scalar args: GraphQL gives `null` for an explicit null, the core wants it left out or `null`. */
const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

const address = (input: { zipCode: string; line1: string; line2?: string | null }): Address => ({
  zipCode: input.zipCode,
  line1: input.line1,
  line2: input.line2 ?? null,
});

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
  list: (withTotal: boolean) => Promise<Page<T>>,
): Promise<ConnectionParent<T>> {
  const page = await list(selects(info, 'totalCount'));
  return { page, totalCount: async () => page.totalCount ?? 0 };
}

const pageArgs = (args: { first?: number | null; after?: string | null; sort?: string | null }) => ({
  size: args.first ?? 20,
  ...(given(args.after) ? { cursor: args.after } : {}),
  ...(given(args.sort) ? { sort: args.sort } : {}),
});

const connectionFields = <T>() => ({
  nodes: (parent: ConnectionParent<T>) => parent.page.items,
  pageInfo: (parent: ConnectionParent<T>) => ({
    endCursor: parent.page.nextCursor ?? null,
    hasNextPage: parent.page.hasNext,
  }),
  totalCount: (parent: ConnectionParent<T>) => parent.totalCount(),
});

/** The idempotency scope of a caller: the same as REST's, so a key is shared across the two. */
const scope = (caller: Caller) => `user:${caller.userId}`;

export const resolvers: Resolvers = {
  Query: {
    order: (_, args, context) => context.core.orders.get(callerOf(context), idOf(args.id, 'ORDER_NOT_FOUND', 'order')),
    async orders(_, args, context) {
      const page = await context.core.orders.list(callerOf(context), {
        ...pageArgs(args),
        filters: orderFilters(filterOf(args.filter), 'query'),
      });
      return page.items;
    },
    ordersConnection: (_, args, context, info) =>
      connection(info, (withTotal) =>
        context.core.orders.list(callerOf(context), {
          ...pageArgs(args),
          withTotal,
          filters: orderFilters(filterOf(args.filter), 'query'),
        }),
      ),
    me: (_, __, context) => context.core.users.get(callerOf(context), callerOf(context).userId),
    user: (_, args, context) => context.core.users.get(callerOf(context), idOf(args.id, 'USER_NOT_FOUND', 'user')),
    users: (_, args, context, info) =>
      connection(info, (withTotal) => context.core.users.list(callerOf(context), { ...pageArgs(args), withTotal })),
    product: (_, args, context) => context.core.products.get(idOf(args.id, 'PRODUCT_NOT_FOUND', 'product')),
    products: (_, args, context, info) =>
      connection(info, (withTotal) => context.core.products.list({ ...pageArgs(args), withTotal })),
    orderDraft: (_, args, context) =>
      context.core.drafts.get(callerOf(context), idOf(args.id, 'DRAFT_NOT_FOUND', 'order draft')),
  },

  Mutation: {
    async createOrder(_, { input, idempotencyKey }, context) {
      const caller = callerOf(context);
      const request = {
        ...(given(input.items)
          ? {
              items: input.items.map((line) => ({
                productId: idOf(line.productId, 'PRODUCT_NOT_FOUND', 'product'),
                quantity: line.quantity,
              })),
            }
          : {}),
        ...(given(input.draftId) ? { draftId: idOf(input.draftId, 'DRAFT_NOT_FOUND', 'order draft') } : {}),
        ...(given(input.userId) ? { userId: idOf(input.userId, 'USER_NOT_FOUND', 'user') } : {}),
        ...(given(input.shippingAddress) ? { shippingAddress: address(input.shippingAddress) } : {}),
        ...(given(input.note) ? { note: input.note } : {}),
        ...(given(input.couponCode) ? { couponCode: input.couponCode } : {}),
      };
      const { result } = await context.core.idempotency.run(
        scope(caller),
        idempotencyKey ?? undefined,
        'orders.place',
        request,
        () => context.core.orders.place(caller, request, { signal: context.signal }),
      );
      return result;
    },
    updateOrder: (_, { id, input }, context) =>
      context.core.orders.update(callerOf(context), idOf(id, 'ORDER_NOT_FOUND', 'order'), {
        ...(given(input.status) ? { status: input.status as OrderStatus } : {}),
        ...(given(input.shippingAddress) ? { shippingAddress: address(input.shippingAddress) } : {}),
        ...('note' in input ? { note: input.note ?? null } : {}),
        ...('couponCode' in input ? { couponCode: input.couponCode ?? null } : {}),
      }),
    replaceOrder: (_, { id, input }, context) =>
      context.core.orders.replace(callerOf(context), idOf(id, 'ORDER_NOT_FOUND', 'order'), {
        status: input.status as OrderStatus,
        shippingAddress: address(input.shippingAddress),
        note: input.note ?? null,
        couponCode: input.couponCode ?? null,
      }),
    async cancelOrder(_, { id, reason, idempotencyKey }, context) {
      const caller = callerOf(context);
      const orderId = idOf(id, 'ORDER_NOT_FOUND', 'order');
      const request = { orderId, ...(given(reason) ? { reason } : {}) };
      const { result } = await context.core.idempotency.run(
        scope(caller),
        idempotencyKey ?? undefined,
        'orders.cancel',
        request,
        () => context.core.orders.cancel(caller, orderId, reason ?? undefined),
      );
      return result;
    },
    async deleteOrder(_, { id }, context) {
      await context.core.orders.remove(callerOf(context), idOf(id, 'ORDER_NOT_FOUND', 'order'));
      return String(id);
    },
    updateShipment: (_, { orderId, input }, context) =>
      context.core.orders.updateShipment(callerOf(context), idOf(orderId, 'ORDER_NOT_FOUND', 'order'), {
        ...('carrier' in input ? { carrier: input.carrier ?? null } : {}),
        ...('trackingNumber' in input ? { trackingNumber: input.trackingNumber ?? null } : {}),
      }),
    async createOrderDraft(_, { input, idempotencyKey }, context) {
      const caller = callerOf(context);
      const request = {
        items: input.items.map((line) => ({
          productId: idOf(line.productId, 'PRODUCT_NOT_FOUND', 'product'),
          quantity: line.quantity,
        })),
        ...(given(input.userId) ? { userId: idOf(input.userId, 'USER_NOT_FOUND', 'user') } : {}),
      };
      const { result } = await context.core.idempotency.run(
        scope(caller),
        idempotencyKey ?? undefined,
        'drafts.create',
        request,
        () => context.core.drafts.create(caller, request),
      );
      return result;
    },
    async createUser(_, { input, idempotencyKey }, context) {
      const caller = callerOf(context);
      const request = {
        name: input.name,
        email: input.email,
        ...(given(input.phone) ? { phone: input.phone } : {}),
        ...(given(input.address) ? { address: address(input.address) } : {}),
        ...(given(input.nickname) ? { nickname: input.nickname } : {}),
        ...(given(input.marketingAgreed) ? { marketingAgreed: input.marketingAgreed } : {}),
      };
      const { result } = await context.core.idempotency.run(
        scope(caller),
        idempotencyKey ?? undefined,
        'users.create',
        request,
        () => context.core.users.create(caller, request),
      );
      return result;
    },
    updateUser: (_, { id, input }, context) =>
      context.core.users.update(callerOf(context), idOf(id, 'USER_NOT_FOUND', 'user'), {
        ...(given(input.name) ? { name: input.name } : {}),
        ...(given(input.email) ? { email: input.email } : {}),
        ...('phone' in input ? { phone: input.phone ?? null } : {}),
        ...('address' in input ? { address: input.address ? address(input.address) : null } : {}),
        ...('nickname' in input ? { nickname: input.nickname ?? null } : {}),
        ...(given(input.marketingAgreed) ? { marketingAgreed: input.marketingAgreed } : {}),
      }),
    replaceUser: (_, { id, input }, context) =>
      context.core.users.replace(callerOf(context), idOf(id, 'USER_NOT_FOUND', 'user'), {
        name: input.name,
        email: input.email,
        phone: input.phone ?? null,
        address: input.address ? address(input.address) : null,
        nickname: input.nickname ?? null,
        marketingAgreed: input.marketingAgreed ?? false,
      }),
    async deleteUser(_, { id }, context) {
      await context.core.users.remove(callerOf(context), idOf(id, 'USER_NOT_FOUND', 'user'));
      return String(id);
    },
    async createProduct(_, { input, idempotencyKey }, context) {
      const caller = callerOf(context);
      const request = {
        name: input.name,
        sku: input.sku,
        price: toMinor(input.price, 'price'),
        ...(given(input.imageUrl) ? { imageUrl: input.imageUrl } : {}),
        ...(given(input.stock) ? { stock: input.stock } : {}),
      };
      const { result } = await context.core.idempotency.run(
        scope(caller),
        idempotencyKey ?? undefined,
        'products.create',
        request,
        () => context.core.products.create(caller, request),
      );
      return result;
    },
    async rateProduct(_, { productId, score, comment }, context) {
      const { rating } = await context.core.products.rate(
        callerOf(context),
        idOf(productId, 'PRODUCT_NOT_FOUND', 'product'),
        {
          score,
          comment: comment ?? null,
        },
      );
      return rating;
    },
  },

  Order: {
    id: (order) => String(order.id),
    amount: (order, _, context) => {
      context.usage.add('Order.amount');
      return fromMinor(order.amount);
    },
    amountDetail: (order, _, context) => {
      context.usage.add('amountDetail');
      return splitVat(order.amount, context.core.vatRate);
    },
    user: (order, _, context) => context.loaders.user.load(order.userId),
    product: (order, _, context) => {
      const first = order.items[0];
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
  OrderConnection: connectionFields<Order>(),
  UserConnection: connectionFields<User>(),
  ProductConnection: connectionFields<Product>(),
};

function filterOf(filter: Record<string, unknown> | null | undefined) {
  if (!filter) return {};
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== null && value !== undefined));
}
