/**
 * The REST operations, one per `operationId` of contracts/openapi.yaml. Each maps the validated request
 * to one core call and the result to the contract's shape; the rules live in the core.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { components } from '../../generated/openapi/schema.js';
import { canonicalJson } from '../core/cursor.js';
import { DomainError, type Violation } from '../core/errors.js';
import type { Core } from '../core/index.js';
import type { Address, Order, User } from '../core/model.js';
import { toMinor } from '../core/money.js';
import type { OrderStatus } from '../core/order-state.js';
import {
  apiKeyJson,
  cancellationJson,
  draftJson,
  etagOf,
  orderItemJson,
  orderJson,
  pageJson,
  productJson,
  ratingJson,
  shipmentJson,
  userJson,
} from './mappers.js';
import {
  callerOf,
  ifMatchVersion,
  includes,
  listInput,
  noneMatchHits,
  type OrderConditions,
  orderFilters,
  type RestRequest,
} from './request.js';

type Schemas = components['schemas'];
type Handler = (request: RestRequest) => Promise<Response>;

const json = (c: Context, status: ContentfulStatusCode, body: unknown, headers: Record<string, string> = {}) =>
  c.body(JSON.stringify(body), status, { ...headers, 'content-type': 'application/json' });

const noContent = (c: Context) => c.body(null, 204);

const replayHeader = (replayed: boolean): Record<string, string> => (replayed ? { 'Idempotent-Replayed': 'true' } : {});

/** Answers 304 when `If-None-Match` names the current ETag, else the representation with its ETag. */
function conditionalGet(request: RestRequest, version: number, body: () => unknown): Response {
  const etag = etagOf(version);
  if (noneMatchHits(request.header('if-none-match'), etag)) return request.c.body(null, 304, { ETag: etag });
  return json(request.c, 200, body(), { ETag: etag });
}

/** Refuses read-only members sent with a value other than the current one (DESIGN.md §3). */
function checkReadOnly(body: Record<string, unknown>, current: Record<string, unknown>, names: readonly string[]) {
  const violations: Violation[] = [];
  for (const name of names) {
    if (name in body && canonicalJson(body[name]) !== canonicalJson(current[name])) {
      violations.push({
        in: 'body',
        name: `/${name}`,
        message: 'is read-only; send the current value or leave it out',
      });
    }
  }
  if (violations.length > 0) {
    throw new DomainError(
      'READ_ONLY_FIELD',
      `Read-only members cannot be changed: ${violations.map((v) => v.name).join(', ')}.`,
      violations,
    );
  }
}

const ORDER_READ_ONLY = ['id', 'userId', 'items', 'amount', 'amountDetail', 'createdAt', 'updatedAt'] as const;
const USER_READ_ONLY = ['id', 'createdAt', 'lastLoginAt'] as const;

