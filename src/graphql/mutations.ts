import type { CreateUserInput, MutationResolvers, ReplaceUserInput } from '../../generated/graphql/resolvers.js';
import { toMinor } from '../core/shared/decimal-amounts.js';
import type { OrderStatus } from '../core/shared/order-state.js';
import type { UserInput } from '../core/users/users.js';
import { address, callerOf, createOptions, given, idOf } from './arguments.js';

/** The writes; each applies the same core call as the matching REST operation, idempotency keys shared. */
export const mutationResolvers: MutationResolvers = {
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
    return (await context.core.orders.place(caller, request, createOptions(context, idempotencyKey))).result;
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
      ...(given(input.note) ? { note: input.note } : {}),
      ...(given(input.couponCode) ? { couponCode: input.couponCode } : {}),
    }),
  async cancelOrder(_, { id, reason, idempotencyKey }, context) {
    const request = { orderId: idOf(id, 'ORDER_NOT_FOUND', 'order'), ...(given(reason) ? { reason } : {}) };
    const options = createOptions(context, idempotencyKey);
    return (await context.core.orders.cancel(callerOf(context), request, options)).result;
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
    return (await context.core.drafts.create(caller, request, createOptions(context, idempotencyKey))).result;
  },
  async createUser(_, { input, idempotencyKey }, context) {
    const options = createOptions(context, idempotencyKey);
    return (await context.core.users.create(callerOf(context), userInputOf(input), options)).result;
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
    // A replacement is a full user, as a new one is; the core clears what it leaves out.
    context.core.users.replace(callerOf(context), idOf(id, 'USER_NOT_FOUND', 'user'), userInputOf(input)),
  async deleteUser(_, { id }, context) {
    await context.core.users.remove(callerOf(context), idOf(id, 'USER_NOT_FOUND', 'user'));
    return String(id);
  },
  async createProduct(_, { input, idempotencyKey }, context) {
    const caller = callerOf(context);
    const request = {
      name: input.name,
      sku: input.sku,
      price: toMinor(input.price),
      ...(given(input.imageUrl) ? { imageUrl: input.imageUrl } : {}),
      ...(given(input.stock) ? { stock: input.stock } : {}),
    };
    return (await context.core.products.create(caller, request, createOptions(context, idempotencyKey))).result;
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
};

/** The core's user input from a `UserInput` (create and replace take the same members). */
function userInputOf(input: CreateUserInput | ReplaceUserInput): UserInput {
  return {
    name: input.name,
    email: input.email,
    ...(given(input.phone) ? { phone: input.phone } : {}),
    ...(given(input.address) ? { address: address(input.address) } : {}),
    ...(given(input.nickname) ? { nickname: input.nickname } : {}),
    ...(given(input.marketingAgreed) ? { marketingAgreed: input.marketingAgreed } : {}),
  };
}
