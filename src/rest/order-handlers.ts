import type { Core } from '../core/index.js';
import type { Order } from '../core/model.js';
import type { OrderStatus } from '../core/order-state.js';
import type { ListInput } from '../core/paging.js';
import { cancellationJson, draftJson, etagOf, orderItemJson, orderJson, pageJson, shipmentJson } from './mappers.js';
import {
  callerOf,
  ifMatchVersion,
  includes,
  listInput,
  type OrderConditions,
  orderFilters,
  type RestRequest,
} from './request.js';
import {
  address,
  checkReadOnly,
  conditionalGet,
  createOptions,
  type Handler,
  json,
  noContent,
  replayHeader,
  type Schemas,
} from './respond.js';

const ORDER_READ_ONLY = ['id', 'userId', 'items', 'amount', 'amountDetail', 'createdAt', 'updatedAt'] as const;

/** Orders, their items, shipment, cancellation, and order drafts. */
export function createOrderHandlers(core: Core): Record<string, Handler> {
  const orderView = (request: RestRequest, order: Order) =>
    orderJson(order, { amountDetail: includes(request.query.include).has('amountDetail'), vatRate: core.vatRate });
  const orderResponse = (request: RestRequest, order: Order) =>
    json(request.c, 200, orderView(request, order), { ETag: etagOf(order.version) });

  async function currentOrderForWrite(request: RestRequest, body: Record<string, unknown>) {
    const order = await core.orders.get(callerOf(request), request.params.orderId as number);
    checkReadOnly(body, { ...orderJson(order, { amountDetail: true, vatRate: core.vatRate }) }, ORDER_READ_ONLY);
  }

  /** The query form and the search body name the same conditions; both become one core list call. */
  const searchList = async (request: RestRequest, conditions: OrderConditions, paging: ListInput) => {
    const page = await core.orders.list(callerOf(request), {
      filters: orderFilters(conditions, request.operationId === 'searchOrders' ? 'body' : 'query'),
      ...paging,
    });
    return json(
      request.c,
      200,
      pageJson(page, (order) => orderView(request, order)),
    );
  };
  return {
    async listOrders(request) {
      // orderFilters reads only the condition parameters; paging ones go to listInput.
      return searchList(request, request.query, listInput(request.query));
    },

    async searchOrders(request) {
      const body = (request.body ?? {}) as Schemas['OrderSearch'];
      const { sort, cursor, size, withTotal, include } = body;
      if (include) request.query.include = include.join(',');
      const paging = {
        ...(sort !== undefined ? { sort } : {}),
        ...(cursor !== undefined ? { cursor } : {}),
        ...(size !== undefined ? { size } : {}),
        ...(withTotal !== undefined ? { withTotal } : {}),
      };
      return searchList(request, body as OrderConditions, paging);
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
      const { result, replayed } = await core.creates.placeOrder(callerOf(request), input, createOptions(request));
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
      const input = { orderId, ...(body.reason ? { reason: body.reason } : {}) };
      const { result, replayed } = await core.creates.cancelOrder(callerOf(request), input, createOptions(request));
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
      const { result, replayed } = await core.creates.createDraft(callerOf(request), input, createOptions(request));
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
  };
}