/** Builds the handlers over the core. */
export function createHandlers(core: Core): Record<string, Handler> {
  const orderView = (request: RestRequest, order: Order) =>
    orderJson(order, { amountDetail: includes(request.query.include).has('amountDetail'), vatRate: core.vatRate });
  const orderResponse = (request: RestRequest, order: Order) =>
    json(request.c, 200, orderView(request, order), { ETag: etagOf(order.version) });
  const userResponse = (request: RestRequest, user: User) =>
    json(request.c, 200, userJson(user), { ETag: etagOf(user.version) });
  const scope = (request: RestRequest) => `user:${callerOf(request).userId}`;
  const idempotencyKey = (request: RestRequest) => request.header('idempotency-key');

  async function currentOrderForWrite(request: RestRequest, body: Record<string, unknown>) {
    const order = await core.orders.get(callerOf(request), request.params.orderId as number);
    checkReadOnly(body, { ...orderJson(order, { amountDetail: true, vatRate: core.vatRate }) }, ORDER_READ_ONLY);
  }

  async function currentUserForWrite(request: RestRequest, body: Record<string, unknown>) {
    const user = await core.users.get(callerOf(request), request.params.userId as number);
    checkReadOnly(body, { ...userJson(user) }, USER_READ_ONLY);
  }

  const searchList = async (request: RestRequest, conditions: OrderConditions, paging: Record<string, unknown>) => {
    const page = await core.orders.list(callerOf(request), {
      filters: orderFilters(conditions, request.operationId === 'searchOrders' ? 'body' : 'query'),
      ...listInput(
        Object.fromEntries(
          Object.entries(paging)
            .filter(([, value]) => value !== undefined)
            .map(([k, v]) => [k, String(v)]),
        ),
      ),
    });
    return json(
      request.c,
      200,
      pageJson(page, (order) => orderView(request, order)),
    );
  };

  return {
    async listOrders(request) {
      const { sort, cursor, size, withTotal, include: _include, ...conditions } = request.query;
      return searchList(request, conditions, { sort, cursor, size, withTotal });
    },

    async searchOrders(request) {
      const body = (request.body ?? {}) as Schemas['OrderSearch'];
      const { sort, cursor, size, withTotal, include, ...conditions } = body;
      if (include) request.query.include = include.join(',');
      return searchList(request, conditions as OrderConditions, { sort, cursor, size, withTotal });
    },

    async createOrder(request) {
      const body = request.body as Schemas['OrderCreate'];
      const input = {
        ...(body.items ? { items: body.items.map(({ productId, quantity }) => ({ productId, quantity })) } : {}),
        ...(body.draftId !== undefined ? { draftId: body.draftId } : {}),
        ...(body.userId !== undefined ? { userId: body.userId } : {}),
        ...(body.shippingAddress ? { shippingAddress: address(body.shippingAddress) } : {}),
        ...(body.note !== undefined ? { note: body.note } : {}),
        ...(body.couponCode !== undefined ? { couponCode: body.couponCode } : {}),
      };
      const caller = callerOf(request);
      const signal = request.c.req.raw.signal;
      const { result, replayed } = await core.idempotency.run(
        scope(request),
        idempotencyKey(request),
        'orders.place',
        input,
        () => core.orders.place(caller, input, { signal }),
      );
      return json(request.c, 201, orderView(request, result), {
        Location: `/v1/orders/${result.id}`,
        ETag: etagOf(result.version),
        ...replayHeader(replayed),
      });
    },

    async getOrder(request) {
      const order = await core.orders.get(callerOf(request), request.params.orderId as number);
      return conditionalGet(request, order.version, () => orderView(request, order));
    },

    async replaceOrder(request) {
      const body = request.body as Schemas['OrderReplace'] & Record<string, unknown>;
      await currentOrderForWrite(request, body);
      const order = await core.orders.replace(
        callerOf(request),
        request.params.orderId as number,
        {
          status: body.status as OrderStatus,
          shippingAddress: address(body.shippingAddress),
          note: body.note ?? null,
          couponCode: body.couponCode ?? null,
        },
        ifMatchVersion(request.header('if-match')),
      );
      return orderResponse(request, order);
    },

    async updateOrder(request) {
      const body = request.body as Schemas['OrderPatch'] & Record<string, unknown>;
      await currentOrderForWrite(request, body);
      const order = await core.orders.update(
        callerOf(request),
        request.params.orderId as number,
        {
          ...(body.status ? { status: body.status as OrderStatus } : {}),
          ...(body.shippingAddress ? { shippingAddress: address(body.shippingAddress) } : {}),
          ...('note' in body ? { note: body.note ?? null } : {}),
          ...('couponCode' in body ? { couponCode: body.couponCode ?? null } : {}),
        },
        ifMatchVersion(request.header('if-match')),
      );
      return orderResponse(request, order);
    },

    async deleteOrder(request) {
      await core.orders.remove(
        callerOf(request),
        request.params.orderId as number,
        ifMatchVersion(request.header('if-match')),
      );
      return noContent(request.c);
    },

    async listOrderItems(request) {
      const page = await core.orders.itemPage(
        callerOf(request),
        request.params.orderId as number,
        listInput(request.query),
      );
      return json(request.c, 200, pageJson(page, orderItemJson));
    },

    async getOrderItem(request) {
      return json(
        request.c,
        200,
        orderItemJson(await core.orders.item(callerOf(request), request.params.orderItemId as number)),
      );
    },

    async getShipment(request) {
      return json(
        request.c,
        200,
        shipmentJson(await core.orders.shipment(callerOf(request), request.params.orderId as number)),
      );
    },

    async updateShipment(request) {
      const body = request.body as Schemas['ShipmentPatch'];
      const shipment = await core.orders.updateShipment(callerOf(request), request.params.orderId as number, {
        ...('carrier' in body ? { carrier: body.carrier ?? null } : {}),
        ...('trackingNumber' in body ? { trackingNumber: body.trackingNumber ?? null } : {}),
      });
      return json(request.c, 200, shipmentJson(shipment));
    },

    async createCancellation(request) {
      const body = (request.body ?? {}) as Schemas['CancellationCreate'];
      const orderId = request.params.orderId as number;
      const caller = callerOf(request);
      const input = { orderId, ...(body.reason ? { reason: body.reason } : {}) };
      const { result, replayed } = await core.idempotency.run(
        scope(request),
        idempotencyKey(request),
        'orders.cancel',
        input,
        () => core.orders.cancel(caller, orderId, body.reason),
      );
      return json(request.c, 201, cancellationJson(result), {
        Location: `/v1/orders/${orderId}/cancellation`,
        ...replayHeader(replayed),
      });
    },

    async getCancellation(request) {
      return json(
        request.c,
        200,
        cancellationJson(await core.orders.cancellation(callerOf(request), request.params.orderId as number)),
      );
    },

    async createOrderDraft(request) {
      const body = request.body as Schemas['OrderDraftCreate'];
      const input = {
        items: body.items.map(({ productId, quantity }) => ({ productId, quantity })),
        ...(body.userId !== undefined ? { userId: body.userId } : {}),
      };
      const caller = callerOf(request);
      const { result, replayed } = await core.idempotency.run(
        scope(request),
        idempotencyKey(request),
        'drafts.create',
        input,
        () => core.drafts.create(caller, input),
      );
      return json(request.c, 201, draftJson(result), {
        Location: `/v1/order-drafts/${result.id}`,
        ...replayHeader(replayed),
      });
    },

    async getOrderDraft(request) {
      return json(
        request.c,
        200,
        draftJson(await core.drafts.get(callerOf(request), request.params.draftId as number)),
      );
    },

    async listUsers(request) {
      const page = await core.users.list(callerOf(request), listInput(request.query));
      return json(request.c, 200, pageJson(page, userJson));
    },

    async createUser(request) {
      const body = request.body as Schemas['UserCreate'];
      const input = {
        name: body.name,
        email: body.email,
        ...(body.phone !== undefined ? { phone: body.phone } : {}),
        ...(body.address ? { address: address(body.address) } : {}),
        ...(body.nickname !== undefined ? { nickname: body.nickname } : {}),
        ...(body.marketingAgreed !== undefined ? { marketingAgreed: body.marketingAgreed } : {}),
      };
      const caller = callerOf(request);
      const { result, replayed } = await core.idempotency.run(
        scope(request),
        idempotencyKey(request),
        'users.create',
        input,
        () => core.users.create(caller, input),
      );
      return json(request.c, 201, userJson(result), {
        Location: `/v1/users/${result.id}`,
        ETag: etagOf(result.version),
        ...replayHeader(replayed),
      });
    },

    async getCurrentUser(request) {
      const caller = callerOf(request);
      const user = await core.users.get(caller, caller.userId);
      return conditionalGet(request, user.version, () => userJson(user));
    },

    async getUser(request) {
      const user = await core.users.get(callerOf(request), request.params.userId as number);
      return conditionalGet(request, user.version, () => userJson(user));
    },

    async replaceUser(request) {
      const body = request.body as Schemas['UserReplace'] & Record<string, unknown>;
      await currentUserForWrite(request, body);
      const user = await core.users.replace(
        callerOf(request),
        request.params.userId as number,
        {
          name: body.name,
          email: body.email,
          phone: body.phone ?? null,
          address: body.address ? address(body.address) : null,
          nickname: body.nickname ?? null,
          marketingAgreed: body.marketingAgreed ?? false,
        },
        ifMatchVersion(request.header('if-match')),
      );
      return userResponse(request, user);
    },

    async updateUser(request) {
      const body = request.body as Schemas['UserPatch'] & Record<string, unknown>;
      await currentUserForWrite(request, body);
      const user = await core.users.update(
        callerOf(request),
        request.params.userId as number,
        {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.email !== undefined ? { email: body.email } : {}),
          ...('phone' in body ? { phone: body.phone ?? null } : {}),
          ...('address' in body ? { address: body.address ? address(body.address) : null } : {}),
          ...('nickname' in body ? { nickname: body.nickname ?? null } : {}),
          ...(body.marketingAgreed !== undefined ? { marketingAgreed: body.marketingAgreed } : {}),
        },
        ifMatchVersion(request.header('if-match')),
      );
      return userResponse(request, user);
    },

    async deleteUser(request) {
      await core.users.remove(
        callerOf(request),
        request.params.userId as number,
        ifMatchVersion(request.header('if-match')),
      );
      return noContent(request.c);
    },

    async listProducts(request) {
      return json(request.c, 200, pageJson(await core.products.list(listInput(request.query)), productJson));
    },

    async createProduct(request) {
      const body = request.body as Schemas['ProductCreate'];
      const input = {
        name: body.name,
        sku: body.sku,
        price: toMinor(body.price, '/price'),
        ...(body.imageUrl !== undefined ? { imageUrl: body.imageUrl } : {}),
        ...(body.stock !== undefined ? { stock: body.stock } : {}),
      };
      const caller = callerOf(request);
      const { result, replayed } = await core.idempotency.run(
        scope(request),
        idempotencyKey(request),
        'products.create',
        input,
        () => core.products.create(caller, input),
      );
      return json(request.c, 201, productJson(result), {
        Location: `/v1/products/${result.id}`,
        ...replayHeader(replayed),
      });
    },

    async getProduct(request) {
      return json(request.c, 200, productJson(await core.products.get(request.params.productId as number)));
    },

    async getProductRating(request) {
      return json(request.c, 200, await core.products.rating(request.params.productId as number));
    },

    async putMyRating(request) {
      const body = request.body as Schemas['MyRatingPut'];
      const productId = request.params.productId as number;
      const { rating, created } = await core.products.rate(callerOf(request), productId, body);
      return created
        ? json(request.c, 201, ratingJson(rating), { Location: `/v1/products/${productId}/ratings/me` })
        : json(request.c, 200, ratingJson(rating));
    },

    async createApiKey(request) {
      const body = request.body as Schemas['ApiKeyCreate'];
      const { apiKey, secret } = await core.apiKeys.issue(callerOf(request), { userId: body.userId, role: body.role });
      // The secret is shown once: never cache this response.
      return json(request.c, 201, { ...apiKeyJson(apiKey), key: secret }, { 'Cache-Control': 'no-store' });
    },

    async revokeApiKey(request) {
      await core.apiKeys.revoke(callerOf(request), request.params.apiKeyId as number);
      return noContent(request.c);
    },
  };
}

function address(value: Schemas['Address']): Address {
  return { zipCode: value.zipCode, line1: value.line1, line2: value.line2 ?? null };
}
