import type { Caller, Core } from '../core/index.js';
import type { AmountDetail, OrderPatch, OrderReplacement, PlaceOrderInput } from '../core/orders/orders.js';
import type { Order } from '../core/shared/model.js';
import type { OrderStatus } from '../core/shared/order-state.js';
import type { ListInput } from '../core/shared/paging.js';
import type { WriteConditions } from '../core/shared/versions.js';
import { etagOf, orderJson, pageJson } from './mappers.js';
import {
  address,
  conditionalGet,
  createOptions,
  json,
  noContent,
  type RestHandlerGroup,
  replayHeader,
  type Schemas,
  versionedWrite,
} from './respond.js';
import {
  callerOf,
  ifMatchOf,
  includes,
  listInput,
  type OrderConditions,
  orderFilters,
  pathId,
  queryConditions,
  type RestRequest,
} from './validated-request.js';

/**
 * How one API version writes an order on the wire (spec §9.2 rule 6: versions share the core and differ
 * only in this mapping), and whether its order lists make cursors of their own.
 */
export interface OrderMapper {
  /** The version that changed the order's shape and binds its lists' cursors (`v2`); absent for v1. */
  cursorVersion?: string;
  /** The order as the request asked for it; `detail` is the core's split of its amount. */
  order(order: Order, detail: () => AmountDetail, include: ReadonlySet<string>): Record<string, unknown>;
}

/** v1: `amount` as a number, `amountDetail` only when the request includes it. */
export const v1OrderMapper: OrderMapper = {
  order: (order, detail, include) => orderJson(order, include.has('amountDetail') ? detail() : undefined),
};

const EVERY_PART: ReadonlySet<string> = new Set(['amountDetail']);

/**
 * Orders: list, search, place, read, replace, patch, delete (what hangs off them: order-part-handlers.ts),
 * written on the wire by `mapper`: a later version's order operations are these handlers with its mapper.
 */
export function createOrderHandlers(core: Core, mapper: OrderMapper = v1OrderMapper) {
  const detailOf = (order: Order) => () => core.orders.amountDetail(order);
  const orderView = (request: RestRequest, order: Order) =>
    mapper.order(order, detailOf(order), includes(request.query.include));
  const writeViews = (request: RestRequest) => ({
    answer: (order: Order) => orderView(request, order),
    full: (order: Order) => mapper.order(order, detailOf(order), EVERY_PART),
  });

  /** The query form and the search body name the same conditions; both become one core list call. */
  const searchList = async (request: RestRequest, conditions: OrderConditions, paging: ListInput) => {
    const page = await core.orders.list(callerOf(request), {
      filters: orderFilters(conditions),
      ...paging,
      ...(mapper.cursorVersion ? { cursorVersion: mapper.cursorVersion } : {}),
    });
    return json(
      request.c,
      200,
      pageJson(page, (order) => orderView(request, order)),
    );
  };
  return {
    async listOrders(request) {
      return searchList(request, queryConditions(request.query), listInput(request.query));
    },

    async searchOrders(request) {
      const body = (request.body ?? {}) as Schemas['OrderSearch'];
      // The pipeline has put the body's `include` there already when `fields` implies a part.
      if (body.include && request.query.include === undefined) request.query.include = body.include.join(',');
      return searchList(request, body as OrderConditions, searchPaging(body));
    },

    async createOrder(request) {
      const input = placeOrderInput(request.body as Schemas['OrderCreate']);
      const { result, replayed } = await core.orders.place(callerOf(request), input, createOptions(request));
      return json(request.c, 201, orderView(request, result), {
        Location: `${request.base}/orders/${result.id}`,
        ETag: etagOf(result.version),
        ...replayHeader(replayed),
      });
    },

    async getOrder(request) {
      const order = await core.orders.get(callerOf(request), pathId(request, 'orderId'));
      return conditionalGet(request, order.version, () => orderView(request, order));
    },

    async replaceOrder(request) {
      const replacement = replacementOf(request.body as Schemas['OrderReplace']);
      const replace = (caller: Caller, id: number, conditions: WriteConditions<Order>) =>
        core.orders.replace(caller, id, replacement, conditions);
      return versionedWrite(request, 'orderId', replace, writeViews(request));
    },

    async updateOrder(request) {
      const patch = patchOf(request.body as Schemas['OrderPatch']);
      const update = (caller: Caller, id: number, conditions: WriteConditions<Order>) =>
        core.orders.update(caller, id, patch, conditions);
      return versionedWrite(request, 'orderId', update, writeViews(request));
    },

    async deleteOrder(request) {
      await core.orders.remove(callerOf(request), pathId(request, 'orderId'), ifMatchOf(request));
      return noContent(request.c);
    },
  } satisfies RestHandlerGroup;
}

function placeOrderInput(body: Schemas['OrderCreate']): PlaceOrderInput {
  return {
    ...(body.items ? { items: body.items.map(({ productId, quantity }) => ({ productId, quantity })) } : {}),
    ...(body.draftId !== undefined ? { draftId: body.draftId } : {}),
    ...(body.userId !== undefined ? { userId: body.userId } : {}),
    ...(body.shippingAddress ? { shippingAddress: address(body.shippingAddress) } : {}),
    ...(body.note !== undefined ? { note: body.note } : {}),
    ...(body.couponCode !== undefined ? { couponCode: body.couponCode } : {}),
  };
}

function replacementOf(body: Schemas['OrderReplace']): OrderReplacement {
  return {
    status: body.status as OrderStatus,
    shippingAddress: address(body.shippingAddress),
    ...(body.note !== undefined ? { note: body.note } : {}),
    ...(body.couponCode !== undefined ? { couponCode: body.couponCode } : {}),
  };
}

function patchOf(body: Schemas['OrderPatch']): OrderPatch {
  return {
    ...(body.status ? { status: body.status as OrderStatus } : {}),
    ...(body.shippingAddress ? { shippingAddress: address(body.shippingAddress) } : {}),
    ...('note' in body ? { note: body.note ?? null } : {}),
    ...('couponCode' in body ? { couponCode: body.couponCode ?? null } : {}),
  };
}

function searchPaging({ sort, cursor, size, withTotal }: Schemas['OrderSearch']): ListInput {
  return {
    ...(sort !== undefined ? { sort } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
    ...(size !== undefined ? { size } : {}),
    ...(withTotal !== undefined ? { withTotal } : {}),
  };
}
